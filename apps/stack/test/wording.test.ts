/**
 * Messages never put a fixed article before an interpolated word: "a ${kind}" reads "a api_key" for
 * half the values it takes. Say it without an article (a plural, "of type X") instead. Scans the
 * code of apps/ and packages/ (tests aside); scripts/bench's sentences are benchmark data, left as they are.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'test', 'generated', '.turbo', '.test-results', 'data']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) && !/\.(test|spec)\.|\.d\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('wording', () => {
  it('no "a ${...}" or "an ${...}" in a message', () => {
    const files = ['apps', 'packages'].flatMap((dir) => sourceFiles(join(repoRoot, dir)));
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) => (/\ban? [`'"(]?\$\{/i.test(line) ? [`${relative(repoRoot, file)}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
