/** npm run readme: writes the check table of README.md from src/registry.ts. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withChecksTable } from '../src/checks-table.js';

const file = join(import.meta.dirname, '..', 'README.md');
writeFileSync(file, withChecksTable(readFileSync(file, 'utf8')));
console.log(`wrote the check table of ${file}`);
