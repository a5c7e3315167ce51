/** Oracle conformance: read fixture pairs (cases + expected), compare every row, render the report. */
export * from './fixtures.js';
export * from './run.js';
export * from './report.js';
