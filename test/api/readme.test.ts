/**
 * The README and the guides in docs/ run as written: every ```ts block executes (imports from
 * 'kubelet-hash' resolve to the source entry), type-checks, and shows true `// →` results. Every
 * `kubelet-hash <command>` line they show is a real command with real options, and the CLI
 * reference documents every command and option the CLI has.
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, itRunsAsWritten, markdownBlocks, writeExamples } from '../support/code-examples.js';
import { cli } from '../support/cli.js';

const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const blocks = DOCS.flatMap((f) => markdownBlocks(f, 'ts'));
const { dir, files: written } = writeExamples('docs', blocks);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('code blocks of README.md and docs/', () => {
  it('exist in the README and in every guide', () => {
    for (const f of [
      'README.md',
      'docs/controllers.md',
      'docs/node-agents.md',
      'docs/how-the-kubelet-hashes.md',
      'docs/troubleshooting.md',
    ]) {
      expect(blocks.filter((b) => b.file === f).length, f).toBeGreaterThan(0);
    }
  });

  itRunsAsWritten(written);
});

/** Commands and their usage lines, from the CLI's own `COMMAND --help`. */
async function cliCommands(): Promise<Map<string, string>> {
  const { out } = await cli(['help']);
  const commands = new Map<string, string>();
  for (const m of out.matchAll(/^ {2}([a-z][a-z-]*) {2,}/gm)) {
    const help = await cli([m[1]!, '--help']);
    commands.set(m[1]!, /^usage: kubelet-hash \S+(?: (.*))?$/m.exec(help.out)![1] ?? '');
  }
  return commands;
}

const optionsIn = (text: string): string[] => [
  ...new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]!)),
];

describe('CLI commands named in the docs', () => {
  it('are real commands, with options they take', async () => {
    const commands = await cliCommands();
    expect(commands.size).toBeGreaterThan(5);
    const wrong: string[] = [];
    for (const file of DOCS) {
      const shell = markdownBlocks(file, 'sh');
      for (const block of shell) {
        block.code.split('\n').forEach((line, i) => {
          // `kubectl -n kubelet-hash …` names the namespace, not a command.
          const m = /(?:^|[\s|])(?<!-n )kubelet-hash (\S+)(.*)/.exec(line.replace(/\s+#.*$/, ''));
          if (!m) return;
          const [, name, rest] = m;
          if (name === 'help' || name === '<command>') return;
          const usage = commands.get(name!);
          if (usage === undefined) wrong.push(`${file}:${block.line + i}: no command ${name}`);
          else
            for (const o of optionsIn(rest!))
              if (!optionsIn(usage).includes(o) && o !== 'kubelet-version')
                wrong.push(`${file}:${block.line + i}: ${name} has no --${o}`);
        });
      }
    }
    expect(wrong).toEqual([]);
  });

  it('are all documented in docs/cli.md, with every option of their usage line', async () => {
    const commands = await cliCommands();
    const reference = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    const sections = new Map(
      [...reference.matchAll(/^### (\S+)\n([\s\S]*?)(?=^#{2,3} |(?![\s\S]))/gm)].map((m) => [m[1]!, m[2]!]),
    );
    const missing: string[] = [];
    for (const [name, usage] of commands) {
      const section = sections.get(name);
      if (section === undefined) {
        missing.push(`### ${name}`);
        continue;
      }
      for (const o of optionsIn(usage)) if (!section.includes(`--${o}`)) missing.push(`${name} --${o}`);
    }
    expect(missing).toEqual([]);
  });
});
