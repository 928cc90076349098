/**
 * The consumer's view comes first: the README and the docs site begin with installing the client
 * from npm, pointing it at a base URL, and the MCP client configuration that works from any
 * directory, and the two say the same thing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docsPages, docsSiteDir } from '@gateway-minds/docs';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../src/published.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const page = readFileSync(join(docsSiteDir, docsPages.gettingStarted), 'utf8');
const unescape = (html: string) => html.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

function readmeSection(heading: string): string {
  const section = readme.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  if (!section) throw new Error(`README.md has no section "## ${heading}"`);
  return section;
}

const mcpConfigOf = (text: string) => JSON.parse(/\{\s*"mcpServers"[\s\S]*?\n\}/.exec(text)![0]);

describe('README and docs site: the consumer view first', () => {
  it('the README opens with "Use it from npm", before the repository quick start', () => {
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings[0]).toBe('Use it from npm');
    const section = readmeSection('Use it from npm');
    expect(section).toContain('npm install @gateway-minds/client');
    expect(section).toMatch(/createClient\(\{ baseUrl: 'https:\/\//);
  });

  it('the getting-started page opens with the same npm install, base URL and MCP configuration', () => {
    const headings = [...page.matchAll(/<h2 id="([^"]+)"/g)].map((m) => m[1]);
    expect(headings[0]).toBe('npm');
    const text = unescape(page);
    expect(text).toContain('npm install @gateway-minds/client');
    expect(text).toContain(/```ts\n([\s\S]*?)```/.exec(readmeSection('Use it from npm'))![1]!.trimEnd());
    expect(mcpConfigOf(text.slice(text.indexOf('id="npm"')))).toEqual(mcpConfigOf(readmeSection('Use it from npm')));
  });

  it('the published MCP configuration needs no path into the repository', () => {
    const config = Object.values(mcpConfigOf(readmeSection('Use it from npm')).mcpServers)[0] as { command: string; args: string[] };
    expect(config.command).toBe('npx');
    expect(config.args.filter((arg) => arg.includes('/') && !arg.startsWith('@'))).toEqual([]);
    expect(config.args).toContain('@gateway-minds/mcp');
  });
});
