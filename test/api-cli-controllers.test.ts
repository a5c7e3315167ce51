/** The controller commands (changed, translate, identify, explain, plan), run in-process. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_COMMANDS } from '../src/cli/commands-controllers.js';
import { UsageError } from '../src/cli/command.js';
import { HashMismatchError } from '../src/errors.js';
import { readRuntimeRecords } from '../src/runtime/index.js';
import { oracleCase } from './support/oracle.js';

async function run(name: string, args: string[], stdin = ''): Promise<{ code: number; out: string }> {
  const cmd = CONTROLLER_COMMANDS[name]!;
  const { values, positionals } = parseArgs({ args, options: cmd.options, allowPositionals: true, strict: true });
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const code = await cmd.run(values as Record<string, string | boolean | undefined>, positionals, { stdout, stderr: new PassThrough(), stdin: Readable.from([Buffer.from(stdin)]) });
  return { code, out };
}

const dir = mkdtempSync(join(tmpdir(), 'kh-ctl-'));
const sample = JSON.stringify(oracleCase('k8s-sampleContainer').container);
const recordPath = new URL('../fixtures/runtime/crictl-inspect-containerd.json', import.meta.url).pathname;

describe('controller CLI commands', () => {
  it('changed: exit 0 when the stored hash matches, 1 when the kubelet would restart', async () => {
    expect(await run('changed', ['-k', '1.29', '--hash', '311670a', '-'], sample)).toEqual({ code: 0, out: expect.stringMatching(/^keep: test_container: hash unchanged/) });
    const r = await run('changed', ['-k', '1.31', '--hash', '311670a', '--json', '-'], sample);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ container: 'test_container', expected: '8e45cbd0', actual: '311670a', changed: true });
    const status = join(dir, 'status.json');
    writeFileSync(status, JSON.stringify({ 'io.kubernetes.container.hash': 'f39e1ad' }));
    expect((await run('changed', ['-k', '1.15', '--status', status, '-'], sample)).code).toBe(0);
    const gated = await run('changed', ['-k', '1.29', '--hash', '1', '--hash-without-resources', 'e8022015', '--feature-gates', 'InPlacePodVerticalScaling=true', '-'], sample);
    expect(gated.code).toBe(0);
    await expect(run('changed', ['-k', '1.29', '-'], sample)).rejects.toThrow(UsageError);
  });

  it('changed --record reads the runtime record of the matching container', async () => {
    const nginx = JSON.stringify({ metadata: { name: 'nginx' }, spec: { containers: [oracleCase('real-containerd-nginx-2022').container] } });
    expect((await run('changed', ['-k', '1.30', '--record', recordPath, '-'], nginx)).code).toBe(0);
    expect((await run('changed', ['-k', '1.31', '--record', recordPath, '-'], nginx)).code).toBe(1);
  });

  it('translate: verified translation, refusal on mismatch, all containers of a pod', async () => {
    expect((await run('translate', ['--from', '1.30', '--to', '1.31', '--observed', '311670a', '-'], sample)).out).toBe('8e45cbd0\n');
    await expect(run('translate', ['--from', '1.15', '--to', '1.31', '--observed', '311670a', '-'], sample)).rejects.toThrow(HashMismatchError);
    const pod = JSON.stringify({ spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } });
    const rows = JSON.parse((await run('translate', ['--from', '1.8', '--to', '1.36', '--json', '-'], pod)).out) as { container: string; hash: string }[];
    expect(rows.map((r) => r.container)).toEqual(['a', 'b']);
  });

  it('identify lists releases oldest first; exit 1 when none matches', async () => {
    expect((await run('identify', ['--hash', 'f39e1ad', '-'], sample)).out.trim().split('\n')).toEqual(['1.9', '1.10', '1.11', '1.12', '1.13', '1.14', '1.15']);
    expect((await run('identify', ['--hash', 'e8022015', '-'], sample)).out).toContain('1.27  hashWithoutResources');
    expect((await run('identify', ['--hash', 'abc', '-'], sample)).code).toBe(1);
  });

  it('explain prints the summary; --json the reasons', async () => {
    const c = JSON.stringify({ name: 'a', volumeMounts: [{ name: 'v', mountPath: '/v' }] });
    expect((await run('explain', ['--from', '1.13', '--to', '1.14', '-'], c)).out).toContain('v1.VolumeMount.SubPathExpr');
    const rows = JSON.parse((await run('explain', ['--from', '1.15', '--to', '1.16', '--json', '-'], c)).out) as { reasons: { kind: string }[] }[];
    expect(rows[0]!.reasons[0]!.kind).toBe('algorithm');
  });

  it('plan joins a pod list file with record files', async () => {
    const rec = readRuntimeRecords(readFileSync(recordPath, 'utf8'))[0]!;
    const pods = join(dir, 'pods.json');
    writeFileSync(pods, JSON.stringify({ kind: 'PodList', items: [{ metadata: { uid: rec.podUid, name: 'nginx', namespace: 'default' }, spec: { containers: [oracleCase('real-containerd-nginx-2022').container] } }] }));
    const text = await run('plan', ['--from', '1.30', '--to', '1.31', '--pods', pods, recordPath]);
    expect(text.out).toMatch(/^rewrite +default\/nginx nginx 9624f5a5 -> a564281e/);
    expect(text.out).toContain('keep 0, rewrite 1, will-restart 0, unknown 0');
    const plan = JSON.parse((await run('plan', ['--from', '1.30', '--to', '1.31', '--pods', pods, '--json', recordPath])).out) as { entries: { change: unknown }[] };
    expect(plan.entries[0]!.change).toEqual({ from: { hash: '9624f5a5' }, to: { hash: 'a564281e' }, containerId: rec.containerId });
  });
});
