/**
 * Runs documentation code (TSDoc `@example` blocks, README blocks) as written, so examples cannot rot.
 *
 * Convention for result comments: a single-line statement followed by `// → VALUE` (or `//=> VALUE`)
 * asserts that the statement's value deep-equals VALUE, a JavaScript expression:
 *
 *     hashContainer(c, { kubeletVersion: '1.29' }); // → '590c88e0'
 *     const h = hashContainer(c, { kubeletVersion: '1.29' }); // → '590c88e0'   (asserts h)
 *
 * Explanations go on their own comment lines. Every asserted line must actually run: an assertion
 * inside a branch that never executes fails the example.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

export const ROOT = resolve(import.meta.dirname, '../..');
/** What `from 'kubelet-hash'` means inside the repository: the source entry. */
const ENTRY = join(ROOT, 'src/index.js');
/** What `from 'kubelet-hash/node'` means inside the repository. */
const NODE_ENTRY = join(ROOT, 'src/node.js');

/** One fenced code block found in documentation. */
export interface CodeExample {
  /** `src/hashing/hash.ts` or `README.md`. */
  file: string;
  /** 1-based line of the block's first code line in `file`. */
  line: number;
  /** The code as a reader sees it. */
  code: string;
}

/** Matches `// → value`, `//→ value`, `// => value` and `//=> value` at the end of a line. */
const RESULT_COMMENT = /^(?<stmt>.*?;)\s*\/\/\s*(?:→|=>)\s*(?<value>.+?)\s*$/;
const DECLARATION = /^(?<indent>\s*)(?:const|let)\s+(?<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=/;

/** Every ```ts block inside the `@example` sections of the TSDoc comments of a source file. */
export function tsdocExamples(file: string): CodeExample[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const out: CodeExample[] = [];
  for (const m of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const startLine = text.slice(0, m.index).split('\n').length;
    const lines = m[0].split('\n').map((l) => l.replace(/^\s*\/?\*\*?\/?\s?/, '').replace(/\s*\*\/$/, ''));
    let inExample = false;
    let fence: string[] | null = null;
    let fenceLine = 0;
    lines.forEach((l, i) => {
      if (fence) {
        if (/^```\s*$/.test(l)) {
          if (inExample) out.push({ file, line: fenceLine, code: fence.join('\n') });
          fence = null;
        } else fence.push(l);
        return;
      }
      if (/^@\w+/.test(l)) inExample = l.startsWith('@example');
      if (/^```(?:ts|typescript)\s*$/.test(l)) {
        fence = [];
        fenceLine = startLine + i + 1;
      }
    });
  }
  return out;
}

/** Every fenced block of `lang` in a Markdown file. */
export function markdownBlocks(file: string, lang: string): CodeExample[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const out: CodeExample[] = [];
  let block: string[] | null = null;
  let start = 0;
  lines.forEach((l, i) => {
    if (block) {
      if (/^```\s*$/.test(l)) {
        out.push({ file, line: start, code: block.join('\n') });
        block = null;
      } else block.push(l);
    } else if (new RegExp(`^\`\`\`${lang}\\s*$`).test(l)) {
      block = [];
      start = i + 2;
    }
  });
  return out;
}

/** An example turned into a module whose `run(check)` executes it and reports each result comment. */
interface CompiledExample {
  source: string;
  /** How many `// →` assertions the example holds (each must run exactly once or more). */
  assertions: { id: number; line: number; text: string }[];
}

function compileExample(example: CodeExample): CompiledExample {
  const imports: string[] = [];
  const body: string[] = [];
  const assertions: CompiledExample['assertions'] = [];
  const lines = example.code.split('\n');
  let inImport = false;
  lines.forEach((raw, i) => {
    const l = raw
      .replace(/from\s+['"]kubelet-hash['"]/, `from ${JSON.stringify(ENTRY)}`)
      .replace(/from\s+['"]kubelet-hash\/node['"]/, `from ${JSON.stringify(NODE_ENTRY)}`);
    if (inImport || /^import\s/.test(l)) {
      imports.push(l);
      inImport = !/from\s+['"][^'"]+['"];?\s*$/.test(l) && !/^import\s+['"]/.test(l);
      body.push('');
      return;
    }
    const m = RESULT_COMMENT.exec(l);
    if (!m?.groups) {
      body.push(l);
      return;
    }
    const id = assertions.length;
    const stmt = m.groups['stmt']!;
    const value = m.groups['value']!;
    assertions.push({ id, line: example.line + i, text: raw.trim() });
    const decl = DECLARATION.exec(stmt);
    if (decl?.groups) body.push(`${stmt} __check(${decl.groups['name']}, (${value}), ${id});`);
    else body.push(`${stmt.match(/^\s*/)![0]}__check((${stmt.trim().replace(/;$/, '')}), (${value}), ${id});`);
  });
  // The body keeps the example's line numbers (imports left blank lines) for readable stack traces.
  const source = [
    ...imports,
    'export async function run(__check: (actual: unknown, expected: unknown, id: number) => void): Promise<void> {',
    ...body,
    '}',
    '',
  ].join('\n');
  return { source, assertions };
}

/** Writes compiled examples to a scratch directory (outside node_modules, so vitest transforms them). */
export function writeExamples(kind: string, examples: CodeExample[]): { dir: string; files: WrittenExample[] } {
  const dir = mkdtempSync(join(tmpdir(), `kubelet-hash-${kind}-`));
  const files = examples.map((example, n) => {
    const compiled = compileExample(example);
    const name = `${String(n).padStart(3, '0')}-${example.file.replace(/[^\w]+/g, '_')}-${example.line}.mts`;
    const path = join(dir, name);
    writeFileSync(path, compiled.source);
    return { path, example, compiled };
  });
  return { dir, files };
}

/** A compiled example on disk. */
export interface WrittenExample {
  path: string;
  example: CodeExample;
  compiled: CompiledExample;
}

/** Imports a written example, runs it and returns the result comments that did not hold or never ran. */
async function runExample(
  w: WrittenExample,
  equal: (actual: unknown, expected: unknown, where: string) => void,
): Promise<string[]> {
  const mod = (await import(/* @vite-ignore */ w.path)) as {
    run: (check: (a: unknown, e: unknown, id: number) => void) => Promise<void>;
  };
  const hit = new Set<number>();
  await mod.run((actual, expected, id) => {
    const a = w.compiled.assertions[id]!;
    equal(actual, expected, `${w.example.file}:${a.line}: ${a.text}`);
    hit.add(id);
  });
  return w.compiled.assertions
    .filter((a) => !hit.has(a.id))
    .map((a) => `${w.example.file}:${a.line}: ${a.text} (never ran)`);
}

/** Type errors in written examples, checked with the project's compiler options (unused names allowed). */
function typeErrors(written: WrittenExample[]): string[] {
  const paths = written.map((w) => w.path);
  const byPath = new Map(written.map((w) => [resolve(w.path), w.example]));
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const options = { ...parsed.options, noUnusedLocals: false, noUnusedParameters: false, noEmit: true, rootDir: '/' };
  const program = ts.createProgram(paths, options);
  const wanted = new Set(paths.map((p) => resolve(p)));
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && wanted.has(resolve(d.file.fileName)))
    .map((d) => {
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      const example = byPath.get(resolve(d.file!.fileName))!;
      const where = `${example.file}: example at line ${example.line}, generated line ${line + 1} (${d.file!.fileName})`;
      return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
}

/** All TypeScript files under `dir` (relative to the repository root), sorted. */
export function sourceFiles(dir: string): string[] {
  return ts.sys
    .readDirectory(join(ROOT, dir), ['.ts'])
    .map((f) => relative(ROOT, f))
    .sort();
}

/**
 * The tests every set of written examples gets, inside the caller's `describe`: together they
 * type-check against the source entry, and each runs and shows its `// →` results.
 */
export function itRunsAsWritten(written: WrittenExample[]): void {
  it('type-check against the source entry', () => {
    expect(typeErrors(written)).toEqual([]);
  });

  it.each(written.map((w) => [`${w.example.file}:${w.example.line}`, w] as const))(
    '%s runs and shows its results',
    async (_, w) => {
      const missed = await runExample(w, (actual, expected, where) => {
        expect(actual, where).toEqual(expected);
      });
      expect(missed, 'result comments on lines that never ran').toEqual([]);
    },
  );
}
