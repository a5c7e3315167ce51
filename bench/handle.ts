/**
 * The kubelet handle's per-call cost (issue 40): `k.hash(container)` beside a bare FNV-1a pass over
 * exactly the bytes FNV consumes, for the minimal container (object) and for a container holding an
 * integer beyond 2^53 (JSON text, the form such a container must be given in), with the option form
 * beside them. Interleaved in one run, as bench/run.ts measures.
 *
 * Run: `npm run bench:handle` (about 20 s; `-- --quick` for fewer rounds).
 */
import { hashedBytes } from '../src/hash/compute.js';
import { decodeFor } from '../src/hash/hashes-for.js';
import { containerJson } from '../src/hash/hashes-for.js';
import { hashContainer, kubelet, releaseInfo } from '../src/index.js';
import { plain } from './support/cases.js';
import { measureInterleaved } from './support/timing.js';

const quick = process.argv.includes('--quick');
const plan = { rounds: quick ? 7 : 21, batchNs: quick ? 1e6 : 3e6, warmupNs: quick ? 2e7 : 5e7 };
const VERSION = '1.29';

function consumed(container: unknown): Uint8Array {
  const { pipeline, value } = decodeFor(containerJson(container as object), releaseInfo(VERSION));
  return hashedBytes(pipeline, value);
}

function bareFnv(bytes: Uint8Array): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

const readScratch = new Uint8Array(1 << 16);
const encoder = new TextEncoder();
/** One bare read of the text (its UTF-8 bytes into scratch and a byte sum): what any validating reader pays at least. */
function bareRead(text: string): number {
  const n = encoder.encodeInto(text, readScratch).written;
  let x = 0;
  for (let i = 0; i < n; i++) x = (x + readScratch[i]!) | 0;
  return x;
}

const k = kubelet(VERSION);
const opts = { kubeletVersion: VERSION };
const minimal = plain('minimal-name-image');
const bigText =
  '{"name":"app","image":"busybox:1.37","securityContext":{"runAsUser":1152921504606846976,"runAsGroup":9007199254740993}}';
if (k.hash(bigText) !== hashContainer(bigText, opts)) throw new Error('the handle and the option form disagree');

interface HandleRow {
  case: string;
  input: 'object' | 'text';
  fnvBytes: number;
  bareNs: number;
  handleNs: number;
  optionsNs: number;
  bareReadNs: number | null;
  handleRatio: number;
  optionsRatio: number;
  handleFloorRatio: number | null;
  medianRoundHandleRatio: number;
}

const rows: HandleRow[] = [];
{
  const bytes = consumed(minimal);
  const m = measureInterleaved([() => bareFnv(bytes), () => k.hash(minimal), () => hashContainer(minimal, opts)], plan);
  const [bareNs, handleNs, optionsNs] = m.ns as [number, number, number];
  rows.push({
    case: 'minimal',
    input: 'object',
    fnvBytes: bytes.length,
    bareNs,
    handleNs,
    optionsNs,
    bareReadNs: null,
    handleRatio: handleNs / bareNs,
    optionsRatio: optionsNs / bareNs,
    handleFloorRatio: null,
    medianRoundHandleRatio: m.ratio[1]!,
  });
}
{
  const bytes = consumed(bigText);
  const m = measureInterleaved(
    [() => bareFnv(bytes), () => k.hash(bigText), () => hashContainer(bigText, opts), () => bareRead(bigText)],
    plan,
  );
  const [bareNs, handleNs, optionsNs, bareReadNs] = m.ns as [number, number, number, number];
  rows.push({
    case: 'int beyond 2^53',
    input: 'text',
    fnvBytes: bytes.length,
    bareNs,
    handleNs,
    optionsNs,
    bareReadNs,
    handleRatio: handleNs / bareNs,
    optionsRatio: optionsNs / bareNs,
    handleFloorRatio: handleNs / (bareNs + bareReadNs),
    medianRoundHandleRatio: m.ratio[1]!,
  });
}

const f = (x: number, d = 0): string => x.toFixed(d);
console.log(`kubelet ${VERSION}, ${plan.rounds} interleaved rounds, best ns/op (Node ${process.version})`);
console.log(
  '| case | input | FNV bytes | bare FNV ns | k.hash ns | k.hash ÷ bare | median-round ÷ bare | options-form ns | options ÷ bare | k.hash ÷ (bare + read) |',
);
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows)
  console.log(
    `| ${r.case} | ${r.input} | ${r.fnvBytes} | ${f(r.bareNs)} | ${f(r.handleNs)} | ${f(r.handleRatio, 2)} | ${f(r.medianRoundHandleRatio, 2)} | ${f(r.optionsNs)} | ${f(r.optionsRatio, 2)} | ${r.handleFloorRatio === null ? '' : f(r.handleFloorRatio, 2)} |`,
  );
