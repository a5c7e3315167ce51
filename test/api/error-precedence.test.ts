/**
 * One bad container, one answer: every public function that takes a container runs the same checks
 * in the same order (decode, then shape, then name) under the same path root, for object and text
 * input alike, on the fused path and on the tree path.
 */
import { describe, expect, it } from 'vitest';
import {
  containerChanged,
  explainHashChange,
  hashContainer,
  hashContainerWithoutResources,
  identifyReleases,
  KubeletHashError,
  preimage,
  translateHash,
  validateContainer,
  type ContainerInput,
} from '../../src/index.js';

interface BadRow {
  what: string;
  container: ContainerInput;
  code: string;
  path: (string | number)[];
  /** The answer does not depend on how much of the container a release decodes (1.31+: name and image). */
  everyRelease?: boolean;
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

type Call = [name: string, run: (c: ContainerInput) => unknown];

function callsFor(release: string): Call[] {
  const calls: Call[] = [
    ['hashContainer', (c) => hashContainer(c, { kubeletVersion: release })],
    ['preimage', (c) => preimage(c, { kubeletVersion: release })],
    ['containerChanged', (c) => containerChanged(c, { hash: '0' }, { kubeletVersion: release })],
    ['translateHash', (c) => translateHash(c, { from: release, to: release })],
    ['translateHash observed', (c) => translateHash(c, { from: release, to: release, observed: '0' })],
    ['explainHashChange', (c) => explainHashChange(c, { from: release, to: release })],
  ];
  const minor = Number(release.split('.')[1]);
  if (minor >= 27 && minor <= 30)
    calls.push(['hashContainerWithoutResources', (c) => hashContainerWithoutResources(c, { kubeletVersion: release })]);
  // Full decode in every release; hashing decodes as much in releases before 1.31.
  if (minor < 31) calls.push(['validateContainer', (c) => validateContainer(c, { kubeletVersion: release })]);
  // identifyReleases decodes for every release, 1.8 first.
  if (minor < 31) calls.push(['identifyReleases', (c) => identifyReleases(c, '0')]);
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
  for (const release of ['1.8', '1.12', '1.16', '1.29', '1.33']) {
    const minor = Number(release.split('.')[1]);
    const rows = ROWS.filter((r) => minor < 31 || r.everyRelease);
    it(`every public function, kubelet ${release}`, () => {
      const got: string[] = [];
      const want: string[] = [];
      for (const row of rows) {
        for (const [name, run] of callsFor(release)) {
          // explain is a diagnosis: it explains nameless fragments (and refuses everything else the same way).
          const expected =
            name === 'explainHashChange' && row.code === 'MISSING_NAME'
              ? 'no error'
              : `${row.code} at ${JSON.stringify(row.path)}`;
          got.push(`${row.what} · ${name}: ${answer(() => run(row.container))}`);
          want.push(`${row.what} · ${name}: ${expected}`);
        }
      }
      expect(got).toEqual(want);
    });
  }

  it('1.31+ hashes decode only name and image; validateContainer still reports the malformed field', () => {
    const c = { image: 'x', ports: 'bad' };
    expect(answer(() => hashContainer(c, { kubeletVersion: '1.33' }))).toBe('MISSING_NAME at ["name"]');
    expect(answer(() => validateContainer(c, { kubeletVersion: '1.33' }))).toBe('INVALID_TYPE at ["ports"]');
  });
});
