/**
 * The docs site's getting-started client example, as built into the site: it is the README's
 * client example line for line, and it type-checks against the client as built (TypeScript's own
 * compiler judges, with the repository's compiler settings). Here, beside the other checks of what
 * the README and the getting-started page show, because both the client and the site are built
 * before these tests run.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { docsSiteDir } from '@gateway-minds/docs';

const repoRoot = join(import.meta.dirname, '../../..');
/** Inside the repository, so that `@gateway-minds/client` resolves as it does for a user of the workspace. */
const snippetDir = join(import.meta.dirname, '../.test-results/snippets');

const unescapeHtml = (html: string) =>
  html.replace(/&(lt|gt|quot|#39|amp);/g, (_, entity: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[entity]!);

/** The page's whole-program TypeScript blocks (`<pre><code class="language-ts">`). */
function tsBlocks(html: string): string[] {
  return [...html.matchAll(/<pre><code class="language-ts">([\s\S]*?)<\/code><\/pre>/g)].map((m) => unescapeHtml(m[1]!));
}

/** The ```ts blocks of a README section, by its `## ` heading. */
function readmeTsBlocks(heading: string): string[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "## ${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```ts\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
}

/** TypeScript's diagnostics for one program file, checked with the repository's settings. */
function typeCheck(file: string): string[] {
  const base = ts.getParsedCommandLineOfConfigFile(join(repoRoot, 'tsconfig.base.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!base) throw new Error('cannot read tsconfig.base.json');
  const program = ts.createProgram([file], { ...base.options, noEmit: true, types: ['node'], lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'] });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1} ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}

describe('the getting-started page, "The typed client"', () => {
  const blocks = tsBlocks(readFileSync(join(docsSiteDir, 'index.html'), 'utf8'));
  const readmeExample = readmeTsBlocks('Client, CLI and MCP server')[0];

  it('shows the README\'s client example (section "Client, CLI and MCP server"), line for line', () => {
    expect(blocks.filter((block) => block === readmeExample)).toHaveLength(1);
  });

  it('type-checks against the built client, every TypeScript block of the page', () => {
    mkdirSync(snippetDir, { recursive: true });
    expect(blocks.length).toBeGreaterThan(0);
    blocks.forEach((block, i) => {
      const file = join(snippetDir, `getting-started-client-${i}.mts`);
      writeFileSync(file, `${block}\n`);
      expect(typeCheck(file)).toEqual([]);
    });
  });

  it('a block that uses an option the client lacks does not type-check (the check can fail)', () => {
    mkdirSync(snippetDir, { recursive: true });
    const file = join(snippetDir, 'unknown-option.mts');
    writeFileSync(file, `import { createClient } from '@gateway-minds/client';\ncreateClient({ baseUrl: 'http://127.0.0.1:4010', credential: 'x' });\n`);
    expect(typeCheck(file).join('\n')).toMatch(/'credential' does not exist/);
  });
});
