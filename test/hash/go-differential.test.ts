/**
 * A live differential against real Go, beside the frozen oracle: the containers the property
 * generators produce are hashed by this library and by Go programs of ours built from Debian's
 * packages (test/support/go): kubelet 1.20.2's own HashContainer over the real 1.20 types, and the
 * 1.36 name+image hash over the real 1.36 types (k8s.io/api 0.36.4). Every container must get the
 * identical hash, or, wherever Go refuses it, a typed KubeletHashError from the library. Each era
 * sees at least 100,000 containers per run, batched through one long-lived Go process; the counts
 * are printed. Required in CI (CI=true); skipped with a how-to elsewhere when the judges are not built.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeletHashError, hashContainer, supportedReleases, validateContainer } from '../../src/index.js';
import { releaseModel } from '../../src/models/catalog.js';
import { resolveRoot } from '../../src/models/gotype.js';
import { containerArb } from '../support/arbitraries.js';
import { deepContainerArb } from '../support/deep-arbitraries.js';
import { HASH_JUDGE_120, HASH_JUDGE_136, judgeAvailable, judgeRequired, type GoJudge } from '../support/go-judges.js';
import { LineJudge, type JudgeAnswer } from '../support/line-judge.js';

const PER_ERA = Number(process.env.KH_DIFF_N ?? 100_000);
const BATCH = 2_000;
const NEWEST = supportedReleases().at(-1)!;
/** Deep containers of the newest model (fields unknown to older types included), and everyday ones. */
const deep = deepContainerArb(resolveRoot(releaseModel(NEWEST)));
const everyday = containerArb as fc.Arbitrary<Record<string, unknown>>;

/** JSON values of the wrong type or out of range for most fields (what Go's decoder refuses). */
const WRONG: unknown[] = [
  true,
  1.5,
  -1,
  'x',
  '1Gi',
  '1.2.3',
  'Gi',
  '',
  [],
  [1],
  {},
  { a: 1 },
  2 ** 31,
  -(2 ** 31) - 1,
  2n ** 63n,
  -(2n ** 63n) - 1n,
  2n ** 64n,
];

/** `c` with its `pick`-th node (depth first) replaced by `value`: a copy, `c` untouched. */
function withWrongNode(c: Record<string, unknown>, pick: number, value: unknown): Record<string, unknown> {
  const copy = structuredClone(c);
  const nodes: { parent: Record<string, unknown>; key: string }[] = [];
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      nodes.push({ parent: v as Record<string, unknown>, key: k });
      walk(x);
    }
  };
  walk(copy);
  const at = nodes[pick % nodes.length];
  if (at) at.parent[at.key] = value;
  return copy;
}

/** Deep containers with one node made wrong: some Go refuses, and the library must refuse them too. */
const damaged: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(deep, fc.nat(), fc.constantFrom(...WRONG))
  .map(([c, pick, value]) => withWrongNode(c, pick, value));

/** JSON text of a generated container: bigints as bare integers, exactly as a client would write them. */
function jsonText(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `\u0000big:${v}` : v)).replace(
    /"\\u0000big:(-?\d+)"/g,
    '$1',
  );
}

/** What the library says: a hash, or a typed refusal (anything else is a bug and is thrown). */
function ours(fn: () => string): { hash: string } | { refused: string; code: string } {
  try {
    return { hash: fn() };
  } catch (e) {
    if (e instanceof KubeletHashError) return { refused: e.message, code: e.code };
    throw e;
  }
}

interface Tally {
  identical: number;
  refusedByBoth: number;
  /** No name: the apiserver refuses the pod, so no kubelet hashes it; the library refuses it too (typed). */
  nameless: number;
  mismatches: string[];
}

/** Compares one batch: the library on the same text Go read, and on the object the text came from. */
function compare(
  release: string,
  containers: readonly Record<string, unknown>[],
  texts: readonly string[],
  answers: readonly JudgeAnswer[],
  tally: Tally,
): void {
  const options = { kubeletVersion: release };
  containers.forEach((c, i) => {
    const text = texts[i]!;
    const go = answers[i]!;
    const fromText = ours(() => hashContainer(text, options));
    const fromObject = ours(() => hashContainer(c, options));
    // From 1.31 the hash reads name and image only; the rest is checked by validateContainer, as Go
    // decodes (and may refuse) the whole container.
    const checked = release === '1.20' ? undefined : ours(() => (validateContainer(text, options), ''));
    const note = (why: string): void => {
      if (tally.mismatches.length < 20) tally.mismatches.push(`${why}: ${text.slice(0, 400)}`);
    };
    if (c.name === '' || c.name === undefined) {
      // (A malformed field of such a container is reported first: decoding comes before the name check.)
      if ('code' in fromText && 'code' in fromObject) tally.nameless++;
      else note(`a container without a name was not refused: ${JSON.stringify([fromText, fromObject])}`);
      return;
    }
    if (go.error !== undefined) {
      const refused = checked ? 'refused' in checked : 'refused' in fromText && 'refused' in fromObject;
      if (refused) tally.refusedByBoth++;
      else note(`Go refused (${go.error}) but the library gave ${JSON.stringify([fromText, fromObject, checked])}`);
      return;
    }
    if (checked && 'refused' in checked)
      note(`Go accepted (hash ${go.hash}) but validateContainer said ${checked.refused}`);
    else if ('hash' in fromText && 'hash' in fromObject && fromText.hash === go.hash && fromObject.hash === go.hash)
      tally.identical++;
    else note(`Go ${go.hash}, library ${JSON.stringify([fromText, fromObject])}`);
  });
}

function differential(release: string, judge: GoJudge, seed: number): void {
  describe.runIf(judgeRequired(judge))(`${judge.title}: live differential, kubelet ${release}`, () => {
    let go: LineJudge;
    beforeAll(() => {
      if (!judgeAvailable(judge)) throw new Error(`${judge.id} is missing`);
      go = new LineJudge(judge.path);
    });
    afterAll(async () => {
      await go.close();
    });

    it(`${PER_ERA} generated containers: identical hashes, or a typed error where Go refuses`, async () => {
      const tally: Tally = { identical: 0, refusedByBoth: 0, nameless: 0, mismatches: [] };
      const started = performance.now();
      for (let done = 0, batch = 0; done < PER_ERA; done += BATCH, batch++) {
        // Mostly deep containers (every field, extremes, Unicode); some everyday ones; some damaged.
        const containers = [
          ...fc.sample(deep, { numRuns: BATCH / 2, seed: seed + batch }),
          ...fc.sample(everyday, { numRuns: BATCH / 4, seed: seed + 1_000_000 + batch }),
          ...fc.sample(damaged, { numRuns: BATCH / 4, seed: seed + 2_000_000 + batch }),
        ];
        const texts = containers.map(jsonText);
        compare(release, containers, texts, await go.judge(texts), tally);
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.info(
        `[${judge.title}] ${judge.id} (${judge.version}): ${PER_ERA} containers at kubelet ${release}: ` +
          `${tally.identical} identical hashes, ${tally.refusedByBoth} refused by Go and by the library, ` +
          `${tally.nameless} without a name (refused by the apiserver and the library), ` +
          `${tally.mismatches.length} mismatches (${seconds}s)`,
      );
      expect(tally.mismatches).toEqual([]);
      expect(tally.identical + tally.refusedByBoth + tally.nameless).toBe(PER_ERA);
      // The generators must mostly produce containers Go accepts, or the comparison says little.
      expect(tally.identical).toBeGreaterThan(PER_ERA / 2);
      // …and the damaged ones must reach the refusal side.
      expect(tally.refusedByBoth).toBeGreaterThan(PER_ERA / 50);
    }, 1_800_000);
  });
}

differential('1.20', HASH_JUDGE_120, 20_000);
differential('1.36', HASH_JUDGE_136, 36_000);

for (const judge of [HASH_JUDGE_120, HASH_JUDGE_136]) {
  if (!judgeRequired(judge)) {
    describe(`${judge.title} (skipped here)`, () => {
      it.skip(`needs ${judge.id}: ${judge.missing ?? '?'}; ${judge.howToGet}`, () => {});
    });
  }
}
