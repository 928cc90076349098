/**
 * Facts the README states that the code or the spec decides, kept in step by test.
 *
 * The settings table: every environment variable read by the code of apps/ and packages/ (tests
 * aside) has a row, and every row names one the code reads. Reads are found in the source text
 * (`process.env.X`, `env.X`, `env['X']`, `helper(env, 'X')`); the one setting family named
 * elsewhere, the operations' admission settings, comes from the contract.
 *
 * The quick start quotes the spec's pattern for a Mind's name.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { operationTable, type OperationFacts } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { describe, expect, it } from 'vitest';
import { codeTrees, sourceFiles } from './support/source-files.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Read from the environment but not settings of this project: each says why. */
const NOT_SETTINGS: Record<string, string> = {
  PATH: 'passed through to a child process (scripts/conformance)',
  HOME: 'passed through to a child process (scripts/conformance)',
  VITEST: 'set by the test runner; the logger goes quiet under it',
  TMPDIR: 'pointed at a folder per version while @sparticuz/chromium extracts its browser, then restored (packages/browser-testing)',
};

const READS = [
  /\benv\.([A-Z][A-Z0-9_]+)\b/g, // process.env.X, env.X, io.env.X
  /\benv\[\s*['"]([A-Z][A-Z0-9_]+)['"]\s*\]/g, // env['X']
  /\(\s*env\s*,\s*['"]([A-Z][A-Z0-9_]+)['"]/g, // integer(env, 'X', ...)
];

/** Every variable read, with the files reading it. */
function readsInCode(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of codeTrees.flatMap((dir) => sourceFiles(join(repoRoot, dir)))) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of READS) {
      for (const [, name] of text.matchAll(pattern)) found.set(name!, [...(found.get(name!) ?? []), relative(repoRoot, file)]);
    }
  }
  // Named by the spec (x-admission-setting) and read as env[name] in apps/minds.
  for (const operation of Object.values(operationTable) as OperationFacts[]) {
    if (operation.admissionSetting) found.set(operation.admissionSetting, [...(found.get(operation.admissionSetting) ?? []), 'spec (x-admission-setting)']);
  }
  for (const name of Object.keys(NOT_SETTINGS)) found.delete(name);
  return found;
}

function readmeSection(title: string): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith(`${title}\n`));
  if (!section) throw new Error(`README.md has no "## ${title}" section`);
  return section;
}

/** The rows of the README's "## Settings" table: setting, default, what it does. */
function readmeRows(): Map<string, { defaultValue: string; what: string }> {
  const section = readmeSection('Settings');
  const rows = new Map<string, { defaultValue: string; what: string }>();
  for (const line of section.split('\n')) {
    const cells = /^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|(.*)\|(.*)\|\s*$/.exec(line);
    if (!cells) continue;
    if (rows.has(cells[1]!)) throw new Error(`README.md settings table lists ${cells[1]} twice`);
    rows.set(cells[1]!, { defaultValue: cells[2]!.trim(), what: cells[3]!.trim() });
  }
  return rows;
}

describe('README settings table', () => {
  const code = readsInCode();
  const rows = readmeRows();

  it('finds reads of each form it looks for (a scan that found nothing would pass vacuously)', () => {
    expect(code.get('ADMIN_PORT')).toEqual(expect.arrayContaining(['apps/stack/src/settings.ts', 'apps/gateway/src/config.ts'])); // process.env.X, env.X
    expect(code.get('MINDS_HOST_PROVISION_MS')).toContain('apps/minds/src/config.ts'); // integer(env, 'X')
    expect(code.get('GATEWAY_MINDS_TOKEN')).toContain('packages/cli/src/cli.ts'); // io.env.X
    expect(code.get('MINDS_AGENT_MEMORY_ENABLED')).toContain('spec (x-admission-setting)');
    expect(code.size).toBeGreaterThan(40);
  });

  it('every setting the code reads has a row', () => {
    const missing = [...code].filter(([name]) => !rows.has(name)).map(([name, files]) => `${name} (read in ${[...new Set(files)].join(', ')})`);
    expect(missing, 'add a row to the "## Settings" table of README.md').toEqual([]);
  });

  it('every row names a setting the code reads, with a default and what it does', () => {
    expect([...rows.keys()].filter((name) => !code.has(name)), 'a row for a setting nothing reads').toEqual([]);
    for (const [name, row] of rows) {
      expect(row.defaultValue, name).not.toBe('');
      expect(row.what.length, name).toBeGreaterThan(10);
    }
  });
});

describe('README quick start', () => {
  it("says a Mind's name must match the spec's pattern, quoting it", () => {
    const schemas = (openapiDocument as unknown as { components: { schemas: Record<string, { properties: Record<string, { pattern?: string }> }> } }).components.schemas;
    const pattern = schemas.CreateMindRequest!.properties.name!.pattern!;
    expect(pattern).toMatch(/^\^Sandbox/);
    const quickStart = readmeSection('Quick start');
    expect(quickStart).toContain(`\`${pattern}\``);
    expect(quickStart).toMatch(/name must start with `Sandbox`/);
  });
});
