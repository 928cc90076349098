/** The README's check table is the registry's: regenerate it with `npm run readme` when this fails. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { withChecksTable } from '../src/checks-table.js';

it('the README lists every registered check, as src/registry.ts has it', () => {
  const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
  expect(readme).toBe(withChecksTable(readme));
});
