import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MODEL_VERSIONS, releaseModel } from '../../src/models/catalog.js';
import {
  addField,
  addType,
  embed,
  field,
  named,
  removeField,
  removeType,
  renameType,
  struct,
} from '../../src/models/dsl.js';
import type { Change, ReleaseDelta } from '../../src/models/dsl.js';
import { TypeResolver } from '../../src/models/gotype.js';
import type { ReleaseModel, TypeDecl } from '../../src/models/model.js';
import { assembleReleases } from '../../src/models/releases/assemble.js';
import { BASE_RELEASE, RELEASE_DELTAS } from '../../src/models/releases/index.js';

const MODELS_DIR = new URL('../../fixtures/kube-models/', import.meta.url);

function extracted(version: string): ReleaseModel {
  return JSON.parse(readFileSync(new URL(`v${version}.json`, MODELS_DIR), 'utf8')) as ReleaseModel;
}

/** The real delta chain with `extra` appended to the changes of release `version`. */
function deltasWith(version: string, ...extra: Change[]): ReleaseDelta[] {
  return RELEASE_DELTAS.map((d) => (d.version === version ? { ...d, changes: [...d.changes, ...extra] } : d));
}

describe('release catalog', () => {
  it('lists one model per extracted model file, ascending and without gaps from 1.8', () => {
    const files = readdirSync(MODELS_DIR).filter((f) => /^v1\.\d+\.json$/.test(f));
    const minors = files.map((f) => Number(f.slice(3, -5))).sort((a, b) => a - b);
    expect(minors[0]).toBe(8);
    expect(minors).toEqual(minors.map((_, i) => i + 8));
    expect(MODEL_VERSIONS).toEqual(minors.map((m) => `1.${m}`));
  });

  it.each(MODEL_VERSIONS.map((v) => [v]))('assembles %s exactly as extracted', (version) => {
    const model = releaseModel(version);
    const want = extracted(version);
    expect(model).toStrictEqual(want);
    // Same keys in the same order, so serialising a model reproduces the fixture byte for byte.
    expect(JSON.stringify(model)).toBe(JSON.stringify(want));
  });

  it('memoises and deep-freezes the models', () => {
    const model = releaseModel('1.23');
    expect(releaseModel('1.23')).toBe(model);
    const container = model.types[0];
    expect(Object.isFrozen(model)).toBe(true);
    expect(Object.isFrozen(model.types)).toBe(true);
    expect(Object.isFrozen(model.source['k8s.io/api'])).toBe(true);
    expect(Object.isFrozen(container?.fields?.[0])).toBe(true);
    expect(() => {
      model.types.push(model.types[0] as TypeDecl);
    }).toThrow(TypeError);
    expect(() => {
      (container as { name: string }).name = 'v1.Pod';
    }).toThrow(TypeError);
    expect(releaseModel('1.23').types[0]?.name).toBe('v1.Container');
  });

  it('does not freeze the release files it was built from', () => {
    releaseModel('1.8');
    expect(Object.isFrozen(BASE_RELEASE.types[0])).toBe(false);
  });

  it('rejects unknown versions with a plain Error naming the known ones', () => {
    expect(() => releaseModel('1.7')).toThrow(/1\.7.*1\.8, 1\.9/);
    // The minor after the newest one modelled, so the check does not move with every release.
    const next = `1.${Number(MODEL_VERSIONS.at(-1)!.split('.')[1]) + 1}`;
    expect(() => releaseModel(next)).toThrow(Error);
    expect(() => releaseModel('1.27.3')).toThrow(Error);
  });
});

describe('deltas are checked against the extracted models', () => {
  it('notices one extra field in one release, and in every release after it', () => {
    const broken = assembleReleases(
      BASE_RELEASE,
      deltasWith('1.9', addField('v1.Container', field('Extra', 'string', 'extra,omitempty'), { after: 'Name' })),
    );
    const byVersion = new Map(broken.map((m) => [m.version, m]));
    expect(byVersion.get('1.8')).toStrictEqual(extracted('1.8'));
    for (const version of ['1.9', '1.10', '1.36']) {
      expect(byVersion.get(version)).not.toStrictEqual(extracted(version));
    }
  });

  it('notices a changed tag (omitempty spelled omitEmpty)', () => {
    const deltas = RELEASE_DELTAS.map((d) => (d.version === '1.13' ? { ...d, changes: [] } : d));
    const models = assembleReleases(BASE_RELEASE, deltas);
    const v113 = models.find((m) => m.version === '1.13');
    expect(v113).not.toStrictEqual(extracted('1.13'));
  });

  it('rejects malformed changes with the release and operation named', () => {
    const bad: [Change, RegExp][] = [
      [
        addField('v1.Container', field('X', 'string', 'x'), { after: 'Nope' }),
        /1\.9: addField: v1\.Container has no field Nope/,
      ],
      [addField('v1.Container', field('Name', 'string', 'name'), { first: true }), /already has Name/],
      [addField('v1.Protocol', field('X', 'string', 'x'), { first: true }), /v1\.Protocol is not a struct/],
      [addType(named('v1.Protocol', 'string')), /type v1\.Protocol already exists/],
      [removeType('v1.Nope'), /removeType: no type v1\.Nope/],
      [removeField('v1.Container', 'Nope'), /removeField: v1\.Container has no field Nope/],
      [renameType('v1.Handler', 'v1.Probe'), /type v1\.Probe already exists/],
    ];
    for (const [change, message] of bad) {
      expect(() => assembleReleases(BASE_RELEASE, deltasWith('1.9', change))).toThrow(message);
    }
  });

  it('rejects types nothing reaches and references to undeclared types', () => {
    expect(() => assembleReleases(BASE_RELEASE, deltasWith('1.9', addType(named('v1.Orphan', 'string'))))).toThrow(
      /1\.9: declared but unreachable from v1\.Container: v1\.Orphan/,
    );
    expect(() => assembleReleases(BASE_RELEASE, deltasWith('1.9', removeType('v1.Capability')))).toThrow(
      /1\.9: type v1\.Capability is referenced but not declared/,
    );
  });

  it('removes a field in place', () => {
    const models = assembleReleases(BASE_RELEASE, deltasWith('1.9', removeField('v1.Container', 'TTY')).slice(0, 1));
    const names = (m: ReleaseModel | undefined) =>
      m?.types.find((t) => t.name === 'v1.Container')?.fields?.map((f) => f.goName);
    const real = names(releaseModel('1.9'));
    expect(real).toContain('TTY');
    expect(names(models[1])).toEqual(real?.filter((n) => n !== 'TTY'));
  });

  it('renames an embedded field together with its type', () => {
    // Only up to 1.9: the real 1.23 delta would no longer find v1.Handler.
    const models = assembleReleases(BASE_RELEASE, deltasWith('1.9', renameType('v1.Handler', 'v1.Action')).slice(0, 1));
    const probe = models[1]?.types.find((t) => t.name === 'v1.Probe');
    expect(probe?.fields?.[0]).toStrictEqual({
      goName: 'Action',
      goType: 'v1.Action',
      jsonName: '',
      omitempty: false,
      embedded: true,
      inline: true,
      exported: true,
      jsonTag: ',inline',
    });
    const lifecycle = models[1]?.types.find((t) => t.name === 'v1.Lifecycle');
    expect(lifecycle?.fields?.map((f) => [f.goName, f.goType])).toEqual([
      ['PostStart', '*v1.Action'],
      ['PreStop', '*v1.Action'],
    ]);
  });
});

describe('declaration vocabulary', () => {
  it('reads tags the way encoding/json does', () => {
    expect(field('Command', '[]string', 'command,omitempty')).toStrictEqual({
      goName: 'Command',
      goType: '[]string',
      jsonName: 'command',
      omitempty: true,
      exported: true,
      jsonTag: 'command,omitempty',
    });
    // 1.12's ProcMount: only the exact option `omitempty` counts.
    expect(field('ProcMount', '*v1.ProcMountType', 'procMount,omitEmpty').omitempty).toBe(false);
    // IntOrString: no tag, so the JSON name is the Go name.
    expect(field('IntVal', 'int32')).toMatchObject({ jsonName: 'IntVal', jsonTag: '', exported: true });
    // Quantity internals: unexported fields have no JSON name.
    expect(field('i', 'resource.int64Amount')).toMatchObject({ jsonName: '', exported: false });
  });

  it('names embedded fields after their type and marks inline only when tagged', () => {
    expect(embed('v1.LocalObjectReference', ',inline')).toStrictEqual({
      goName: 'LocalObjectReference',
      goType: 'v1.LocalObjectReference',
      jsonName: '',
      omitempty: false,
      embedded: true,
      inline: true,
      exported: true,
      jsonTag: ',inline',
    });
    const dec = embed('*inf.Dec');
    expect(dec).toMatchObject({ goName: 'Dec', jsonName: '', embedded: true });
    expect('inline' in dec).toBe(false);
  });

  it('derives package, kind and external from the type name and underlying type', () => {
    expect(named('v1.ResourceList', 'map[v1.ResourceName]resource.Quantity')).toStrictEqual({
      name: 'v1.ResourceList',
      pkgPath: 'k8s.io/api/core/v1',
      kind: 'map',
      underlying: 'map[v1.ResourceName]resource.Quantity',
      key: 'v1.ResourceName',
      elem: 'resource.Quantity',
    });
    expect(named('big.nat', '[]big.Word')).toStrictEqual({
      name: 'big.nat',
      pkgPath: 'math/big',
      kind: 'slice',
      underlying: '[]big.Word',
      elem: 'big.Word',
      external: true,
    });
    expect(struct('intstr.IntOrString', [], { jsonCustomMarshal: true })).toMatchObject({
      pkgPath: 'k8s.io/apimachinery/pkg/util/intstr',
      jsonCustomMarshal: true,
      external: true,
    });
    expect(() => named('apps.Thing', 'string')).toThrow(/unknown Go package/);
    expect(() => named('v1.Weird', 'float64')).toThrow(/not a basic, map or slice/);
  });
});

describe('every model resolves', () => {
  it.each(MODEL_VERSIONS.map((v) => [v]))('%s: every type string resolves with TypeResolver', (version) => {
    const model = releaseModel(version);
    const resolver = new TypeResolver(model);
    const typeStrings = new Set<string>([model.root]);
    for (const decl of model.types) {
      typeStrings.add(decl.name);
      for (const ts of [decl.underlying, decl.key, decl.elem]) if (ts !== undefined) typeStrings.add(ts);
      for (const f of decl.fields ?? []) typeStrings.add(f.goType);
    }
    for (const ts of typeStrings) expect(resolver.resolve(ts).name).toBe(ts);
    const root = resolver.resolve(model.root);
    expect(root.kind).toBe('struct');
  });
});
