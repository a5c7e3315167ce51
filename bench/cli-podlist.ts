/**
 * The CLI over a generated PodList of N MB (`kubelet-hash hash -k 1.29 FILE`), in this process
 * so that its peak RSS is the command's: prints `{ inputMB, pods, containers, ms, cpuMs, peakRssMB }` as
 * the last line. Run by bench/run.ts for 5 and 50 MB (the growth between them must be linear).
 * Usage: node --expose-gc .bench-build/bench/cli-podlist.js MB
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { runCli } from '../src/cli/run.js';
import { bigPodList } from './big-podlist.js';

const mb = Number(process.argv[2] ?? '50');
const dir = mkdtempSync(join(tmpdir(), 'kh-bench-podlist-'));
try {
  const file = join(dir, 'pods.json');
  // The generated text is dropped before the run: the command reads the file as users' would.
  let generated: ReturnType<typeof bigPodList> | undefined = bigPodList(mb);
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
  const code = await runCli(['hash', '-k', '1.29', file], { stdout: sink, stderr: sink, stdin: process.stdin });
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu0);
  // CPU time is what a busy machine does not inflate; wall time is what users wait.
  const cpuMs = Math.round((used.user + used.system) / 1000);
  if (code !== 0) throw new Error(`hash exited ${code}`);
  const peakRssMB = process.resourceUsage().maxRSS / 1024;
  console.log(
    JSON.stringify({
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
