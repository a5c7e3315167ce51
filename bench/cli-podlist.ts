/**
 * The CLI over a generated PodList of N MB (`kubelet-hash hash -k 1.29 FILE`), in this process
 * so that its peak RSS is the command's: prints `{ inputMB, pods, containers, ms, cpuMs, peakRssMB }` as
 * the last line. Run by bench/run.ts for 5 and 50 MB, of pods as served and of hand-written pods
 * (no apiserver defaults: every container goes into the warning); the growth between the sizes
 * must be linear. Usage: node --expose-gc .bench-build/bench/cli-podlist.js MB [served|hand-written]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { runCli } from '../src/cli/run.js';
import { bigPodList } from './big-podlist.js';

const mb = Number(process.argv[2] ?? '50');
const kind = process.argv[3] ?? 'served';
if (kind !== 'served' && kind !== 'hand-written') throw new Error(`expected served or hand-written, got ${kind}`);
const dir = mkdtempSync(join(tmpdir(), 'kh-bench-podlist-'));
try {
  const file = join(dir, 'pods.json');
  // The generated text is dropped before the run: the command reads the file as users' would.
  let generated: ReturnType<typeof bigPodList> | undefined = bigPodList(mb, kind === 'hand-written');
  writeFileSync(file, generated.text);
  const inputMB = generated.text.length / 1024 / 1024;
  const pods = generated.pods;
  generated = undefined;
  (globalThis as { gc?: () => void }).gc?.();
  let outBytes = 0;
  const sink = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      outBytes += chunk.length;
      done();
    },
  });
  const cpu0 = process.cpuUsage();
  const t = performance.now();
  let errText = '';
  const errSink = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      if (errText.length < 4096) errText += chunk.toString();
      done();
    },
  });
  const code = await runCli(['hash', '-k', '1.29', file], { stdout: sink, stderr: errSink, stdin: process.stdin });
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu0);
  // CPU time is what a busy machine does not inflate; wall time is what users wait.
  const cpuMs = Math.round((used.user + used.system) / 1000);
  if (code !== 0) throw new Error(`hash exited ${code}: ${errText}`);
  // The hand-written case is there to measure the warning: it must have been given.
  if (kind === 'hand-written' && !errText.includes('without apiserver defaults'))
    throw new Error(`no warning about the undefaulted containers: ${errText}`);
  const peakRssMB = process.resourceUsage().maxRSS / 1024;
  console.log(
    JSON.stringify({
      kind,
      inputMB,
      pods,
      containers: 2 * pods,
      ms: Math.round(ms),
      cpuMs,
      peakRssMB: Math.round(peakRssMB),
      outBytes,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
