/**
 * apply's own word on what to write: each rewrite's hashes are computed again from the API
 * container the plan carries, for the plan's `from` and `to` releases, and a plan whose hashes are
 * not those is refused. The plan's digest catches accidental edits only (whoever edits a file can
 * compute its digest again); this catches a plan whose targets were forged and re-digested.
 */
import { KubeletHashError, OptionError, type JsonPathSegment } from '../errors.js';
import { formatHash } from '../hash/format.js';
import { DECODE_ONLY, hashesFor, type ReleaseHashes } from '../hash/hashes-for.js';
import { releaseInfo } from '../releases/index.js';
import { parseJson } from '../json/parse.js';
import type { NodeUpgradePlan } from './plan-file.js';

const refuse = (path: JsonPathSegment[], expected: string, found: string): OptionError =>
  new OptionError('INVALID_OPTION', path, expected, found);

/** The container's name as its JSON text says (undefined when it has none or is no object). */
function nameOf(json: unknown): unknown {
  return json !== null && typeof json === 'object' && !Array.isArray(json)
    ? (json as Record<string, unknown>)['name']
    : undefined;
}

/**
 * Refuses ({@link OptionError} `INVALID_OPTION`, naming the entry's field, the plan's value and the
 * recomputed one) a plan with a rewrite whose container is missing, is not the entry's container,
 * or whose `change` (hash and hashWithoutResources, from and to) is not what the releases compute.
 */
export function checkRecomputedTargets(plan: NodeUpgradePlan): void {
  const fromInfo = releaseInfo(plan.from, ['from']);
  const toInfo = releaseInfo(plan.to, ['to']);
  plan.entries.forEach((e, i) => {
    if (e.action !== 'rewrite') return;
    const at = (...p: JsonPathSegment[]): JsonPathSegment[] => ['entries', i, ...p];
    if (e.container === undefined)
      throw refuse(
        at('container'),
        'the API container the rewrite was computed from, as plan --out writes it (apply computes the hashes again)',
        'it has none (a plan of an older kubelet-hash, or edited): make a new plan',
      );
    let json: unknown;
    try {
      json = parseJson(e.container);
    } catch (err) {
      if (!(err instanceof KubeletHashError)) throw err;
      throw refuse(at('container'), 'a container as JSON text', err.message);
    }
    if (nameOf(json) !== e.containerName)
      throw refuse(
        at('container', 'name'),
        `the entry's container name ${JSON.stringify(e.containerName)}`,
        `found ${JSON.stringify(nameOf(json))}`,
      );
    let from: ReleaseHashes;
    let to: ReleaseHashes;
    try {
      from = hashesFor(e.container, fromInfo, plan.jsonEscapes?.from, DECODE_ONLY);
      to = hashesFor(e.container, toInfo, plan.jsonEscapes?.to, DECODE_ONLY);
    } catch (err) {
      if (!(err instanceof KubeletHashError)) throw err;
      throw refuse(at('container'), 'a container the kubelet hashes', err.message);
    }
    const pairs: [JsonPathSegment[], string | undefined, () => bigint, string][] = [
      [at('change', 'from', 'hash'), e.change.from.hash, () => from.hash, plan.from],
      [at('change', 'to', 'hash'), e.change.to.hash, () => to.hash, plan.to],
      [
        at('change', 'from', 'hashWithoutResources'),
        e.change.from.hashWithoutResources,
        from.withoutResources,
        plan.from,
      ],
      [at('change', 'to', 'hashWithoutResources'), e.change.to.hashWithoutResources, to.withoutResources, plan.to],
    ];
    for (const [path, planned, compute, release] of pairs) {
      if (planned === undefined) continue;
      let now: string;
      try {
        now = formatHash(compute());
      } catch (err) {
        if (!(err instanceof KubeletHashError)) throw err;
        throw refuse(path, `no such hash: a ${release} kubelet does not compute it`, `the plan says ${planned}`);
      }
      if (now !== planned)
        throw refuse(
          path,
          `${now}, what a ${release} kubelet computes for entries.${i}.container (apply computes every hash again)`,
          `the plan says ${planned}: it was edited or forged: make a new plan`,
        );
    }
  });
}
