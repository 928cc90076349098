/**
 * Type tests (`*.test-d.ts`) run in vitest's typecheck, with TypeScript 7's `tsgo` as its checker
 * (README "Tests"): without `checker: 'tsgo'` vitest quietly runs the root's TypeScript 5.9 `tsc`,
 * the same check at several times the CPU.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { manifestOf, root, workspaceDirs } from './workspaces.js';

const typeTests = (dir: string) => readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).filter((file) => !file.includes('node_modules') && file.endsWith('.test-d.ts'));
const vitestScripts = (dir: string) => Object.values<string>(manifestOf(dir).scripts ?? {}).filter((script) => /\bvitest\b/.test(script));
const vitestConfig = (dir: string) => (existsSync(join(root, dir, 'vitest.config.ts')) ? readFileSync(join(root, dir, 'vitest.config.ts'), 'utf8') : '');
/** `--typecheck` on vitest's command line, or `typecheck: { enabled: true }` in its config. */
const typeChecks = (dir: string) => vitestScripts(dir).some((script) => script.includes('--typecheck')) || /typecheck:\s*\{\s*enabled:\s*true/.test(vitestConfig(dir));

it('every workspace with type tests runs vitest with its typecheck on', () => {
  const withTypeTests = workspaceDirs.filter((dir) => typeTests(dir).length > 0);
  expect(withTypeTests.length).toBeGreaterThan(0);
  expect(withTypeTests.filter((dir) => !typeChecks(dir))).toEqual([]);
});

it('every workspace whose vitest type-checks names tsgo as the checker', () => {
  const typeChecking = workspaceDirs.filter(typeChecks);
  expect(typeChecking.length).toBeGreaterThan(5);
  expect(typeChecking.filter((dir) => !/checker:\s*'tsgo'/.test(vitestConfig(dir)))).toEqual([]);
});
