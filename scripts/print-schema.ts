import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchemaText } from '../src/graphql/print.ts';

// Writes schema.graphql at the repository root from the Pothos schema.
const target = fileURLToPath(new URL('../schema.graphql', import.meta.url));
writeFileSync(target, printSchemaText());
process.stdout.write(`wrote ${target}\n`);
