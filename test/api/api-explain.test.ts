/** explainHashChange: reasons derived from models, values and pre-images, checked against the oracle. */
import { describe, expect, it } from 'vitest';
import { explainHashChange, type HashChangeReason } from '../../src/explain/index.js';
import { supportedReleases } from '../../src/releases/release-info.js';
import { oracleCase, oracleCases, oracleExpected } from '../support/oracle.js';

const RELEASES = supportedReleases();
const oracle = new Map(oracleExpected().map((r) => [`${r.case}@${r.version}`, r.hash]));
const kinds = (rs: HashChangeReason[]) => rs.map((r) => r.kind);
type Added = HashChangeReason & { kind: 'field-added' };
const added = (rs: HashChangeReason[]) =>
  rs.filter((r): r is Added => r.kind === 'field-added').map((r) => `${r.type}.${r.field}`);

function hasItems(v: unknown): boolean {
  return Array.isArray(v) && v.length > 0;
}

/**
 * Oracle rows include nameless containers (HashContainer's arithmetic): explainHashChange refuses them
 * as hashContainer does (no apiserver serves one), so the reasons are checked on the named cases.
 */
const named = (c: ReturnType<typeof oracleCases>[number]): boolean => {
  const name = (c.container as { name?: unknown }).name;
  return typeof name === 'string' && name !== '';
};
const NAMED = oracleCases().filter(named);

describe('explainHashChange over the oracle (every named case, consecutive releases)', () => {
  // Computed inside the first test that asks (not while collecting), so coverage is attributed to tests.
  let explained:
    | { c: ReturnType<typeof oracleCases>[number]; a: string; b: string; e: ReturnType<typeof explainHashChange> }[]
    | undefined;
  const all = () =>
    (explained ??= NAMED.flatMap((c) =>
      RELEASES.slice(0, -1).map((a, i) => ({
        c,
        a,
        b: RELEASES[i + 1]!,
        e: explainHashChange(c.container as object, { from: a, to: RELEASES[i + 1]! }),
      })),
    ));

  it('reports a change exactly when the oracle hashes differ, and always finds a reason', () => {
    for (const { c, a, b, e } of all()) {
      const differ = oracle.get(`${c.id}@${a}`) !== oracle.get(`${c.id}@${b}`);
      expect(e.changed, `${c.id} ${a}→${b}`).toBe(differ);
      expect(e.from.hash).toBe(oracle.get(`${c.id}@${a}`));
      expect(e.to.hash).toBe(oracle.get(`${c.id}@${b}`));
      if (!differ) expect(kinds(e.reasons)).toEqual(['no-change']);
      else {
        expect(e.reasons.length).toBeGreaterThan(0);
        expect(kinds(e.reasons)).not.toContain('unexplained');
        expect(kinds(e.reasons)).not.toContain('json-difference');
        expect(e.summary).toContain(`${a} → ${b}`);
      }
    }
    expect(all()).toHaveLength(NAMED.length * (RELEASES.length - 1));
  });

  it('refuses the nameless oracle cases at every pair, as hashContainer does (MISSING_NAME)', () => {
    const nameless = oracleCases().filter((c) => !named(c));
    expect(nameless.map((c) => c.id).sort()).toEqual(['empty-name', 'empty-object', 'no-name']);
    for (const c of nameless)
      for (const [i, a] of RELEASES.slice(0, -1).entries()) {
        let code: unknown;
        try {
          explainHashChange(c.container as object, { from: a, to: RELEASES[i + 1]! });
        } catch (e) {
          code = (e as { code?: unknown }).code;
        }
        expect(code, `${c.id} ${a}`).toBe('MISSING_NAME');
      }
  });

  it('1.15→1.16 and 1.30→1.31 are algorithm changes for every case', () => {
    for (const { a, e } of all().filter((x) => x.a === '1.15' || x.a === '1.30')) {
      expect(e.reasons).toEqual([
        expect.objectContaining({
          kind: 'algorithm',
          from: a === '1.15' ? 'legacy' : 'json',
          to: a === '1.15' ? 'json' : 'name-image',
        }),
      ]);
    }
  });

  it('1.8→1.9: Container.VolumeDevices is added, for every container (go-spew prints every field of the root)', () => {
    const at = all().filter((x) => x.a === '1.8');
    expect(at.filter((x) => added(x.e.reasons).includes('v1.Container.VolumeDevices'))).toHaveLength(NAMED.length);
    expect(NAMED).toHaveLength(160);
  });

  it('1.13→1.14: VolumeMount.SubPathExpr appears exactly for the containers with volume mounts', () => {
    for (const { c, e } of all().filter((x) => x.a === '1.13')) {
      const mounts = hasItems((c.container as Record<string, unknown>)['volumeMounts']);
      expect(added(e.reasons).includes('v1.VolumeMount.SubPathExpr'), c.id).toBe(mounts);
      if (mounts) {
        const r = e.reasons.find((x): x is Added => x.kind === 'field-added' && x.field === 'SubPathExpr')!;
        expect(r.reachedAt[0]).toBe('.volumeMounts[0]');
        expect(r.release).toBe('1.14');
      }
    }
  });

  it('1.9→1.10: SecurityContext.RunAsGroup is reported only for containers with a securityContext', () => {
    for (const { c, e } of all().filter((x) => x.a === '1.9')) {
      const sc = (c.container as Record<string, unknown>)['securityContext'];
      expect(added(e.reasons).includes('v1.SecurityContext.RunAsGroup'), c.id).toBe(sc !== undefined && sc !== null);
    }
  });

  it('json era: a field one release lacks is dropped on decode (grpc probes at 1.22→1.23)', () => {
    const e = explainHashChange(oracleCase('probe-grpc').container as object, { from: '1.22', to: '1.23' });
    expect(e.changed).toBe(true);
    expect(e.reasons).toContainEqual(
      expect.objectContaining({ kind: 'field-dropped', release: '1.22', field: 'GRPC' }),
    );
    const back = explainHashChange(oracleCase('probe-grpc').container as object, { from: '1.23', to: '1.22' });
    expect(back.reasons.map((r) => r.kind === 'field-dropped' && r.release)).toContain('1.22');
  });
});

describe('explainHashChange on chosen containers', () => {
  it('the same container without volume mounts does not change at 1.13→1.14', () => {
    const base = { name: 'a', image: 'b' };
    expect(explainHashChange(base, { from: '1.13', to: '1.14' }).reasons).toEqual([
      { kind: 'no-change', detail: expect.any(String) },
    ]);
    const e = explainHashChange(
      {
        ...base,
        volumeMounts: [
          { name: 'v', mountPath: '/v' },
          { name: 'w', mountPath: '/w' },
        ],
      },
      { from: '1.13', to: '1.14' },
    );
    expect(e.reasons).toEqual([
      expect.objectContaining({
        kind: 'field-added',
        type: 'v1.VolumeMount',
        field: 'SubPathExpr',
        goType: 'string',
        reachedAt: ['.volumeMounts[0]', '.volumeMounts[1]'],
      }),
    ]);
    expect(e.summary).toMatch(/^1\.13 → 1\.14: [0-9a-f]+ → [0-9a-f]+; v1\.VolumeMount\.SubPathExpr/);
  });

  it('a legacy downgrade reports the field as removed; a field the container sets is also reported as dropped', () => {
    const c = { name: 'a', volumeMounts: [{ name: 'v', mountPath: '/v', subPathExpr: '$(POD)' }] };
    const e = explainHashChange(c, { from: '1.14', to: '1.13' });
    expect(kinds(e.reasons).sort()).toEqual(['field-dropped', 'field-removed']);
    expect(e.reasons).toContainEqual(
      expect.objectContaining({ kind: 'field-dropped', release: '1.13', path: '.volumeMounts[0].subPathExpr' }),
    );
  });

  it('JSON escaping changes only strings with BS/FF (Go 1.22 built 1.30)', () => {
    const e = explainHashChange(oracleCase('esc-b-f').container as object, { from: '1.29', to: '1.30' });
    expect(e.reasons).toHaveLength(1);
    expect(e.reasons[0]).toMatchObject({ kind: 'json-escaping', from: 'pre-go1.22', to: 'go1.22' });
    expect((e.reasons[0] as { paths: string[] }).paths.length).toBeGreaterThan(0);
    expect(explainHashChange({ name: 'plain' }, { from: '1.29', to: '1.30' }).changed).toBe(false);
    // The same release rebuilt with the other toolchain is explained the same way.
    const patch = explainHashChange({ name: 'a\fb' }, { from: '1.29', to: '1.29', toJsonEscapes: 'go1.22' });
    expect(kinds(patch.reasons)).toEqual(['json-escaping']);
    expect((patch.reasons[0] as { paths: string[] }).paths).toEqual(['.name']);
  });

  it('identical releases and name-image releases: no change', () => {
    const c = oracleCase('full-newest').container as object;
    expect(explainHashChange(c, { from: '1.31', to: '1.36' }).summary).toMatch(/no change/);
    expect(explainHashChange(c, { from: '1.20', to: '1.20' }).changed).toBe(false);
  });
});
