/**
 * One bad container, one answer: every public function that takes a container runs the same checks
 * in the same order (decode, then shape, then name) under the same path root, for object and text
 * input alike, on the fused path and on the tree path, at every release: a kubelet decodes the whole
 * pod before it hashes, so a malformed field is refused even where the hash reads only name and
 * image (1.31+). Functions of two releases (translateHash, explainHashChange) check the container at
 * `from`, then at `to`; identifyReleases at every release, oldest first. Pod-level functions
 * (predictRestarts, containerChanged, planUpgrade) and the CLI give the same answer, rooted where
 * the container sits.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  containerChanged,
  explainHashChange,
  hashContainer,
  hashContainerWithoutResources,
  identifyReleases,
  KubeletHashError,
  planUpgrade,
  predictRestarts,
  preimage,
  supportedReleases,
  translateHash,
  validateContainer,
  type ContainerInput,
} from '../../src/index.js';
import { cli } from '../support/cli.js';

interface BadRow {
  what: string;
  container: ContainerInput;
  code: string;
  path: (string | number)[];
  /** Kept from the table's first form; every row now holds at every release unless `since` says otherwise. */
  everyRelease?: boolean;
  /** The first minor whose model has the malformed field; older releases ignore it (Go drops unknown members). */
  since?: number;
  /** The answer of releases before `since`. */
  before?: { code: string; path: (string | number)[] };
}

const BAD: BadRow[] = [
  {
    what: 'a malformed field and no name',
    container: { image: 'x', ports: 'bad' },
    code: 'INVALID_TYPE',
    path: ['ports'],
  },
  {
    what: 'a malformed quantity and no name',
    container: { image: 'x', resources: { limits: { cpu: 'lots' } } },
    code: 'INVALID_QUANTITY',
    path: ['resources', 'limits', 'cpu'],
  },
  {
    what: 'an integer out of range and an empty name',
    container: { name: '', image: 'x', ports: [{ containerPort: 1e10 }] },
    code: 'INT_OUT_OF_RANGE',
    path: ['ports', 0, 'containerPort'],
  },
  {
    what: 'a Pod with a malformed field',
    container: { kind: 'Pod', ports: 'bad' },
    code: 'INVALID_TYPE',
    path: ['ports'],
  },
  {
    what: 'a Pod',
    container: { apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'a', image: 'b' }] } },
    code: 'NOT_A_CONTAINER',
    path: [],
    everyRelease: true,
  },
  {
    what: 'a nameless pod spec (shape before name)',
    container: { containers: [{ name: 'a', image: 'b' }] },
    code: 'NOT_A_CONTAINER',
    path: [],
    everyRelease: true,
  },
  { what: 'no name', container: { image: 'x' }, code: 'MISSING_NAME', path: ['name'], everyRelease: true },
  {
    what: 'an empty name',
    container: { name: '', image: 'x' },
    code: 'MISSING_NAME',
    path: ['name'],
    everyRelease: true,
  },
  {
    what: 'a name that is no string',
    container: { name: 5, image: 'x' },
    code: 'INVALID_TYPE',
    path: ['name'],
    everyRelease: true,
  },
  {
    what: 'an image that is no string, and no name',
    container: { image: ['x'] },
    code: 'INVALID_TYPE',
    path: ['image'],
    everyRelease: true,
  },
  {
    what: 'a malformed type error deep in a list, with a name',
    container: { name: 'a', image: 'x', env: [{ name: 1 }] },
    code: 'INVALID_TYPE',
    path: ['env', 0, 'name'],
  },
  {
    what: 'a malformed quantity 1.31+ does not hash, with a name (translateHash 1.29 → 1.31 once returned a hash)',
    container: { name: 'a', image: 'x', resources: { limits: { cpu: '1.5.3' } } },
    code: 'INVALID_QUANTITY',
    path: ['resources', 'limits', 'cpu'],
  },
  {
    what: 'a malformed field only 1.27+ has (resizePolicy), and no name',
    container: { image: 'x', resizePolicy: 'bad' },
    code: 'INVALID_TYPE',
    path: ['resizePolicy'],
    since: 27,
    before: { code: 'MISSING_NAME', path: ['name'] },
  },
  { what: 'no object at all', container: [{ name: 'a' }], code: 'INVALID_TYPE', path: [], everyRelease: true },
  { what: 'malformed JSON text', container: '{"name": "a",', code: 'INVALID_JSON', path: [], everyRelease: true },
  {
    what: 'a repeated key in text',
    container: '{"name": "a", "name": "b"}',
    code: 'INVALID_JSON',
    path: [],
    everyRelease: true,
  },
];

/** Objects also as JSON text: the text path (scan, tape walk) must give the same answer. */
const ROWS: BadRow[] = BAD.flatMap((r) =>
  typeof r.container === 'string'
    ? [r]
    : [r, { ...r, what: `${r.what} (as text)`, container: JSON.stringify(r.container) }],
);

const minorOf = (release: string): number => Number(release.split('.')[1]);

/** The answer the table gives for `row` at `release`. */
function expected(row: BadRow, release: string): string {
  const r = row.since !== undefined && minorOf(release) < row.since ? row.before! : row;
  return `${r.code} at ${JSON.stringify(r.path)}`;
}

/** One release of each end of each era: legacy 1.8–1.15, json 1.16–1.26, without-resources 1.27–1.30, name+image 1.31+. */
const NEWEST = supportedReleases().at(-1)!;
const ERAS: Record<string, string[]> = {
  legacy: ['1.8', '1.15'],
  json: ['1.16', '1.26'],
  'without-resources': ['1.27', '1.30'],
  'name+image': ['1.31', NEWEST],
};
const RELEASES = Object.values(ERAS).flat();

type Call = [name: string, run: (c: ContainerInput) => unknown];

const pod = (c: unknown) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'd', uid: 'u-1' },
  spec: { containers: [c] },
});
const json = (c: ContainerInput): unknown => (typeof c === 'string' ? (JSON.parse(c) as unknown) : c);
/** A pod-level error, rooted back at the container (the pod's `.spec.containers[0]`). */
function atContainer(run: () => unknown): () => unknown {
  return () => {
    try {
      return run();
    } catch (e) {
      if (!(e instanceof KubeletHashError)) throw e;
      expect(e.path.slice(0, 3)).toEqual(['spec', 'containers', 0]);
      throw Object.assign(Object.create(Object.getPrototypeOf(e) as object) as KubeletHashError, e, {
        path: e.path.slice(3),
      });
    }
  };
}

function callsFor(release: string): Call[] {
  const calls: Call[] = [
    ['hashContainer', (c) => hashContainer(c, { kubeletVersion: release })],
    ['preimage', (c) => preimage(c, { kubeletVersion: release })],
    ['validateContainer', (c) => validateContainer(c, { kubeletVersion: release })],
    ['containerChanged', (c) => containerChanged(c, { hash: '0' }, { kubeletVersion: release })],
    ['translateHash', (c) => translateHash(c, { from: release, to: release })],
    ['translateHash observed', (c) => translateHash(c, { from: release, to: release, observed: '0' })],
    ['explainHashChange', (c) => explainHashChange(c, { from: release, to: release })],
    [
      'predictRestarts (pod)',
      (c) => {
        const p = pod(json(c));
        atContainer(() => predictRestarts(p, p, { kubeletVersion: release }))();
      },
    ],
  ];
  const minor = minorOf(release);
  if (minor >= 27 && minor <= 30)
    calls.push(['hashContainerWithoutResources', (c) => hashContainerWithoutResources(c, { kubeletVersion: release })]);
  return calls;
}

function answer(run: () => unknown): string {
  try {
    run();
    return 'no error';
  } catch (e) {
    if (!(e instanceof KubeletHashError)) throw e;
    return `${e.code} at ${JSON.stringify(e.path)}`;
  }
}

describe('error precedence: one answer per bad container', () => {
  for (const release of RELEASES) {
    it(`every public function, kubelet ${release}`, () => {
      const got: string[] = [];
      const want: string[] = [];
      for (const row of ROWS) {
        // A pod holds containers: a row that is no container object is the pod functions' own business.
        const calls = callsFor(release).filter(([name]) => !name.includes('(pod)') || rowIsContainerObject(row));
        for (const [name, run] of calls) {
          got.push(`${row.what} · ${name}: ${answer(() => run(row.container))}`);
          want.push(`${row.what} · ${name}: ${expected(row, release)}`);
        }
      }
      expect(got).toEqual(want);
    });
  }

  const pairs = Object.entries(ERAS).flatMap(([a, fa]) =>
    Object.entries(ERAS).map(([b, fb]) => [a, b, fa, fb] as const),
  );
  it.each(pairs)('%s → %s: translateHash and explainHashChange check `from`, then `to`', (_a, _b, fa, fb) => {
    const got: string[] = [];
    const want: string[] = [];
    for (const from of fa)
      for (const to of fb)
        for (const row of ROWS) {
          const first = (r: string) => answer(() => hashContainer(row.container, { kubeletVersion: r }));
          const fromAnswer = first(from);
          const w = fromAnswer !== 'no error' ? fromAnswer : first(to);
          for (const [name, run] of [
            ['translateHash', () => translateHash(row.container, { from, to })],
            ['translateHash observed', () => translateHash(row.container, { from, to, observed: '0' })],
            ['explainHashChange', () => explainHashChange(row.container, { from, to })],
          ] as const) {
            got.push(`${from}→${to} ${row.what} · ${name}: ${answer(run)}`);
            want.push(`${from}→${to} ${row.what} · ${name}: ${w}`);
          }
        }
    expect(got).toEqual(want);
  });

  it('identifyReleases answers the first release that refuses the container, oldest first', () => {
    for (const row of ROWS) {
      const first = supportedReleases()
        .map((r) => answer(() => hashContainer(row.container, { kubeletVersion: r })))
        .find((a) => a !== 'no error');
      expect(`${row.what}: ${answer(() => identifyReleases(row.container, '0'))}`).toBe(`${row.what}: ${first}`);
    }
  });

  it('planUpgrade gives the container error as the entry of its record, at every era pair', () => {
    for (const from of RELEASES)
      for (const to of RELEASES)
        for (const row of ROWS.filter(rowIsContainerObject)) {
          const c = json(row.container) as Record<string, unknown>;
          if (typeof c['name'] !== 'string' || c['name'] === '') continue; // no record can name it
          const record = {
            kind: 'crictl-inspect' as const,
            runtime: 'containerd' as const,
            containerId: 'c1',
            containerName: c['name'],
            podName: 'p',
            podNamespace: 'd',
            podUid: 'u-1',
            hash: '0',
            hashLocations: [],
          };
          const plan = planUpgrade({ pods: [pod(c)], records: [record], from, to });
          const first = [from, to].map((r) => expected(row, r)).find((a) => !a.startsWith('no error'))!;
          const [code, , path] = first.split(' ');
          const entry = plan.entries[0]!;
          expect(`${from}→${to} ${row.what}: ${entry.action}`).toBe(`${from}→${to} ${row.what}: unknown`);
          expect(entry.reason).toContain(code);
          expect(entry.reason).toContain(
            (JSON.parse(path!) as (string | number)[])
              .map((s: string | number) => (typeof s === 'number' ? `[${s}]` : `.${s}`))
              .join(''),
          );
        }
  });
});

function rowIsContainerObject(row: BadRow): boolean {
  // Text only the strict parser refuses (a repeated key) is no object a pod could hold.
  if (row.code === 'INVALID_JSON') return false;
  const c = (() => {
    try {
      return json(row.container);
    } catch {
      return undefined;
    }
  })();
  return typeof c === 'object' && c !== null && !Array.isArray(c) && !('kind' in c) && !('containers' in c);
}

describe('error precedence through the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kh-precedence-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cliRows = ROWS.filter((r) => typeof r.container === 'string' && rowIsContainerObject(r));

  it.each(['1.8', '1.16', '1.27', NEWEST])(
    "kubelet-hash hash --json, kubelet %s: the library's code and path",
    async (release) => {
      const got: string[] = [];
      const want: string[] = [];
      for (const [i, row] of cliRows.entries()) {
        const file = join(dir, `c${i}.json`);
        writeFileSync(file, row.container as string);
        const r = await cli(['hash', '--kubelet-version', release, '--json', file]);
        const doc = JSON.parse(r.err || r.out) as { error?: { code: string; path: string } };
        got.push(`${row.what}: ${r.code} ${doc.error?.code} ${doc.error?.path}`);
        const e = row.since !== undefined && minorOf(release) < row.since ? row.before! : row;
        const jq = e.path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('') || '.';
        want.push(`${row.what}: 2 ${e.code} ${jq}`);
      }
      expect(got).toEqual(want);
    },
  );

  it.each(['1.8', '1.16', '1.27', NEWEST])(
    "kubelet-hash predict --json, kubelet %s: the library's code and path, rooted at the pod's container",
    async (release) => {
      const got: string[] = [];
      const want: string[] = [];
      for (const [i, row] of cliRows.entries()) {
        const file = join(dir, `pod${i}.json`);
        writeFileSync(file, JSON.stringify(pod(json(row.container))));
        const r = await cli(['predict', '--kubelet', release, '--json', file, file]);
        const doc = JSON.parse(r.err || r.out) as { error?: { code: string; path: string } };
        got.push(`${row.what}: ${r.code} ${doc.error?.code} ${doc.error?.path}`);
        const e = row.since !== undefined && minorOf(release) < row.since ? row.before! : row;
        const jq = e.path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
        want.push(`${row.what}: 2 ${e.code} .spec.containers[0]${jq}`);
      }
      expect(got).toEqual(want);
    },
  );
});
