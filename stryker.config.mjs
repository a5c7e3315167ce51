// `npm run mutation`: Stryker over src/ rooms (see docs/mutation.md). By default the engine stages
// src/quantity, src/encode and src/decode against the suite in vitest.mutation.config.ts.
// STRYKER_ROOMS=hash (or `npm run mutation -- --room hash`, several as hash,json) mutates
// src/<room>/** (subfolders included: src/hash/fused/) and runs test/<room>/**; each selection has
// its own report and incremental file, so results of a long run arrive room by room.
// STRYKER_FOLDERS=quantity (the older knob) mutates those folders against the default suite.
import { readdirSync } from 'node:fs';
import process from 'node:process';

const rooms = readdirSync('src', { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);
const asked = process.env.STRYKER_ROOMS ?? process.env.STRYKER_FOLDERS;
const selected = (asked ?? 'quantity,encode,decode').split(',').filter((r) => r !== '');
const unknown = selected.filter((r) => !rooms.includes(r));
if (unknown.length > 0 || selected.length === 0)
  throw new Error(`STRYKER_ROOMS: no room ${JSON.stringify(unknown.join(','))} in src/ (rooms: ${rooms.join(', ')})`);
const name = selected.join('-');

export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  // vitest.mutation.config.ts reads STRYKER_ROOMS too: set, it runs test/<room>/** of those rooms.
  vitest: { configFile: 'vitest.mutation.config.ts' },
  coverageAnalysis: 'perTest',
  concurrency: 2,
  mutate: selected.map((r) => `src/${r}/**/*.ts`),
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  incremental: true,
  incrementalFile: `reports/stryker-incremental-${name}.json`,
  timeoutMS: 60000,
  thresholds: { high: 90, low: 85, break: 85 },
  tempDirName: '.stryker-tmp',
};
