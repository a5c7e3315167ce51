/**
 * `npm run mutation [-- --room hash[,json]] [stryker options]`: Stryker over the rooms asked for
 * (STRYKER_ROOMS, read by stryker.config.mjs and vitest.mutation.config.ts: src/<room>/** mutated,
 * test/<room>/** run); without --room, the default engine-stage run. Other options go to
 * `stryker run` as they are (`--mutate src/hash/format.ts` narrows the mutants).
 */
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { parseArgs } from 'node:util';

const { values, tokens } = parseArgs({
  options: { room: { type: 'string', multiple: true } },
  strict: false,
  tokens: true,
});
const rooms = (values.room ?? []).filter((r): r is string => typeof r === 'string').flatMap((r) => r.split(','));
// Everything but --room goes to Stryker unchanged, in order.
const rest = process.argv.slice(2).filter((_, i) => {
  const at = tokens.find((t) => t.index === i);
  const roomAt = (t: (typeof tokens)[number] | undefined) =>
    t?.kind === 'option' && t.name === 'room' ? t : undefined;
  return !roomAt(at) && !tokens.some((t) => roomAt(t)?.inlineValue === false && t.index + 1 === i);
});
const env = rooms.length > 0 ? { ...process.env, STRYKER_ROOMS: rooms.join(',') } : process.env;
const run = spawnSync('npx', ['stryker', 'run', ...rest], { stdio: 'inherit', env });
process.exit(run.status ?? 1);
