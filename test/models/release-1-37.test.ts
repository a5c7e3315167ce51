/**
 * 1.37 tags embedded structs `json:""` where 1.36 wrote `json:",inline"`. encoding/json reads only
 * the tag's name (typeFields: an anonymous struct field without a name is explored), so both
 * promote the embedded fields: the 1.37 model, the decoder and explain must agree.
 */
import { describe, expect, it } from 'vitest';
import { explainHashChange, validateContainer } from '../../src/index.js';
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
