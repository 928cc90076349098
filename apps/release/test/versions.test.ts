/**
 * Versions follow the spec (issue 23): every published package carries the spec's `info.version`,
 * pins the others at exactly that version, and is publishable (not private, public access, only
 * its dist and documents).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishedPackages, readManifest, repoRoot, specVersion } from '../src/published.js';

describe('published package versions', () => {
  const version = specVersion();
  const names = new Set<string>(publishedPackages.map((p) => p.name));

  it.each(publishedPackages)('$name is at the API version info.version', ({ dir }) => {
    expect(readManifest(dir).version).toBe(version);
  });

  it.each(publishedPackages)('$name depends on the other published packages at exactly that version', ({ dir }) => {
    const pins = Object.entries(readManifest(dir).dependencies ?? {}).filter(([name]) => names.has(name));
    for (const [name, range] of pins) expect(range, name).toBe(version);
  });

  it.each(publishedPackages)('$name is publishable: not private, public, ESM exports, dist and its documents', ({ dir }) => {
    const manifest = readManifest(dir);
    expect(manifest.private).toBeUndefined();
    expect(manifest.publishConfig).toMatchObject({ access: 'public' });
    expect(manifest.license).toBe('MIT');
    expect(manifest.type).toBe('module');
    expect(manifest.exports).toBeTypeOf('object');
    expect(manifest.files).toEqual([...(manifest.bin ? ['bin'] : []), 'dist', 'README.md', 'CHANGELOG.md']);
    // npm 11 publish drops a bin written `./bin/x.js` ("script name ... was invalid and removed"); the
    // committed shims under bin/ (linked at the first install, before any build) are written without it.
    for (const target of Object.values((manifest.bin ?? {}) as Record<string, string>)) expect(target).toMatch(/^bin\/[\w.-]+\.js$/);
  });

  it.each(publishedPackages)('$name has a changelog entry for the current version', ({ dir }) => {
    expect(readFileSync(join(repoRoot, dir, 'CHANGELOG.md'), 'utf8')).toMatch(new RegExp(`^## ${version.replace(/\./g, '\\.')} `, 'm'));
  });
});
