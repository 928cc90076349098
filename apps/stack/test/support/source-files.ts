/**
 * The code files of a tree that the repository-wide text checks read (the README's settings table,
 * message wording): sources only, no tests, builds, generated files or data.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The trees they read: the libraries, the applications, and the suites and release tooling under scripts/. */
export const codeTrees = ['apps', 'packages', 'scripts/conformance', 'scripts/readme-check', 'scripts/release'];

const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'test', 'generated', '.turbo', '.test-results', 'data']);

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) && !/\.(test|spec)\.|\.d\.ts$/.test(entry.name) ? [path] : [];
  });
}
