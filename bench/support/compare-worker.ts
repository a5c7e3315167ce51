/**
 * One build's side of `npm run bench:compare` (bench/compare-builds.ts), in a worker thread of its
 * own: its own V8 isolate, so its generated hashers, inline caches and scratch buffers share nothing
 * with the other build's. In one isolate the two builds' text paths met at the same built-ins and
 * the first-timed build's rows came out up to 3× slower than the same build timed in a process of
 * its own. The worker waits for the main thread's requests, so the two sides never time at once.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { timingLoop, warmedBatchSize, type TimingPlan } from './timing.js';

/** What `hashContainer` and `hashContainerWithoutResources` of a build accept, as far as this needs. */
type Hash = (container: unknown, options: { kubeletVersion: string }) => string;
interface HashApi {
  hashContainer: Hash;
  hashContainerWithoutResources: Hash;
}

/** One row of the comparison: a release, and one container as an object and as JSON text. */
export interface CompareRow {
  version: string;
  withoutResources: boolean;
  object: unknown;
  text: string;
}

export type CompareRequest =
  { op: 'prepare'; row: CompareRow; plan: TimingPlan } | { op: 'time'; input: 'object' | 'text' };

/** `prepare`: the hashes (both builds must agree); `time`: ns per call of one batch. */
export type CompareReply = { op: 'prepared'; hashes: [string, string] } | { op: 'timed'; ns: number };

const { index } = workerData as { index: string };
const api = (await import(pathToFileURL(index).href)) as HashApi;
const port = parentPort!;

let loops: Record<'object' | 'text', { loop: (n: number) => number; size: number }> | undefined;

port.on('message', (request: CompareRequest) => {
  if (request.op === 'prepare') {
    const { row, plan } = request;
    const hash = row.withoutResources ? api.hashContainerWithoutResources : api.hashContainer;
    const opts = { kubeletVersion: row.version };
    const make = (input: unknown) => {
      const loop = timingLoop(() => hash(input, opts));
      return { loop, size: warmedBatchSize(loop, plan) };
    };
    loops = { object: make(row.object), text: make(row.text) };
    const reply: CompareReply = { op: 'prepared', hashes: [hash(row.object, opts), hash(row.text, opts)] };
    port.postMessage(reply);
    return;
  }
  const { loop, size } = loops![request.input];
  const reply: CompareReply = { op: 'timed', ns: loop(size) };
  port.postMessage(reply);
});
