// `npm run mutation`: Stryker over the engine stages src/quantity, src/encode and src/decode (see
// docs/mutation.md). STRYKER_FOLDERS=quantity,decode limits a run to some of them, each with its
// own report and incremental file, so results of a long run arrive folder by folder.
import process from 'node:process';

const folders = (process.env.STRYKER_FOLDERS ?? 'quantity,encode,decode').split(',');
const name = folders.join('-');

export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  coverageAnalysis: 'perTest',
  concurrency: 2,
  mutate: folders.map((f) => `src/${f}/**/*.ts`),
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  incremental: true,
  incrementalFile: `reports/stryker-incremental-${name}.json`,
  timeoutMS: 60000,
  thresholds: { high: 90, low: 85, break: 85 },
  tempDirName: '.stryker-tmp',
};
