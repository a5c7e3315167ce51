/**
 * vitest globalSetup: builds the package once (`npm run build`'s `buildDist`: declarations by tsc,
 * the bundled JavaScript by esbuild, into dist/), so the CLI tests run the real `kubelet-hash`
 * binary as a child process, as users run it, and the package tests import what is published.
 */
import { buildDist } from '../../scripts/build.js';

export default async function setup(): Promise<void> {
  await buildDist();
}
