/** A node plan is applied only to the runtime root it was made for. */
import { resolve } from 'node:path';
import { StoreError, type JsonPathSegment } from '../errors.js';
import type { RuntimeDiscovery } from './discover.js';

/**
 * Refuses (`RUNTIME_ROOT_MISMATCH`) a plan whose store root (at `path` in the plan) is not the root
 * the discovered runtime uses: its records are another runtime's, or a copy's, so rewriting them
 * would not carry this node's containers across.
 */
export function checkPlannedRoot(discovered: RuntimeDiscovery, plannedRoot: string, path: JsonPathSegment[]): void {
  if (resolve(discovered.rootOnDisk) === resolve(plannedRoot)) return;
  throw new StoreError(
    'RUNTIME_ROOT_MISMATCH',
    path,
    `a plan for the root the runtime at ${discovered.socket} uses, ${discovered.root} (${discovered.rootFrom}): plan again on this node`,
    `the plan was made for ${plannedRoot}`,
    discovered.rootOnDisk,
  );
}
