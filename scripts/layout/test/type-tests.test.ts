/**
 * Type tests (`*.test-d.ts`) run in vitest's typecheck, with TypeScript 7's `tsgo` as its checker
 * (README "Tests"): without `checker: 'tsgo'` vitest quietly runs the root's TypeScript 5.9 `tsc`,
 * the same check at several times the CPU.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');

const workspaces = ['packages', 'apps', 'scripts'].flatMap((top) =>
  readdirSync(join(root, top))
    .map((name) => `${top}/${name}`)
    .filter((dir) => existsSync(join(root, dir, 'package.json'))),
);

function typeTests(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).filter((file) => !file.includes('node_modules') && file.endsWith('.test-d.ts'));
}

const testScripts = (dir: string) => Object.values((JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {}).filter((script) => /\bvitest\b/.test(script));
const vitestConfig = (dir: string) => (existsSync(join(root, dir, 'vitest.config.ts')) ? readFileSync(join(root, dir, 'vitest.config.ts'), 'utf8') : '');

it('every workspace with type tests runs vitest with its typecheck on', () => {
  const withTypeTests = workspaces.filter((dir) => typeTests(dir).length > 0);
  expect(withTypeTests.length).toBeGreaterThan(0);
  const off = withTypeTests.filter((dir) => !testScripts(dir).some((script) => script.includes('--typecheck')) && !/typecheck:\s*\{\s*enabled:\s*true/.test(vitestConfig(dir)));
  expect(off).toEqual([]);
});

it("every workspace whose vitest type-checks names tsgo as the checker", () => {
  const typeChecking = workspaces.filter((dir) => testScripts(dir).some((script) => script.includes('--typecheck')) || /typecheck:\s*\{\s*enabled:\s*true/.test(vitestConfig(dir)));
  expect(typeChecking.length).toBeGreaterThan(5);
  const onTsc = typeChecking.filter((dir) => !/checker:\s*'tsgo'/.test(vitestConfig(dir)));
  expect(onTsc).toEqual([]);
});
