/**
 * Patch-level toolchains: a patch version selects the encoding/json escapes of the Go that built
 * it (the release files' patch table), a minor alone keeps the `.0` build's, an explicit
 * `jsonEscapes` wins, and every result that depended on the table says so.
 */
import { describe, expect, it } from 'vitest';
import {
  containerChanged,
  explainHashChange,
  hashContainer,
  kubeletToolchain,
  planUpgrade,
  predictRestarts,
  preimage,
  releaseInfo,
  translateHash,
  type ContainerRecordInfo,
} from '../../src/index.js';
import { runBin } from '../support/cli-bin.js';
import { oracleCase, oracleRow } from '../support/oracle.js';

/** A container whose env value holds BS: Go 1.22 writes `\b`, older Go `\u0008`. */
const bs = { name: 'app', image: 'busybox', env: [{ name: 'SEP', value: 'a\bb' }] };
const at = (kubeletVersion: string, jsonEscapes?: 'go1.22' | 'pre-go1.22'): string =>
  hashContainer(bs, jsonEscapes === undefined ? { kubeletVersion } : { kubeletVersion, jsonEscapes });

describe('patch toolchain table', () => {
  it('1.29.7 hashes as Go 1.22 builds, 1.29.6 as Go 1.21 builds (the .0 toolchain)', () => {
    expect(at('1.29.7')).toBe(at('1.29', 'go1.22'));
    expect(at('1.29.6')).toBe(at('1.29', 'pre-go1.22'));
    expect(at('1.29.7')).not.toBe(at('1.29.6'));
    expect(preimage(bs, { kubeletVersion: '1.29.7' }).text).toContain('"value":"a\\bb"');
    expect(preimage(bs, { kubeletVersion: '1.29.6' }).text).toContain('"value":"a\\u0008b"');
  });

  it('the 1.29.7 hash of the esc-b-f case is the Go 1.22 hash the oracle gives 1.30 (same JSON there)', () => {
    // esc-b-f uses no field 1.30 added, so its JSON, and so its hash, is 1.30's under Go 1.22 escapes.
    const c = oracleCase('esc-b-f').container as object;
    expect(oracleRow('esc-b-f', '1.29').hash).not.toBe(oracleRow('esc-b-f', '1.30').hash);
    expect(hashContainer(c, { kubeletVersion: 'v1.29.7' })).toBe(oracleRow('esc-b-f', '1.30').hash);
    expect(hashContainer(c, { kubeletVersion: 'v1.29.6' })).toBe(oracleRow('esc-b-f', '1.29').hash);
  });

  it('boundaries: 1.27.16, 1.28.12 and 1.29.7 are the first Go 1.22 builds; 1.30+ are Go 1.22 from .0', () => {
    for (const [before, first] of [
      ['1.27.15', '1.27.16'],
      ['1.28.11', '1.28.12'],
      ['1.29.6', '1.29.7'],
    ] as const) {
      expect(kubeletToolchain(before).jsonEscapes, before).toBe('pre-go1.22');
      expect(kubeletToolchain(first).jsonEscapes, first).toBe('go1.22');
      expect(kubeletToolchain(first).go).toBe('go1.22.5');
      expect(kubeletToolchain(`${first.slice(0, 5)}99`).basis).toBe('patch-table');
    }
    for (const v of ['1.30.0', '1.30.3', '1.37.1', '1.26.15', '1.16.3']) {
      expect(kubeletToolchain(v).basis, v).toBe('release');
      expect(kubeletToolchain(v).jsonEscapes).toBe(releaseInfo(v).jsonEscapes);
    }
    expect(kubeletToolchain('1.15.3').jsonEscapes).toBeNull();
  });

  it('a minor alone keeps the .0 behaviour and says where later patches differ', () => {
    expect(at('1.29')).toBe(at('1.29.0'));
    expect(at('1.29')).toBe(at('1.29.6'));
    const t = kubeletToolchain('1.29');
    expect(t.basis).toBe('release');
    expect(t.source).toContain('patches from 1.29.7 were built with go1.22.5');
  });

  it('an explicit jsonEscapes wins over the table', () => {
    expect(at('1.29.7', 'pre-go1.22')).toBe(at('1.29.6'));
    expect(at('1.29.6', 'go1.22')).toBe(at('1.29.7'));
    expect(kubeletToolchain('1.29.7', 'pre-go1.22').basis).toBe('option');
  });

  it('kubelet --version text is accepted wherever a version is', () => {
    expect(releaseInfo('Kubernetes v1.29.7').release).toBe('1.29');
    expect(at('Kubernetes v1.29.7')).toBe(at('1.29.7'));
    expect(kubeletToolchain('Kubernetes v1.28.12').jsonEscapes).toBe('go1.22');
    const stored = { hash: at('1.29.6') };
    expect(containerChanged(bs, stored, { kubeletVersion: 'Kubernetes v1.29.6' }).changed).toBe(false);
    expect(containerChanged(bs, stored, { kubeletVersion: 'Kubernetes v1.29.7' }).changed).toBe(true);
    expect(translateHash(bs, { from: 'Kubernetes v1.29.6', to: 'Kubernetes v1.29.7' })).toBe(at('1.29.7'));
    expect(() => releaseInfo('Kubernetes')).toThrow(/INVALID_VERSION/);
    expect(() => releaseInfo('Kubernetes v1.7.0')).toThrow(/UNSUPPORTED_RELEASE/);
  });

  it('results that depended on the table say so: explain, plans, verdicts', () => {
    const why = explainHashChange(bs, { from: 'v1.29.6', to: 'v1.29.7' });
    expect(why.changed).toBe(true);
    expect(why.reasons.map((r) => r.kind)).toEqual(['json-escaping']);
    expect(why.from.toolchain).toBeUndefined();
    expect(why.to.toolchain).toMatch(/^1\.29\.7 was built with go1\.22\.5 \(patch table.*kubernetes#125896/);
    expect(explainHashChange(bs, { from: '1.29', to: '1.29' }).to.toolchain).toBeUndefined();

    const pod = { metadata: { name: 'p', uid: 'u1' }, spec: { containers: [bs] } };
    const record: ContainerRecordInfo = {
      kind: 'crictl-inspect',
      runtime: 'containerd',
      containerName: 'app',
      podUid: 'u1',
      podName: 'p',
      podNamespace: 'default',
      containerId: 'c1',
      hash: at('1.29.6'),
      hashLocations: [],
    };
    const plan = planUpgrade({ pods: [pod], records: [record], from: 'v1.29.6', to: 'Kubernetes v1.29.7' });
    expect(plan.toolchains?.from).toBeUndefined();
    expect(plan.toolchains?.to).toContain('go1.22.5');
    expect(plan.entries[0]!.action).toBe('rewrite');
    expect(plan.entries[0]!.change?.to.hash).toBe(at('1.29.7'));
    expect(planUpgrade({ pods: [pod], records: [record], from: '1.29', to: '1.30' }).toolchains).toBeUndefined();

    const verdict = containerChanged(bs, { hash: at('1.29.7') }, { kubeletVersion: '1.29.7' });
    expect(verdict.changed).toBe(false);
    expect(verdict.assumptions.at(-1)).toMatch(/^encoding\/json escapes 'go1.22' from the patch table: 1\.29\.7/);
    const p = predictRestarts(
      { spec: { containers: [bs] } },
      { spec: { containers: [bs] } },
      { kubeletVersion: '1.28.12' },
    );
    expect(p.containers[0]!.assumptions.at(-1)).toContain('1.28.12 was built with go1.22.5');
  });

  it('the CLI accepts the same strings: -k and --from "$(kubelet --version)"', async () => {
    const input = JSON.stringify(bs);
    const hashed = await runBin(['hash', '-k', 'Kubernetes v1.29.7', '-k', '1.29.6', '--json', '-'], { stdin: input });
    expect(hashed.code, hashed.err).toBe(0);
    const rows = (JSON.parse(hashed.out) as { rows: { release: string; hash: string; toolchain?: string }[] }).rows;
    expect(rows.map((r) => [r.release, r.hash])).toEqual([
      ['1.29', at('1.29.7')],
      ['1.29', at('1.29.6')],
    ]);
    expect(rows[0]!.toolchain).toContain('go1.22.5');
    expect('toolchain' in rows[1]!).toBe(false);

    const translated = await runBin(['translate', '--from', 'Kubernetes v1.29.6', '--to', 'Kubernetes v1.29.7', '-'], {
      stdin: input,
    });
    expect(translated.code, translated.err).toBe(0);
    expect(translated.out.trim()).toBe(at('1.29.7'));
  });
});
