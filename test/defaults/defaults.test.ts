/**
 * Apiserver defaulting per release, judged against real stored specs and hashes (oracle README
 * §4(c)) and against the release models (a field a release lacks is never added).
 */
import { describe, expect, it } from 'vitest';
import {
  APISERVER_DEFAULTS,
  applyApiserverDefaults,
  apiserverDefaultsFor,
  hashContainer,
  missingApiserverDefaults,
  parseJson,
  preimage,
  supportedReleases,
  wouldGetTokenMount,
} from '../../src/index.js';
import { fieldAt } from '../../src/defaults/model-paths.js';
import { imageTag } from '../../src/defaults/image-reference.js';
import { oracleCase, oracleRow } from '../support/oracle.js';
import { errorOf } from '../support/error-of.js';

const minorOf = (release: string): number => Number(release.split('.')[1]);
const codeOf = (fn: () => unknown): string => errorOf(fn).code;

/** Manifests as their users wrote them, before any apiserver saw them. */
const REAL = [
  {
    id: 'real-containerd-nginx-2022',
    observed: { release: '1.24', hash: '9624f5a5' },
    // `kubectl run nginx --image=nginx` sends name and image (and an empty resources object).
    manifest: { name: 'nginx', image: 'nginx', resources: {} },
    tokenVolume: 'kube-api-access-75rfs',
  },
  {
    id: 'real-cri-dockerd-simple-pod-2024',
    observed: { release: '1.24', hash: '62b86e75' },
    manifest: {
      name: 'simple-pod',
      image: 'rutush10/simple-restapi-server-py:v0.0.1',
      ports: [{ containerPort: 8000 }],
      resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
    },
    tokenVolume: 'kube-api-access-qj5tq',
  },
  {
    id: 'real-qiniu-kube-proxy-1.9',
    observed: { release: '1.9', hash: 'ecd8dffb' },
    // kubeadm's kube-proxy DaemonSet container of that era.
    manifest: {
      name: 'kube-proxy',
      image: 'index-dev.qiniu.io/kelibrary/kube-proxy-amd64:v1.9.7',
      command: ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf'],
      securityContext: { privileged: true },
      volumeMounts: [
        { name: 'kube-proxy', mountPath: '/var/lib/kube-proxy' },
        { name: 'xtables-lock', mountPath: '/run/xtables.lock' },
        { name: 'lib-modules', mountPath: '/lib/modules', readOnly: true },
      ],
    },
    tokenVolume: 'kube-proxy-token-jdlsl',
  },
];

function withoutEmptyResources(c: Record<string, unknown>): Record<string, unknown> {
  const { resources, ...rest } = c;
  return resources !== undefined && JSON.stringify(resources) !== '{}' ? { ...rest, resources } : rest;
}

describe('real stored hashes are reproduced from the manifests users wrote', () => {
  for (const r of REAL) {
    it(`${r.id}: defaulting gives the stored spec and the observed hash ${r.observed.hash}`, () => {
      const stored = oracleCase(r.id).container as Record<string, unknown>;
      const frozen = structuredClone(r.manifest);
      const defaulted = applyApiserverDefaults(r.manifest, {
        kubeletVersion: r.observed.release,
        tokenVolume: r.tokenVolume,
      });
      expect(r.manifest).toEqual(frozen); // input untouched
      // Go writes the (non-omitempty) resources struct as {} even when empty: not a default.
      expect(withoutEmptyResources(defaulted)).toEqual(
        withoutEmptyResources(JSON.parse(JSON.stringify(stored)) as Record<string, unknown>),
      );
      expect(hashContainer(defaulted, { kubeletVersion: r.observed.release })).toBe(r.observed.hash);
      // Every release whose defaults are the same for this container stores the same spec: equal
      // pre-images (what the kubelet holds, byte for byte) and the oracle's hash.
      for (const release of supportedReleases().filter(
        (v) => minorOf(v) < 12 || minorOf(v) > 14 || !('securityContext' in r.manifest),
      )) {
        const mine = applyApiserverDefaults(r.manifest, { kubeletVersion: release, tokenVolume: r.tokenVolume });
        expect(preimage(mine, { kubeletVersion: release }).text).toBe(oracleRow(r.id, release).preimage);
        expect(hashContainer(mine, { kubeletVersion: release })).toBe(oracleRow(r.id, release).hash);
      }
    });
  }

  it('without the token mount the JSON-era hash differs (why the CLI warns)', () => {
    const plain = applyApiserverDefaults({ name: 'nginx', image: 'nginx' }, { kubeletVersion: '1.24' });
    expect(hashContainer(plain, { kubeletVersion: '1.24' })).not.toBe('9624f5a5');
    expect(wouldGetTokenMount(plain)).toBe(true);
    expect(missingApiserverDefaults(plain)).toEqual([]);
    expect(missingApiserverDefaults({ name: 'nginx', image: 'nginx' })).toEqual([
      'terminationMessagePath',
      'terminationMessagePolicy',
      'imagePullPolicy',
    ]);
  });
});

describe('the defaults table against the release models', () => {
  it('every row names fields its releases have (and each row reaches a field in its first release)', () => {
    for (const row of APISERVER_DEFAULTS) {
      const first = `1.${row.first}`;
      expect(
        row.paths.some((p) => fieldAt(first, p) !== null),
        `${row.id} at ${first}`,
      ).toBe(true);
      const last = row.last ?? minorOf(supportedReleases().at(-1)!);
      for (let minor = row.first; minor <= last; minor++) {
        // A path may only disappear going back in time (startupProbe < 1.16, grpc < 1.23), never within a row's span.
        for (const p of row.paths) {
          if (fieldAt(first, p) !== null)
            expect(fieldAt(`1.${minor}`, p), `${row.id} ${p.join('.')} at 1.${minor}`).not.toBeNull();
        }
      }
    }
  });

  /** Everything any default can touch, at once. */
  const everything = {
    name: 'c',
    image: 'nginx',
    ports: [{ containerPort: 80 }],
    env: [
      { name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'B', valueFrom: { fileKeyRef: { volumeName: 'v', path: 'p', key: 'k' } } },
    ],
    resources: { limits: { cpu: '100u', memory: '1Gi' } },
    livenessProbe: { httpGet: { port: 80 } },
    readinessProbe: { grpc: { port: 9 } },
    startupProbe: { tcpSocket: { port: 80 } },
    lifecycle: { postStart: { httpGet: { port: 80 } }, preStop: { httpGet: { port: 80 } } },
    securityContext: {},
  };

  it('a release never gets a field its model lacks, in any pod list', () => {
    for (const release of supportedReleases()) {
      for (const list of ['containers', 'initContainers', 'ephemeralContainers'] as const) {
        for (const gates of [{}, { InPlacePodVerticalScaling: true, ProcMountType: true }] as Record<
          string,
          boolean
        >[]) {
          const input = structuredClone(everything);
          const out = applyApiserverDefaults(input, {
            kubeletVersion: release,
            list,
            featureGates: gates,
            podSpec: { hostNetwork: true },
            tokenVolume: 't',
          });
          // Fields the input already had may be unknown to old releases (dropped by the kubelet):
          // only what defaulting added must exist in the model.
          for (const path of addedPaths(input, out)) {
            expect(fieldAt(release, path), `${release} ${list} added ${path.join('.')}`).not.toBeNull();
          }
          assertSerialisable(out, release, input);
        }
      }
    }
  });

  function addedPaths(before: unknown, after: unknown, path: string[] = []): string[][] {
    if (Array.isArray(after)) {
      const b = Array.isArray(before) ? before : [];
      return after.flatMap((el, i) => (i < b.length ? addedPaths(b[i], el, [...path, '*']) : [[...path, '*']]));
    }
    if (after === null || typeof after !== 'object') return [];
    const b = (before ?? {}) as Record<string, unknown>;
    return Object.keys(after).flatMap((k) =>
      k in b ? addedPaths(b[k], (after as Record<string, unknown>)[k], [...path, k]) : [[...path, k]],
    );
  }

  function assertSerialisable(out: unknown, release: string, input: unknown): void {
    // Values added are JSON scalars or objects built from JSON: serialisable without loss.
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
    expect(() => hashContainer(out as object, { kubeletVersion: release })).not.toThrow();
    expect(input).toEqual(everything);
  }

  it('rows switch on and off at the releases read upstream', () => {
    const ids = (v: string, gates?: Record<string, boolean>): string[] =>
      apiserverDefaultsFor(v, { featureGates: gates }).map((r) => r.id);
    expect(ids('1.22')).not.toContain('probe.grpc.service');
    expect(ids('1.23')).toContain('probe.grpc.service');
    expect(ids('1.27')).not.toContain('resizePolicy');
    expect(ids('1.27', { InPlacePodVerticalScaling: true })).toContain('resizePolicy');
    expect(ids('1.32', { InPlacePodVerticalScaling: true })).toContain('resizePolicy');
    expect(ids('1.33', { InPlacePodVerticalScaling: true })).not.toContain('resizePolicy');
    expect(ids('1.11')).not.toContain('securityContext.procMount.forced');
    expect(ids('1.12')).toContain('securityContext.procMount.forced');
    expect(ids('1.15')).not.toContain('securityContext.procMount.forced');
    expect(ids('1.33')).not.toContain('env.fileKeyRef.optional');
    expect(ids('1.34')).toContain('env.fileKeyRef.optional');
    expect(apiserverDefaultsFor('1.15', { list: 'ephemeralContainers' })).toEqual([]);
    const ephemeral120 = apiserverDefaultsFor('1.20', { list: 'ephemeralContainers' }).map((r) => r.id);
    expect(ephemeral120).toContain('ports.protocol');
    expect(ephemeral120).not.toContain('imagePullPolicy');
    expect(apiserverDefaultsFor('1.21', { list: 'ephemeralContainers' }).map((r) => r.id)).toContain('imagePullPolicy');
    expect(apiserverDefaultsFor('1.21', { list: 'ephemeralContainers' }).map((r) => r.id)).not.toContain(
      'resources.requests',
    );
  });
});

/** The member at `path` of a JSON value, or undefined where the path leaves it. */
function at(value: unknown, ...path: (string | number)[]): unknown {
  let cur = value;
  for (const seg of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

describe('each default, at its releases', () => {
  const d = (c: object, kubeletVersion: string, more: object = {}): Record<string, unknown> =>
    applyApiserverDefaults(c, { kubeletVersion, ...more });

  it('imagePullPolicy follows ParseImageName: latest or no tag and no digest → Always; errors → IfNotPresent', () => {
    const cases: [string, 'Always' | 'IfNotPresent'][] = [
      ['nginx', 'Always'],
      ['nginx:latest', 'Always'],
      ['library/nginx', 'Always'],
      ['localhost:5000/team/app', 'Always'],
      ['registry.example.com:5000/team/app:latest', 'Always'],
      ['nginx:1.25', 'IfNotPresent'],
      ['nginx:Latest', 'IfNotPresent'],
      [`nginx@sha256:${'a'.repeat(64)}`, 'IfNotPresent'],
      [`nginx:latest@sha256:${'a'.repeat(64)}`, 'Always'],
      [`nginx:latest@sha256:${'a'.repeat(63)}`, 'IfNotPresent'], // digest.Parse refuses: the whole reference is an error
      [`nginx@sha256:${'A'.repeat(64)}`, 'IfNotPresent'],
      [`nginx@md5:${'a'.repeat(32)}`, 'IfNotPresent'],
      ['Nginx', 'IfNotPresent'], // repository name must be lowercase
      ['Registry.Example.com/app', 'Always'], // the domain may have capitals
      ['a'.repeat(64), 'IfNotPresent'], // an image ID is not a name
      ['', 'IfNotPresent'],
      [' nginx', 'IfNotPresent'],
      [`${'a'.repeat(250)}/b`, 'IfNotPresent'], // name longer than 255
    ];
    for (const [image, policy] of cases)
      expect([image, d({ name: 'c', image }, '1.29')['imagePullPolicy']]).toEqual([image, policy]);
    expect(imageTag('docker.io/library/busybox:1.36')).toBe('1.36');
    expect(d({ name: 'c', image: 'nginx', imagePullPolicy: 'Never' }, '1.29')['imagePullPolicy']).toBe('Never');
  });

  it('probes get timings, HTTP path and scheme; startupProbe only where it exists (1.16+)', () => {
    const probe = { httpGet: { port: 8080 } };
    const out = d(
      {
        name: 'c',
        image: 'i',
        livenessProbe: probe,
        startupProbe: probe,
        lifecycle: { preStop: { httpGet: { port: 1, scheme: 'HTTPS' } } },
      },
      '1.16',
    );
    expect(out['livenessProbe']).toEqual({
      httpGet: { port: 8080, path: '/', scheme: 'HTTP' },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(out['startupProbe']).toEqual(out['livenessProbe']);
    expect(out['lifecycle']).toEqual({ preStop: { httpGet: { port: 1, scheme: 'HTTPS', path: '/' } } });
    const old = d({ name: 'c', image: 'i', startupProbe: probe }, '1.15');
    // unknown to 1.15: its apiserver's decoder drops the field, so the stored container has none
    expect(old['startupProbe']).toBeUndefined();
    expect(
      d(
        { name: 'c', image: 'i', livenessProbe: { exec: { command: ['x'] }, periodSeconds: 0, failureThreshold: 7 } },
        '1.20',
      )['livenessProbe'],
    ).toEqual({
      exec: { command: ['x'] },
      periodSeconds: 10,
      failureThreshold: 7,
      timeoutSeconds: 1,
      successThreshold: 1,
    });
  });

  it('grpc service "" from 1.23: the JSON-era hash changes from "service":null', () => {
    const c = {
      name: 'c',
      image: 'i',
      readinessProbe: {
        grpc: { port: 9 },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      },
    };
    const out = d(c, '1.23');
    expect(at(out, 'readinessProbe', 'grpc')).toEqual({ port: 9, service: '' });
    expect(preimage(out, { kubeletVersion: '1.23' }).text).toContain('"service":""');
    expect(
      at(d({ ...c, readinessProbe: { grpc: { port: 9, service: 'x' } } }, '1.30'), 'readinessProbe', 'grpc', 'service'),
    ).toBe('x');
  });

  it('ports: protocol TCP; hostPort = containerPort only on hostNetwork pods, not for ephemeral containers', () => {
    const c = {
      name: 'c',
      image: 'i',
      ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP', hostPort: 5353 }],
    };
    expect(d(c, '1.20')['ports']).toEqual([
      { containerPort: 80, protocol: 'TCP' },
      { containerPort: 53, protocol: 'UDP', hostPort: 5353 },
    ]);
    const host = d(c, '1.28', { podSpec: { hostNetwork: true } });
    expect(host['ports']).toEqual([
      { containerPort: 80, protocol: 'TCP', hostPort: 80 },
      { containerPort: 53, protocol: 'UDP', hostPort: 5353 },
    ]);
    expect(at(d(c, '1.28', { podSpec: { hostNetwork: true }, list: 'ephemeralContainers' }), 'ports', 0)).toEqual({
      containerPort: 80,
      protocol: 'TCP',
    });
  });

  it('resources: requests from limits for containers and init containers; quantities rounded up to milli', () => {
    const c = {
      name: 'c',
      image: 'i',
      resources: { limits: { cpu: '0.5m', memory: '1E3', 'example.com/gpu': '1' }, requests: { cpu: '100u' } },
    };
    expect(d(c, '1.29')['resources']).toEqual({
      limits: { cpu: '1m', memory: '1E3', 'example.com/gpu': '1' },
      requests: { cpu: '1m', memory: '1E3', 'example.com/gpu': '1' },
    });
    expect(d(c, '1.29', { list: 'ephemeralContainers' })['resources']).toEqual({
      limits: { cpu: '1m', memory: '1E3', 'example.com/gpu': '1' },
      requests: { cpu: '1m' },
    });
    expect(
      at(
        d(
          { name: 'c', image: 'i', resources: { limits: { cpu: '-1n', memory: '1234567890123456789012345.0001' } } },
          '1.20',
        ),
        'resources',
        'limits',
      ),
    ).toEqual({
      cpu: '-1m',
      memory: '1234567890123456789012345001m',
    });
    const json = parseJson('{"name":"c","image":"i","resources":{"limits":{"cpu":0.0001}}}');
    expect(d(json as object, '1.29')['resources']).toEqual({ limits: { cpu: '1m' }, requests: { cpu: '1m' } });
  });

  it('resizePolicy (1.27–1.32, gate on): NotRequired for cpu and memory requests without a policy', () => {
    const c = {
      name: 'c',
      image: 'i',
      resources: { limits: { cpu: '1', memory: '1Gi' } },
      resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
    };
    const gates = { featureGates: { InPlacePodVerticalScaling: true } };
    expect(d(c, '1.27', gates)['resizePolicy']).toEqual([
      { resourceName: 'memory', restartPolicy: 'RestartContainer' },
      { resourceName: 'cpu', restartPolicy: 'NotRequired' },
    ]);
    expect(d(c, '1.27')['resizePolicy']).toEqual(c.resizePolicy);
    expect(d(c, '1.33', gates)['resizePolicy']).toEqual(c.resizePolicy);
    expect(d(c, '1.30', { ...gates, list: 'initContainers' })['resizePolicy']).toEqual(c.resizePolicy);
    expect(d({ name: 'c', image: 'i' }, '1.30', gates)['resizePolicy']).toBeUndefined();
  });

  it('procMount: forced to Default on create 1.12–1.14 while ProcMountType is off; nil defaulted in 1.14', () => {
    const c = { name: 'c', image: 'i', securityContext: { procMount: 'Unmasked' } };
    expect(d(c, '1.11')['securityContext']).toEqual({}); // no procMount field before 1.12: dropped
    expect(d(c, '1.12')['securityContext']).toEqual({ procMount: 'Default' });
    expect(d(c, '1.13', { featureGates: { ProcMountType: true } })['securityContext']).toEqual({
      procMount: 'Unmasked',
    });
    expect(
      d({ name: 'c', image: 'i', securityContext: {} }, '1.14', { featureGates: { ProcMountType: true } })[
        'securityContext'
      ],
    ).toEqual({ procMount: 'Default' });
    expect(d({ name: 'c', image: 'i', securityContext: {} }, '1.15')['securityContext']).toEqual({});
    expect(d({ name: 'c', image: 'i' }, '1.12')['securityContext']).toBeUndefined();
  });

  it('env: fieldRef apiVersion v1; fileKeyRef optional false from 1.34', () => {
    const c = {
      name: 'c',
      image: 'i',
      env: [
        { name: 'A', valueFrom: { fieldRef: { fieldPath: 'x' } } },
        { name: 'B', valueFrom: { fileKeyRef: { volumeName: 'v', path: 'p', key: 'k' } } },
      ],
    };
    expect(at(d(c, '1.8'), 'env', 0)).toEqual({
      name: 'A',
      valueFrom: { fieldRef: { fieldPath: 'x', apiVersion: 'v1' } },
    });
    expect(at(d(c, '1.33'), 'env', 1, 'valueFrom', 'fileKeyRef', 'optional')).toBeUndefined();
    expect(at(d(c, '1.34'), 'env', 1, 'valueFrom', 'fileKeyRef', 'optional')).toBe(false);
  });

  it('token mount: appended to containers and init containers unless something is mounted there or automount is off', () => {
    const c = { name: 'c', image: 'i', volumeMounts: [{ name: 'data', mountPath: '/data' }] };
    expect(d(c, '1.29', { tokenVolume: 'kube-api-access-abcde' })['volumeMounts']).toEqual([
      { name: 'data', mountPath: '/data' },
      { name: 'kube-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
    ]);
    const own = {
      name: 'c',
      image: 'i',
      volumeMounts: [{ name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
    };
    expect(d(own, '1.29', { tokenVolume: 'x' })['volumeMounts']).toEqual(own.volumeMounts);
    expect(wouldGetTokenMount(own)).toBe(false);
    expect(
      d(c, '1.29', { tokenVolume: 'x', podSpec: { automountServiceAccountToken: false } })['volumeMounts'],
    ).toEqual(c.volumeMounts);
    expect(wouldGetTokenMount(c, { podSpec: { automountServiceAccountToken: false } })).toBe(false);
    expect(d(c, '1.29', { tokenVolume: 'x', list: 'ephemeralContainers' })['volumeMounts']).toEqual(c.volumeMounts);
    expect(wouldGetTokenMount(c, { list: 'ephemeralContainers' })).toBe(false);
  });

  it('returns a new object, never the input; __proto__ is an unknown key (dropped), never the prototype', () => {
    const input = JSON.parse(
      '{"name":"c","image":"i","__proto__":{"x":1},"resources":{"limits":{"cpu":"1"}}}',
    ) as object;
    const out = d(input, '1.29');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).not.toContain('__proto__');
    expect(Object.keys(input)).toContain('__proto__');
    expect(at(input, 'resources')).toEqual({ limits: { cpu: '1' } });
    const text = '{"name":"c","image":"i","resources":{"limits":{"memory":1E3}}}';
    expect(hashContainer(d(text as unknown as object, '1.29'), { kubeletVersion: '1.29' })).toBe(
      hashContainer(
        '{"name":"c","image":"i","resources":{"limits":{"memory":1E3},"requests":{"memory":1E3}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always"}',
        { kubeletVersion: '1.29' },
      ),
    );
  });

  it('bad input gets typed errors', () => {
    expect(codeOf(() => applyApiserverDefaults({ name: 'c' }, { kubeletVersion: '1.99' }))).toBe('UNSUPPORTED_RELEASE');
    expect(codeOf(() => applyApiserverDefaults({ name: 'c' }, { kubeletVersion: '1.29', tokenVolume: '' }))).toBe(
      'INVALID_OPTION',
    );
    expect(
      codeOf(() =>
        applyApiserverDefaults(
          { name: 'c' },
          { kubeletVersion: '1.29', featureGates: { X: 'yes' as unknown as boolean } },
        ),
      ),
    ).toBe('INVALID_OPTION');
    expect(codeOf(() => applyApiserverDefaults([], { kubeletVersion: '1.29' }))).toBe('INVALID_TYPE');
    expect(
      codeOf(() =>
        applyApiserverDefaults({ name: 'c', resources: { limits: { cpu: '1x' } } }, { kubeletVersion: '1.29' }),
      ),
    ).toBe('INVALID_QUANTITY');
    expect(codeOf(() => applyApiserverDefaults({ name: 'c', ports: {} }, { kubeletVersion: '1.29' }))).toBe(
      'INVALID_TYPE',
    );
    expect(codeOf(() => missingApiserverDefaults(new Map() as unknown as object))).toBe('INVALID_TYPE');
  });
});
