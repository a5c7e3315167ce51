/** `--limit-ranges FILE` on the commands that hash specs (with --apply-defaults implied). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { applyApiserverDefaults, hashContainer } from '../../src/index.js';
import { cli } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-limit-ranges-'));
const file = (name: string, value: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : stringify(value));
  return path;
};
const container = { name: 'web', image: 'nginx:1.19' };
const pod = file('pod.yaml', {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: [container] },
});
const ranges = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'defaults' },
      spec: {
        limits: [{ type: 'Container', default: { cpu: '0.5', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }],
      },
    },
  ],
};
const hashOf = (out: string): string => (JSON.parse(out) as { rows: { hash: string }[] }).rows[0]!.hash;

describe('--limit-ranges', () => {
  it('applies the LimitRanges (implying --apply-defaults) and the hash is the defaulted container one', async () => {
    const r = await cli([
      'hash',
      '--json',
      '-k',
      '1.20',
      '--token-volume',
      'none',
      '--limit-ranges',
      file('lr.yaml', ranges),
      pod,
    ]);
    expect(r.code).toBe(0);
    const want = hashContainer(
      applyApiserverDefaults(container, {
        kubeletVersion: '1.20',
        podSpec: { containers: [container] },
        limitRanges: ranges,
      }),
      { kubeletVersion: '1.20' },
    );
    expect(hashOf(r.out)).toBe(want);
    expect((JSON.parse(r.out) as { warnings: string[] }).warnings).toEqual([]);
    const plain = await cli(['hash', '--json', '-k', '1.20', '--token-volume', 'none', pod]);
    expect(hashOf(plain.out)).not.toBe(want);
  });

  it('without it, --apply-defaults warns that a LimitRange may set the resources', async () => {
    const r = await cli(['hash', '--json', '-k', '1.20', '--apply-defaults', '--token-volume', 'none', pod]);
    const warnings = (JSON.parse(r.out) as { warnings: string[] }).warnings;
    expect(warnings.filter((w) => w.includes('--limit-ranges'))).toHaveLength(1);
    const later = await cli(['hash', '--json', '-k', '1.31', '--apply-defaults', pod]);
    expect((JSON.parse(later.out) as { warnings: string[] }).warnings).toEqual([]);
  });

  it('the warning names what was given: --token-volume alone (the defaulting it implies), or --apply-defaults', async () => {
    const limitWarnings = async (args: string[]): Promise<string[]> => {
      const r = await cli(['hash', '--json', '-k', '1.20', ...args, pod]);
      expect(r.code).toBe(0);
      return (JSON.parse(r.out) as { warnings: string[] }).warnings.filter((w) => w.includes('--limit-ranges'));
    };
    const implied = await limitWarnings(['--token-volume', 'kube-api-access-x']);
    expect(implied).toHaveLength(1);
    expect(implied[0]).toMatch(/^--token-volume \(which implies --apply-defaults\) without --limit-ranges: /);
    const explicit = await limitWarnings(['--apply-defaults', '--token-volume', 'kube-api-access-x']);
    expect(explicit).toHaveLength(1);
    expect(explicit[0]).toMatch(/^--apply-defaults without --limit-ranges: /);
  });

  it('bad files are refused with the file and the path (exit 2), an empty file too', async () => {
    const bad = file('bad.yaml', {
      ...ranges,
      items: [{ kind: 'LimitRange', spec: { limits: [{ type: 'Container', default: { cpu: '1x' } }] } }],
    });
    const r = await cli(['hash', '-k', '1.20', '--limit-ranges', bad, pod]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('INVALID_QUANTITY');
    expect(r.err).toContain('.items[0].spec.limits[0].default.cpu');
    expect(r.err).toContain(bad);
    const empty = await cli(['hash', '-k', '1.20', '--limit-ranges', file('empty.yaml', ''), pod]);
    expect(empty.code).toBe(2);
    expect(empty.err).toContain('holds no document');
    const pods = await cli(['hash', '-k', '1.20', '--limit-ranges', pod, pod]);
    expect(pods.code).toBe(2);
    expect(pods.err).toContain('.kind');
  });
});
