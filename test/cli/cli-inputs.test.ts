/**
 * What every input and option of the CLI is held to: one depth limit for JSON and YAML (TOO_DEEP at
 * 512, never a stack overflow), one size limit for every input (--max-input-size, EFBIG, memory
 * bounded), empty option values, repeated single-value options and options without the option they
 * go with refused as usage errors, and no zod text in any message (the one converter, parseWith,
 * says zod's defaults in our words).
 */
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  ftruncateSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { KubeletHashError, isKubeletHashError, parseWith } from '../../src/errors.js';
import { hashContainer, planUpgrade, readDocuments } from '../../src/index.js';
import { parseNodePlan } from '../../src/node-upgrade/index.js';
import { MANIFEST_NAME as MANIFEST_FILE, planDigest } from '../../src/node-upgrade/rollback-point.js';
import { cli } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'kh-inputs-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** zod's own English messages (what must never reach a user). */
const ZOD_TEXT =
  /Invalid input|Invalid option|Invalid string|Too small|Too big|Unrecognized key|expected string to have/;

const errorOf = (fn: () => unknown): KubeletHashError => {
  try {
    fn();
  } catch (e) {
    if (isKubeletHashError(e)) return e;
    throw e;
  }
  throw new Error('no error');
};

/** `n` levels of nesting in each spelling: JSON arrays, YAML flow sequences, YAML block mappings. */
const NESTED = {
  json: (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`,
  'yaml flow': (n: number) => `- ${'['.repeat(n - 1)}${']'.repeat(n - 1)}`,
  'yaml block': (n: number) => `${Array.from({ length: n - 1 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} x`,
} as const;

describe('one depth limit for JSON and YAML', () => {
  it.each(Object.keys(NESTED) as (keyof typeof NESTED)[])(
    '%s: 513 levels read, 514, 790 (and 20,000) TOO_DEEP',
    (spelling) => {
      const nested = NESTED[spelling];
      // 513 values deep: the innermost sits inside 512 collections, the most either reader allows.
      expect(readDocuments(nested(513))).toHaveLength(1);
      // Block nesting costs indentation per level (quadratic text), so it stops at 790.
      for (const n of spelling === 'yaml block' ? [514, 790] : [514, 790, 20_000]) {
        const e = errorOf(() => readDocuments(nested(n)));
        expect(e.code, `${spelling} ${n}`).toBe('TOO_DEEP');
        expect(e.expected).toBe('a document nested at most 512 levels');
        expect(e.detail).toMatch(/^nested more than 512 levels at line \d+, column \d+$/);
      }
    },
  );

  it('the CLI says TOO_DEEP for a YAML manifest nested 790 deep, as for JSON (not a stack overflow)', async () => {
    for (const [name, text] of [
      ['deep.yaml', NESTED['yaml block'](790)],
      ['deep.json', NESTED.json(790)],
    ] as const) {
      writeFileSync(join(dir, name), text);
      const r = await cli(['hash', '-k', '1.29', join(dir, name), '--json']);
      expect(r.code).toBe(2);
      const error = (JSON.parse(r.err) as { error: { code: string; message: string } }).error;
      expect(error.code, name).toBe('TOO_DEEP');
      expect(error.message).not.toMatch(/call stack/);
    }
  });
});

describe('one size limit for every input', () => {
  const podsFile = join(dir, 'pods.json');
  writeFileSync(podsFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }));

  it('a device that never ends is refused at the limit, naming the file and the option', async () => {
    const r = await cli(['hash', '-k', '1.29', '/dev/zero', '--max-input-size', '1M', '--json']);
    expect(r.code).toBe(2);
    const error = (JSON.parse(r.err) as { error: { code: string; message: string; file: string } }).error;
    expect(error).toMatchObject({ code: 'EFBIG', file: '/dev/zero' });
    expect(error.message).toContain('larger than 1 MiB, the limit of one input (--max-input-size SIZE raises it)');
  });

  it('a regular file over the default 256 MiB is refused by its size, before a byte is read', async () => {
    const big = join(dir, 'sparse.json');
    const fd = openSync(big, 'w');
    ftruncateSync(fd, 256 * 1024 * 1024 + 1);
    closeSync(fd);
    const r = await cli(['plan', '--from', '1.30', '--to', '1.31', '--pods', big, '--containerd-root', dir]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('larger than 256 MiB');
    rmSync(big);
  });

  it('every kind of input: operands, --pods, standard input, a plan file, node plans, a Node object', async () => {
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }).padEnd(2000, ' ');
    const file = join(dir, 'two-k.json');
    writeFileSync(file, text);
    const limit = ['--max-input-size', '1K'];
    const runs: [string, string[], string?][] = [
      ['operand', ['hash', '-k', '1.29', file]],
      ['--pods', ['plan', '--from', '1.30', '--to', '1.31', '--pods', file, '--containerd-root', dir]],
      ['stdin', ['hash', '-k', '1.29', '-'], text],
      ['plan file', ['apply', file, '--dry-run']],
      ['node plan', ['fleet', 'report', file]],
      ['Node object', ['plan', '--node-object', file, '--to', '1.31', '--pods', podsFile, '--containerd-root', dir]],
      ['plan record file', ['plan', '--from', '1.30', '--to', '1.31', '--pods', podsFile, file]],
      ['verify record file', ['verify', '--kubelet', '1.31', '--pods', podsFile, file]],
      ['rollback plan file', ['rollback', file, '--backup-dir', dir]],
    ];
    for (const [what, args, stdin] of runs) {
      const r = await cli([...args, ...limit], stdin);
      expect(r.code, what).toBe(2);
      expect(r.err, what).toContain('larger than 1 KiB, the limit of one input');
      // Raised, the same input gets past the limit (and fails, if at all, for another reason).
      const raised = await cli([...args, '--max-input-size', '4K'], stdin);
      expect(raised.err, what).not.toContain('the limit of one input');
    }
    // The backup manifest rollback reads is an input too.
    const planFile = join(dir, 'small-plan.json');
    writeFileSync(
      planFile,
      JSON.stringify({
        kind: 'kubelet-hash/upgrade-plan',
        version: 1,
        from: '1.30',
        to: '1.31',
        store: { runtime: 'docker', root: '/var/lib/docker' },
        counts: { keep: 0, rewrite: 0, 'will-restart': 0, unknown: 0 },
        entries: [],
      }),
    );
    const backupDir = join(dir, 'backup-with-big-manifest');
    // The plan's own rollback point (named by its digest), private as apply makes it.
    const point = join(
      backupDir,
      `${planDigest(parseNodePlan(readFileSync(planFile, 'utf8'))).slice(0, 16)}-20261204T190000000Z`,
    );
    mkdirSync(point, { recursive: true, mode: 0o700 });
    writeFileSync(join(point, MANIFEST_FILE), text, { mode: 0o600 });
    const manifest = await cli(['rollback', planFile, '--backup-dir', backupDir, ...limit]);
    expect(manifest.code).toBe(2);
    expect(manifest.err).toContain('larger than 1 KiB, the limit of one input');
    const manifestRaised = await cli(['rollback', planFile, '--backup-dir', backupDir, '--max-input-size', '4K']);
    expect(manifestRaised.code).toBe(2);
    expect(manifestRaised.err).not.toContain('the limit of one input');
    // A record file that never ends (a device, a pipe) is cut at the limit, never read whole.
    const endless = await cli(['verify', '--kubelet', '1.31', '--pods', podsFile, '/dev/zero', ...limit]);
    expect(endless.code).toBe(2);
    expect(endless.err).toContain('EFBIG: /dev/zero is larger than 1 KiB, the limit of one input');
  });

  it('--max-input-size: sizes with K, M, G; nonsense and more than JavaScript holds are usage errors', async () => {
    for (const bad of ['0', 'lots', '1T', '-1', '2G']) {
      const r = await cli(['hash', '-k', '1.29', podsFile, '--max-input-size', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.err).toContain('--max-input-size');
    }
    for (const good of ['100', '64K', '300M', '300MiB', '511M'])
      expect((await cli(['releases', '--max-input-size', good])).code, good).toBe(0);
  });
});

describe('options', () => {
  const pods = join(dir, 'p.json');
  writeFileSync(pods, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }));
  const plan = ['plan', '--from', '1.30', '--to', '1.31', '--pods', pods];

  it('a single-value option given twice is a usage error, in any spelling', async () => {
    for (const args of [
      [...plan, '--pods', 'b.json', '--containerd-root', dir],
      ['plan', '--from', '1.30', '--to', '1.31', `--pods=${pods}`, '--pods', 'b.json', '--containerd-root', dir],
      [...plan, '--containerd-root', dir, '--containerd-root', dir],
      ['fleet', 'manifests', '--from', '1.30', '--from', '1.29', '--to', '1.31', '--node', 'a'],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(/is given more than once; give it once/);
    }
    // A repeatable one stays repeatable.
    expect(
      (
        await cli([
          'fleet',
          'manifests',
          '--from',
          '1.30',
          '--to',
          '1.31',
          '--node',
          'a',
          '--node',
          'b',
          '--image',
          `kubelet-hash@sha256:${'0'.repeat(64)}`,
        ])
      ).code,
    ).toBe(0);
  });

  it('an empty value is a usage error in our words (--node "" printed zod text before)', async () => {
    for (const args of [
      [...plan, '--node', '', '--containerd-root', dir],
      ['fleet', 'manifests', '--from', '1.30', '--to', '1.31', '--node', ''],
      ['fleet', 'manifests', '--from', '1.30', '--to', '1.31', '--variant', 'suc', '--swap-command', ''],
      [
        'fleet',
        'manifests',
        '--from',
        '1.30',
        '--to',
        '1.31',
        '--variant',
        'suc',
        '--swap-command',
        'x',
        '--selector',
        '',
      ],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(/--[a-z-]+ expects [A-Z,=.…]+, got an empty one/);
      expect(r.err).not.toMatch(ZOD_TEXT);
    }
  });

  it('a flag of another runtime than the chosen one is a usage error', async () => {
    const cases: [string[], string][] = [
      [['--containerd-root', dir, '--crio-runroot', dir], '--crio-runroot goes with --crio-root'],
      [
        ['--containerd-root', dir, '--docker-config', join(dir, 'daemon.json')],
        '--docker-config goes with --docker-root',
      ],
      [['--crio-root', dir, '--docker-config', join(dir, 'daemon.json')], '--docker-config goes with --docker-root'],
      [['--docker-root', dir, '--crio-runroot', dir], '--crio-runroot goes with --crio-root'],
      [['--crio-root', dir, '--namespace', 'k8s.io'], '--namespace goes with --containerd-root'],
      [
        ['--containerd-root', dir, '--runtime-config', join(dir, 'c.toml')],
        '--runtime-config goes with --runtime-endpoint',
      ],
    ];
    for (const command of ['plan', 'verify'])
      for (const [flags, message] of cases) {
        const args =
          command === 'plan' ? [...plan, ...flags] : ['verify', '--kubelet', '1.31', '--pods', pods, ...flags];
        const r = await cli(args);
        expect(r.code, `${command} ${flags.join(' ')}`).toBe(2);
        expect(r.err).toContain(message);
      }
    const doctor = await cli(['doctor', '--pods', pods, '--fs-root', dir]);
    expect(doctor.code).toBe(2);
    expect(doctor.err).toContain('--pods goes with --to');
  });
});

describe('no zod text reaches a user', () => {
  it('planUpgrade with nodeName "" (what --node "" reached) says what it expects in our words', () => {
    const e = errorOf(() => planUpgrade({ pods: [], records: [], from: '1.30', to: '1.31', nodeName: '' }));
    expect(e.message).toContain('a non-empty string');
    expect(e.message).not.toMatch(ZOD_TEXT);
  });

  it('parseWith says every zod default in our words', () => {
    const cases: [z.ZodType, unknown, string][] = [
      [z.string().min(1), '', 'a non-empty string'],
      [z.string().min(3), 'a', 'a string of at least 3 characters'],
      [z.array(z.string()).max(1), ['a', 'b'], 'a list of at most 1 items'],
      [z.number().int(), 1.5, 'a whole number'],
      [z.number().min(0), -1, 'a number ≥ 0'],
      [z.string(), 1, 'a string'],
      [z.boolean(), 'yes', 'true or false'],
      [z.enum(['a', 'b']), 'c', 'one of "a", "b"'],
      [z.literal(3), 4, 'the value 3'],
      [z.strictObject({ a: z.string() }), { a: 'x', b: 1 }, 'no member "b" (not one this object has)'],
      [z.union([z.string(), z.number()]), true, 'a string or a number'],
      [z.string().regex(/^a$/), 'b', 'a string matching /^a$/'],
      [z.string().describe('x').min(1, 'a pod name'), '', 'a pod name'],
    ];
    for (const [schema, value, words] of cases) {
      let said: string | undefined;
      try {
        parseWith(schema, value, (issue) => new Error(issue.message));
      } catch (e) {
        said = (e as Error).message;
      }
      expect(said).toBe(words);
    }
  });

  test.prop([
    fc.record(
      {
        pods: fc.anything(),
        records: fc.anything(),
        from: fc.oneof(fc.constant('1.30'), fc.anything()),
        to: fc.oneof(fc.constant('1.31'), fc.anything()),
        nodeName: fc.anything(),
        featureGates: fc.anything(),
        sandboxes: fc.anything(),
      },
      { requiredKeys: [] },
    ),
  ])('planUpgrade and hashContainer over any input: typed errors, never zod text', (input) => {
    for (const fn of [
      () => planUpgrade(input as never),
      () => hashContainer({ name: 'a', image: 'b' }, input as never),
    ]) {
      try {
        fn();
      } catch (e) {
        expect(e).toBeInstanceOf(KubeletHashError);
        expect((e as Error).message).not.toMatch(ZOD_TEXT);
      }
    }
  });
});
