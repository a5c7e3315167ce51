/**
 * Every TSDoc `@example` in src/ runs as written (imports from 'kubelet-hash' resolve to the source
 * entry), type-checks, and produces the values its `// →` comments show; and every export of the
 * package carries at least one such example.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, itRunsAsWritten, sourceFiles, tsdocExamples, writeExamples } from './support/code-examples.js';

const examples = sourceFiles('src').flatMap(tsdocExamples);
const { dir, files: written } = writeExamples('tsdoc', examples);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('TSDoc @example blocks', () => {
  it('exist', () => {
    expect(examples.length).toBeGreaterThan(50);
  });

  itRunsAsWritten(written);
});

describe('the public API', () => {
  const program = ts.createProgram([join(ROOT, 'src/index.ts')], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
  });
  const checker = program.getTypeChecker();
  const entry = checker.getSymbolAtLocation(program.getSourceFile(join(ROOT, 'src/index.ts'))!)!;
  const exported = checker.getExportsOfModule(entry).map((s) => ({
    name: s.name,
    symbol: s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s,
  }));

  it('has exports to check', () => {
    expect(exported.length).toBeGreaterThan(50);
  });

  it('documents every export with a fenced ts @example that uses it', () => {
    const missing = exported
      .filter(({ name, symbol }) => {
        const examplesOf = symbol
          .getJsDocTags(checker)
          .filter((t) => t.name === 'example')
          .map((t) => ts.displayPartsToString(t.text));
        return !examplesOf.some(
          (e) => /```ts\n/.test(e) && new RegExp(`\\b${name}\\b`).test(e) && e.includes("from 'kubelet-hash'"),
        );
      })
      .map((e) => e.name);
    expect(missing, 'exports without a fenced ```ts @example that imports from kubelet-hash and mentions them').toEqual(
      [],
    );
  });
});
