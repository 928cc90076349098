/**
 * Messages never put a fixed article before an interpolated word: "a ${kind}" reads "a api_key" for
 * half the values it takes. Say it without an article (a plural, "of type X") instead. Scans the
 * code of apps/, packages/ and the suites under scripts/ (tests aside); scripts/bench's sentences are
 * benchmark data, left as they are.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeTrees, sourceFiles } from './support/source-files.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');
describe('wording', () => {
  it('no "a ${...}" or "an ${...}" in a message', () => {
    const files = codeTrees.flatMap((dir) => sourceFiles(join(repoRoot, dir)));
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) => (/\ban? [`'"(]?\$\{/i.test(line) ? [`${relative(repoRoot, file)}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
