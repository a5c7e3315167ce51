import { describe, expect, it } from 'vitest';
import { hashContainer, supportedReleases } from '../src/index.js';
import { cli } from './support/cli.js';
import { oracleCase } from './support/oracle.js';

const sampleText = JSON.stringify(oracleCase('k8s-sampleContainer').container);

describe('kubelet-hash CLI', () => {
  it('example: one row per supported release, one column per container of the bundled pod', async () => {
    const r = await cli(['example']);
    expect(r.code).toBe(0);
    const rows = r.out.trim().split('\n').slice(2);
    expect(rows.map((l) => l.split(/\s+/)[0])).toEqual(supportedReleases());
    expect(r.out).toContain('web');
  });

  it('hash -k reads stdin and prints the oracle hash', async () => {
    const r = await cli(['hash', '-k', '1.29', '-'], sampleText);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^release\s+test_container\n1\.29\s+311670a\n$/);
  });

  it('accepts a file that starts with a byte-order mark', async () => {
    const r = await cli(['hash', '-k', '1.29', '-'], '\ufeff' + sampleText);
    expect(r.out).toContain('311670a');
  });

  it('hash --json over a Pod gives every container and release', async () => {
    const pod = JSON.stringify({ metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } });
    const r = await cli(['hash', '--json', '-'], pod);
    const rows = JSON.parse(r.out) as { name: string; hashes: Record<string, string> }[];
    expect(rows.map((x) => x.name)).toEqual(['a', 'b']);
    expect(rows[1]!.hashes['1.8']).toBe(hashContainer({ name: 'b', image: 'y' }, { kubeletVersion: '1.8' }));
    expect(Object.keys(rows[0]!.hashes)).toEqual(supportedReleases());
  });

  it('preimage prints the exact legacy text and, with --hashed, the []uint8 form', async () => {
    const legacy = await cli(['preimage', '-k', '1.8', '-'], sampleText);
    expect(legacy.out.startsWith('(v1.Container){Name:(string)test_container Image:(string)foo/image:v1 ')).toBe(true);
    const hashed = await cli(['preimage', '-k', '1.31', '--hashed', '-'], sampleText);
    expect(hashed.out.trim()).toMatch(/^\(\[\]uint8\)\[123 34 105 109 /);
  });

  it('bad input: typed error with JSON path, exit 2; usage errors exit 64', async () => {
    const bad = await cli(['hash', '-k', '1.20', '-'], '{"name":"a","ports":[{"containerPort":"80"}]}');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('INVALID_TYPE at .ports[0].containerPort');
    expect(bad.err).toContain('line 1, column 39');
    const pod = '{"kind":"Pod","spec":{"containers":[\n  {"name":"a","resources":{"limits":{"cpu":"lots"}}}\n]}}';
    const inPod = await cli(['hash', '-k', '1.29', '-'], pod);
    expect(inPod.code).toBe(2);
    expect(inPod.err).toContain('INVALID_QUANTITY at .spec.containers[0].resources.limits.cpu');
    expect(inPod.err).toContain('line 2, column 44');
    expect((await cli(['hash', '-k', '9.9', '-'], '{}')).err).toContain('INVALID_VERSION');
    expect((await cli(['hash'])).code).toBe(64);
    expect((await cli(['nope'])).code).toBe(64);
    expect((await cli(['hash', '--bogus', 'x'])).code).toBe(64);
    expect((await cli(['hash', '/nonexistent/file.json'])).code).toBe(66);
  });
});

describe('containers in a pod', () => {
  it('refuses duplicate container names across lists (they are matched by name)', async () => {
    const pod = JSON.stringify({ spec: { initContainers: [{ name: 'a' }], containers: [{ name: 'b' }, { name: 'a' }] } });
    const r = await cli(['hash', '-k', '1.29', '-'], pod);
    expect(r.code).toBe(2);
    expect(r.err).toContain('DUPLICATE_CONTAINER_NAME at .spec.containers[1].name');
    expect(r.err).toContain('.spec.initContainers[0]');
  });
});
