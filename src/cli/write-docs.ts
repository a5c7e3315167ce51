/** `npm run docs:cli`: writes docs/cli.md and docs/cli-output.schema.json from the command definitions. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { COMMANDS } from './registry.js';
import { renderCliReference, renderOutputJsonSchema } from './reference.js';

const docs = new URL('../../docs/', import.meta.url);
mkdirSync(docs, { recursive: true });
writeFileSync(new URL('cli.md', docs), renderCliReference(COMMANDS));
writeFileSync(new URL('cli-output.schema.json', docs), renderOutputJsonSchema(COMMANDS));
process.stdout.write('wrote docs/cli.md and docs/cli-output.schema.json\n');
