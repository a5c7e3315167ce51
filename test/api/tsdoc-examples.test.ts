/**
 * Every TSDoc `@example` in src/ runs as written (imports from 'kubelet-hash' resolve to the source
 * entry), type-checks, and produces the values its `// →` comments show; and every export of the
 * package carries at least one such example.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, itRunsAsWritten, sourceFiles, tsdocExamples, writeExamples } from '../support/code-examples.js';

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

for (const [file, importFrom] of [
  ['src/index.ts', "from 'kubelet-hash'"],
  ['src/node.ts', "from 'kubelet-hash/node'"],
] as const) {
  describe(`the public API (${file})`, () => {
    const program = ts.createProgram([join(ROOT, file)], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
    });
    const checker = program.getTypeChecker();
    const entry = checker.getSymbolAtLocation(program.getSourceFile(join(ROOT, file))!)!;
    const exported = checker.getExportsOfModule(entry).map((s) => ({
      name: s.name,
      symbol: s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s,
    }));

    it('has exports to check', () => {
      expect(exported.length).toBeGreaterThan(file === 'src/index.ts' ? 50 : 10);
    });

    it(`documents every export with a fenced ts @example that imports it ${importFrom}`, () => {
      const missing = exported
        .filter(({ name, symbol }) => {
          const examplesOf = symbol
            .getJsDocTags(checker)
            .filter((t) => t.name === 'example')
            .map((t) => ts.displayPartsToString(t.text));
          return !examplesOf.some(
            (e) => /```ts\n/.test(e) && new RegExp(`\\b${name}\\b`).test(e) && e.includes(importFrom),
          );
        })
        .map((e) => e.name);
      expect(
        missing,
        `exports without a fenced \`\`\`ts @example that imports ${importFrom} and mentions them`,
      ).toEqual([]);
    });
  });
}
