/** docs/cli.md and docs/cli-output.schema.json are generated; the committed files must be current. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/registry.js';
import { renderCliReference, renderOutputJsonSchema } from '../../src/cli/reference.js';
import { commandHelp } from '../../src/cli/help.js';

const read = (name: string): string => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

describe('CLI reference', () => {
  it('docs/cli.md is what `npm run docs:cli` writes (run it after changing a command)', () => {
    expect(read('cli.md')).toBe(renderCliReference(COMMANDS));
  });

  it('docs/cli-output.schema.json is current', () => {
    expect(read('cli-output.schema.json')).toBe(renderOutputJsonSchema(COMMANDS));
  });

  it('documents every option that --help shows', () => {
    const doc = read('cli.md');
    for (const c of COMMANDS) {
      expect(doc).toContain(`### ${c.name}\n`);
      for (const line of commandHelp(c)
        .split('\n')
        .filter((l) => /^ {2}-/.test(l))) {
        const spelled = line.trim().split(/ {2,}/)[0]!;
        expect(doc).toContain(`\`${spelled}\``);
      }
    }
  });
});
