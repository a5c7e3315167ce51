/**
 * The Go side of the "÷ Go kubelet" column: our Go judges (test/support/go, built from Debian
 * packages by .ci/provision/40-go-judges.sh) run with `-bench`, which times the kubelet's hash of
 * each decoded container with testing.Benchmark. 1.20 is kubelet 1.20.2's own HashContainer over the
 * real 1.20 types; 1.36 the name+image hash over the real 1.36 types. Other releases have no judge.
 */
import { execFileSync } from 'node:child_process';
import { HASH_JUDGE_120, HASH_JUDGE_136, type GoJudge } from '../test/support/go-judges.js';

const JUDGES: Partial<Record<string, GoJudge>> = { '1.20': HASH_JUDGE_120, '1.36': HASH_JUDGE_136 };

/** Whether a Go figure can be measured for `version` here, or why not (printed with the table). */
export function goJudgeFor(version: string): { judge?: GoJudge & { path: string }; missing?: string } {
  const judge = JUDGES[version];
  if (judge === undefined) return {};
  return judge.path !== undefined
    ? { judge: judge as GoJudge & { path: string } }
    : { missing: `${judge.title}: ${judge.missing ?? '?'}; ${judge.howToGet}` };
}

/**
 * ns per Go hash of each container text (one JSON line each), in order. A container Go refuses is
 * an error: every bench container is one the kubelet accepts.
 */
export function goKubeletNs(judge: GoJudge & { path: string }, texts: readonly string[]): number[] {
  const out = execFileSync(judge.path, ['-bench'], { input: texts.join('\n') + '\n', encoding: 'utf8' });
  return out
    .trim()
    .split('\n')
    .map((line, i) => {
      const a = JSON.parse(line) as { ns?: number; error?: string };
      if (a.ns === undefined) throw new Error(`${judge.id} refused bench container ${i}: ${a.error ?? line}`);
      return a.ns;
    });
}
