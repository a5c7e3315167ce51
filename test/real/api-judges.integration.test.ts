/**
 * The live Go differential at every release: for each kubelet minor of
 * test/support/go/api-judge/releases.txt, a Go program built against that minor's `k8s.io/api`
 * module (.ci/provision/45-api-judges.sh) hashes the same stream of generated containers as the
 * library, configured for the judge's own Go toolchain (its encoding/json escapes). Every container
 * must get the identical hash (both hashes at 1.27–1.30), or, where Go refuses it, a typed
 * KubeletHashError. Each judge also prints its v1.Container type closure, which must be the
 * library's model of that minor: the judge hashes the types the library claims to model.
 *
 * One pool of containers (seeded: `KH_API_DIFF_SEED`, printed; size `KH_API_DIFF_N`, 20,000 by
 * default) is generated batch by batch and streamed through every judge's long-lived process.
 * In CI (CI=true) a missing judge fails; elsewhere the missing ones are skipped with the command.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KubeletHashError,
  hashContainer,
  hashContainerWithoutResources,
  supportedReleases,
  validateContainer,
} from '../../src/index.js';
import { releaseModel } from '../../src/models/catalog.js';
import { resolveRoot } from '../../src/models/gotype.js';
import { API_JUDGES_HOW, apiJudges, escapesOfGo, type ApiJudge } from '../support/api-judges.js';
import { containerArb } from '../support/arbitraries.js';
import { deepContainerArb } from '../support/deep-arbitraries.js';
import { LineJudge, type JudgeAnswer } from '../support/line-judge.js';

const PER_RELEASE = Number(process.env.KH_API_DIFF_N ?? 20_000);
const BATCH = 2_000;
/** A new seed each run unless given: printed with every result, so a divergence can be replayed. */
const SEED = Number(process.env.KH_API_DIFF_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REPLAY = `KH_API_DIFF_SEED=${SEED} KH_API_DIFF_N=${PER_RELEASE}`;

const inCi = process.env.CI === 'true';
const judges = apiJudges();
const ready = judges.filter((j): j is ApiJudge & { path: string; go: string } => j.path !== undefined);
const missing = judges.filter((j) => j.path === undefined);

/** `1.9–1.16 (the tags' pseudo-versions), v0.17.0–v0.37.0`: what `list` ran, gaps shown as gaps. */
function versionsLine(list: readonly ApiJudge[]): string {
  const minorOf = (j: ApiJudge): number => Number(j.minor.split('.')[1]);
  const runs: ApiJudge[][] = [];
  for (const j of list) {
    const last = runs.at(-1);
    const prev = last?.at(-1);
    const samePart = prev !== undefined && prev.api.startsWith('v0.0.0-') === j.api.startsWith('v0.0.0-');
    if (last && prev && samePart && minorOf(prev) + 1 === minorOf(j)) last.push(j);
    else runs.push([j]);
  }
  return runs
    .map((run) => {
      const pseudo = run[0]!.api.startsWith('v0.0.0-');
      const name = (j: ApiJudge): string => (pseudo ? j.minor : j.api);
      const range = run.length > 1 ? `${name(run[0]!)}–${name(run.at(-1)!)}` : name(run[0]!);
      return pseudo ? `${range} (the tags' pseudo-versions)` : range;
    })
    .join(', ');
}

// Mostly deep containers (every field, extremes, Unicode) of the newest model (fields unknown to older
// types included) and of 1.16 (fields every later minor knows); everyday ones; damaged ones.
const NEWEST = supportedReleases().at(-1)!;
const deepNewest = deepContainerArb(resolveRoot(releaseModel(NEWEST)));
const deepOld = deepContainerArb(resolveRoot(releaseModel('1.16')));
const everyday = containerArb as fc.Arbitrary<Record<string, unknown>>;
const WRONG: unknown[] = [true, 1.5, -1, 'x', '1Gi', '1.2.3', '', [], [1], {}, 2 ** 31, -(2n ** 63n) - 1n, 2n ** 64n];
/** A copy of `c` with its `pick`-th node (depth first) replaced by `value`. */
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
const damaged = fc
  .tuple(deepNewest, fc.nat(), fc.constantFrom(...WRONG))
  .map(([c, pick, value]) => withWrongNode(c, pick, value));

function batchOf(batch: number, size: number): Record<string, unknown>[] {
  const s = SEED + batch * 4;
  const fifth = Math.floor(size / 5);
  return [
    ...fc.sample(deepNewest, { numRuns: size - 3 * fifth, seed: s }),
    ...fc.sample(deepOld, { numRuns: fifth, seed: s + 1 }),
    ...fc.sample(everyday, { numRuns: fifth, seed: s + 2 }),
    ...fc.sample(damaged, { numRuns: fifth, seed: s + 3 }),
  ];
}

/** JSON text of a generated container: bigints as bare integers, as a client would write them. */
function jsonText(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `\u0000big:${v}` : v)).replace(
    /"\\u0000big:(-?\d+)"/g,
    '$1',
  );
}

type Ours = { hash: string } | { refused: string };
function ours(fn: () => string): Ours {
  try {
    return { hash: fn() };
  } catch (e) {
    if (e instanceof KubeletHashError) return { refused: `${e.code}: ${e.message}` };
    throw e;
  }
}

interface Tally {
  identical: number;
  refusedByBoth: number;
  nameless: number;
  /** How many containers diverged; the first ten are kept in `mismatches`. */
  diverged: number;
  mismatches: string[];
}

/** One judge's processes (two at 1.27–1.30: the hash and the hash without resources) and its tally. */
interface Running {
  judge: ApiJudge & { path: string; go: string };
  /** Its place in the list: which containers the library reads as text, which as objects. */
  rank: number;
  hash: LineJudge;
  withoutResources?: LineJudge;
  tally: Tally;
}

function compare(
  run: Running,
  containers: readonly Record<string, unknown>[],
  texts: readonly string[],
  go: readonly JudgeAnswer[],
  goWr: readonly JudgeAnswer[] | undefined,
): void {
  const { judge, tally } = run;
  const options =
    judge.algorithm === 'legacy'
      ? { kubeletVersion: judge.minor }
      : { kubeletVersion: judge.minor, jsonEscapes: escapesOfGo(judge.go) };
  const note = (why: string, text: string): void => {
    tally.diverged++;
    if (tally.mismatches.length < 10) tally.mismatches.push(`${why}: ${text.slice(0, 600)}`);
  };
  containers.forEach((c, i) => {
    const text = texts[i]!;
    const answer = go[i]!;
    // The library reads each container either as the text Go read or as the object it came from,
    // alternating with the release (`rank`), so each container goes through both entries across
    // releases and each release sees both on half the stream: both for all would double the cost.
    const input = (i + run.rank) % 2 === 0 ? text : c;
    const form = input === text ? 'text' : 'object';
    const ourHash = ours(() => hashContainer(input, options));
    if (c.name === '' || c.name === undefined) {
      // No name: the apiserver refuses the pod, no kubelet hashes it; the library refuses it (typed).
      if ('refused' in ourHash) tally.nameless++;
      else note(`a container without a name was not refused (${form}): ${JSON.stringify(ourHash)}`, text);
      return;
    }
    // From 1.31 the hash reads name and image only; validateContainer checks the rest, as Go
    // decodes (and may refuse) the whole container.
    const checked = judge.algorithm === 'name-image' ? ours(() => (validateContainer(input, options), '')) : ourHash;
    if (answer.error !== undefined) {
      if ('refused' in checked) tally.refusedByBoth++;
      else note(`Go refused (${answer.error}) but the library (${form}) gave ${JSON.stringify(ourHash)}`, text);
      return;
    }
    if ('refused' in checked) {
      note(`Go accepted (hash ${answer.hash}) but the library (${form}) said ${checked.refused}`, text);
      return;
    }
    const same = (o: Ours, h: string | undefined): boolean => 'hash' in o && o.hash === h;
    if (!same(ourHash, answer.hash)) {
      note(`Go ${answer.hash}, library (${form}) ${JSON.stringify(ourHash)}`, text);
      return;
    }
    if (goWr) {
      const wr = goWr[i]!;
      const oursWr = ours(() => hashContainerWithoutResources(input, options));
      if (!same(oursWr, wr.hash)) {
        note(`without resources: Go ${JSON.stringify(wr)}, library (${form}) ${JSON.stringify(oursWr)}`, text);
        return;
      }
    }
    tally.identical++;
  });
}

/** A type of the closure, as both sides can say it: what spew and encoding/json see of it. */
interface ClosureType {
  name: string;
  kind: string;
  key?: string;
  elem?: string;
  fields?: { goName: string; goType: string; jsonTag: string }[];
}

function libraryClosure(minor: string): ClosureType[] {
  return releaseModel(minor)
    .types.map((t) => ({
      name: t.name,
      kind: t.kind,
      ...(t.key === undefined ? {} : { key: t.key }),
      ...(t.elem === undefined ? {} : { elem: t.elem }),
      ...(t.fields === undefined
        ? {}
        : { fields: t.fields.map((f) => ({ goName: f.goName, goType: f.goType, jsonTag: f.jsonTag })) }),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

function goClosure(path: string): ClosureType[] {
  return execFileSync(path, ['closure'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ClosureType)
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

const title = `real: Go differential k8s.io/api ${versionsLine(ready)} — ${ready.length} releases × ${PER_RELEASE} containers`;

describe.runIf(ready.length > 0 || inCi)(title, () => {
  const running: Running[] = [];
  let seconds = '';

  beforeAll(() => {
    for (const [rank, judge] of ready.entries()) {
      running.push({
        judge,
        rank,
        hash: new LineJudge(judge.path, [judge.algorithm === 'json+wr' ? 'json' : judge.algorithm]),
        ...(judge.algorithm === 'json+wr'
          ? { withoutResources: new LineJudge(judge.path, ['json-without-resources']) }
          : {}),
        tally: { identical: 0, refusedByBoth: 0, nameless: 0, diverged: 0, mismatches: [] },
      });
    }
  });
  afterAll(async () => {
    await Promise.all(running.flatMap((r) => [r.hash, r.withoutResources ?? []].flat().map((j) => j.close())));
  });

  if (inCi && missing.length) {
    it('has every api-judge (required in CI)', () => {
      throw new Error(
        `CI requires every api-judge, but ${missing.map((j) => j.missing ?? j.minor).join('; ')}. ${API_JUDGES_HOW}`,
      );
    });
  }
  for (const j of inCi ? [] : missing)
    it.skip(`kubelet ${j.minor} did not run: ${j.missing ?? '?'}; to run it: ${API_JUDGES_HOW}`, () => {});

  it(`streams ${PER_RELEASE} generated containers through every judge (seed ${SEED})`, async () => {
    const started = performance.now();
    let generating = 0;
    let waiting = 0;
    for (let done = 0, batch = 0; done < PER_RELEASE; done += BATCH, batch++) {
      const t0 = performance.now();
      const containers = batchOf(batch, Math.min(BATCH, PER_RELEASE - done));
      const texts = containers.map(jsonText);
      generating += performance.now() - t0;
      // Every Go process works on the batch while the library hashes it for each release in turn.
      const answers = running.map((r) => Promise.all([r.hash.judge(texts), r.withoutResources?.judge(texts)]));
      for (const [k, r] of running.entries()) {
        const t1 = performance.now();
        const [go, goWr] = await answers[k]!;
        waiting += performance.now() - t1;
        compare(r, containers, texts, go, goWr);
      }
    }
    seconds = ((performance.now() - started) / 1000).toFixed(1);
    const s = (ms: number): string => (ms / 1000).toFixed(1);
    console.info(
      `[api-judges] ${ready.length} releases × ${PER_RELEASE} containers in ${seconds}s ` +
        `(generating ${s(generating)}s, waiting for Go ${s(waiting)}s, the rest the library; ${REPLAY})`,
    );
  }, 1_800_000);

  for (const judge of ready) {
    const run = (): Running => running.find((r) => r.judge === judge)!;
    it(`kubelet ${judge.minor} (${judge.algorithm}, k8s.io/api ${judge.api}): identical hashes, or a typed error where Go refuses`, () => {
      const { tally } = run();
      console.info(
        `[api-judge ${judge.minor}] ${judge.version}: ${tally.identical} identical, ${tally.refusedByBoth} refused by both, ` +
          `${tally.nameless} nameless, ${tally.diverged} mismatches (${REPLAY})`,
      );
      expect(tally.mismatches, `${tally.diverged} mismatches (${REPLAY})`).toEqual([]);
      expect(tally.identical + tally.refusedByBoth + tally.nameless).toBe(PER_RELEASE);
      // The generators must mostly produce containers Go accepts, and the damaged ones must be refused.
      expect(tally.identical).toBeGreaterThan(PER_RELEASE / 2);
      expect(tally.refusedByBoth).toBeGreaterThan(PER_RELEASE / 50);
    });
    it(`kubelet ${judge.minor}: k8s.io/api ${judge.api}'s v1.Container closure is the library's model`, () => {
      expect(goClosure(judge.path)).toEqual(libraryClosure(judge.minor));
    });
  }
});

if (!inCi && ready.length === 0) {
  describe.skip(`real: Go differential k8s.io/api (every release)`, () => {
    it(`did not run: no api-judge is built; to run it: ${API_JUDGES_HOW}`, () => {});
  });
}
