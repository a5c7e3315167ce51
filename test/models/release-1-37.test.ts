/**
 * 1.37 (k8s.io/api v0.37.0) adds VolumeMount.bindMountOptions, HTTPGetAction.protocol and
 * GRPCAction.mode to the closure: the hash (name and image only) cannot see them, but a 1.37 kubelet
 * decodes them, so a value of the wrong JSON type is refused at 1.37 and dropped unread at 1.36.
 *
 * 1.37 also tags embedded structs `json:""` where 1.36 wrote `json:",inline"`. encoding/json reads only
 * the tag's name (typeFields: an anonymous struct field without a name is explored), so both
 * promote the embedded fields: the 1.37 model, the decoder and explain must agree.
 */
import { describe, expect, it } from 'vitest';
import { KubeletHashError, explainHashChange, hashContainer, validateContainer } from '../../src/index.js';
import { releaseModel } from '../../src/models/catalog.js';
import { resolveRoot, type StructType } from '../../src/models/gotype.js';
import { lookupJsonKey } from '../../src/explain/input-fields.js';

const withEmbeds = {
  name: 'app',
  image: 'busybox',
  envFrom: [{ configMapRef: { name: 'cm' } }, { secretRef: { name: 's' } }],
  env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
  livenessProbe: { exec: { command: ['true'] } },
};

function struct(root: StructType, ...path: string[]): StructType {
  let t: StructType = root;
  for (const key of path) {
    const found = lookupJsonKey(t, key);
    let ft = found?.field.type;
    while (ft && (ft.kind === 'ptr' || ft.kind === 'slice')) ft = ft.elem;
    if (!ft || ft.kind !== 'struct') throw new Error(`no struct at ${path.join('.')}`);
    t = ft;
  }
  return t;
}

describe('release 1.37: embedded structs tagged json:""', () => {
  it('the model keeps them embedded and inline, with the new tag', () => {
    const probe = releaseModel('1.37').types.find((t) => t.name === 'v1.Probe');
    expect(probe?.fields?.find((f) => f.goName === 'ProbeHandler')).toMatchObject({
      embedded: true,
      inline: true,
      jsonName: '',
      jsonTag: '',
    });
  });

  it('the resolver promotes their fields exactly as in 1.36', () => {
    for (const version of ['1.36', '1.37']) {
      const root = resolveRoot(releaseModel(version));
      expect(lookupJsonKey(struct(root, 'envFrom', 'configMapRef'), 'name'), version).not.toBeNull();
      expect(lookupJsonKey(struct(root, 'env', 'valueFrom', 'secretKeyRef'), 'name'), version).not.toBeNull();
      expect(lookupJsonKey(struct(root, 'livenessProbe'), 'exec'), version).not.toBeNull();
    }
  });

  it('a container using them validates and explains as unchanged from 1.36 (no dropped field)', () => {
    expect(() => validateContainer(withEmbeds, { kubeletVersion: '1.37' })).not.toThrow();
    const why = explainHashChange(withEmbeds, { from: '1.36', to: '1.37' });
    expect(why.changed).toBe(false);
    expect(why.reasons.map((r) => r.kind)).toEqual(['no-change']);
  });
});

/** The error `validateContainer` throws for `container` at `version`, or undefined when it accepts it. */
function refusal(container: Record<string, unknown>, version: string): KubeletHashError | undefined {
  try {
    validateContainer(container, { kubeletVersion: version });
    return undefined;
  } catch (e) {
    if (e instanceof KubeletHashError) return e;
    throw e;
  }
}

describe('release 1.37: the fields v0.37.0 adds to the closure', () => {
  it('models them as the real types declare them (last in their structs, pointers to string types)', () => {
    const types = releaseModel('1.37').types;
    const fields = (name: string) =>
      types.find((t) => t.name === name)?.fields?.map((f) => [f.goName, f.goType, f.jsonTag]);
    expect(fields('v1.VolumeMount')?.at(-1)).toEqual(['BindMountOptions', '[]string', 'bindMountOptions,omitempty']);
    expect(fields('v1.HTTPGetAction')?.at(-1)).toEqual(['Protocol', '*v1.HTTPProtocol', 'protocol,omitempty']);
    expect(fields('v1.GRPCAction')?.at(-1)).toEqual(['Mode', '*v1.GRPCProbeMode', 'mode,omitempty']);
    for (const name of ['v1.HTTPProtocol', 'v1.GRPCProbeMode'])
      expect(types.find((t) => t.name === name)).toMatchObject({ kind: 'string', underlying: 'string' });
  });

  it('refuses a number for volumeMounts[0].bindMountOptions at 1.37, as Go does (1.36 drops the key)', () => {
    const c = { name: 'app', image: 'busybox', volumeMounts: [{ name: 'v', mountPath: '/v', bindMountOptions: 5 }] };
    const e = refusal(c, '1.37');
    expect(e?.code).toBe('INVALID_TYPE');
    expect(e?.path).toEqual(['volumeMounts', 0, 'bindMountOptions']);
    expect(e?.message).toBe(
      'INVALID_TYPE at .volumeMounts[0].bindMountOptions: expected an array ([]string) (found number 5)',
    );
    expect(refusal(c, '1.36')).toBeUndefined();
    expect(hashContainer(c, { kubeletVersion: '1.36' })).toBe('3ada567e');
  });

  it('refuses wrong JSON types for httpGet.protocol and grpc.mode at 1.37 only', () => {
    const http = { name: 'app', image: 'busybox', livenessProbe: { httpGet: { port: 80, protocol: 2 } } };
    const grpc = { name: 'app', image: 'busybox', readinessProbe: { grpc: { port: 9, mode: [] } } };
    expect(refusal(http, '1.37')?.path).toEqual(['livenessProbe', 'httpGet', 'protocol']);
    expect(refusal(grpc, '1.37')?.path).toEqual(['readinessProbe', 'grpc', 'mode']);
    expect(refusal(http, '1.37')?.code).toBe('INVALID_TYPE');
    expect(refusal(grpc, '1.37')?.code).toBe('INVALID_TYPE');
    expect(refusal(http, '1.36')).toBeUndefined();
    expect(refusal(grpc, '1.36')).toBeUndefined();
  });

  it('accepts valid values and hashes them by name and image alone, as 1.36 does', () => {
    const c = {
      name: 'app',
      image: 'busybox',
      volumeMounts: [{ name: 'v', mountPath: '/v', bindMountOptions: ['rbind', 'ro'] }],
      livenessProbe: { httpGet: { port: 80, scheme: 'HTTPS', protocol: 'HTTP2' } },
      readinessProbe: { grpc: { port: 9, service: null, mode: 'TLS' } },
      startupProbe: { grpc: { port: 9, service: 'h', mode: 'Plaintext' }, initialDelaySeconds: 1 },
    };
    expect(refusal(c, '1.37')).toBeUndefined();
    expect(hashContainer(c, { kubeletVersion: '1.37' })).toBe('3ada567e');
    expect(hashContainer(c, { kubeletVersion: '1.37' })).toBe(hashContainer(c, { kubeletVersion: '1.36' }));
  });
});
