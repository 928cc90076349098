/**
 * Versions follow the spec, moved only when a release is cut (spec/DECISIONS.md, Versioning): every
 * published package carries the spec's `info.version`, pins the others at exactly that version, and is
 * publishable (not private, public access, only its dist and documents). A spec pull request changes
 * none of this: CI previews the next version instead of checking one (`release:version --preview`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishedPackages, readManifest, repoRoot, specVersion } from '../src/published.js';

const workflow = (name: string) => readFileSync(join(repoRoot, '.github/workflows', name), 'utf8');

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

  // DECISIONS.md, Versioning: "A spec pull request never bumps a version or writes a changelog".
  it('pull requests get a preview of the next version in the spec review, not a version check that fails them', () => {
    const ci = workflow('ci.yml');
    expect(ci).not.toMatch(/release:version[^\n]*--check/);
    expect(ci).toMatch(/release:version -- --preview --output/);
  });

  it('the release workflow cuts the release on main with the published docs address: writes, tags, pushes, publishes', () => {
    const release = workflow('release.yml');
    expect(release).toMatch(/workflow_dispatch/);
    expect(release).toMatch(/DOCS_BASE_URL: \$\{\{ steps\.pages\.outputs\.base_url \}\}/);
    expect(release.indexOf('npm run release:cut')).toBeLessThan(release.indexOf('git push --follow-tags'));
    expect(release.indexOf('git push --follow-tags')).toBeLessThan(release.indexOf('npm run release:publish'));
  });

  it.each(publishedPackages)('$name has a changelog entry for the current version', ({ dir }) => {
    expect(readFileSync(join(repoRoot, dir, 'CHANGELOG.md'), 'utf8')).toMatch(new RegExp(`^## ${version.replace(/\./g, '\\.')} `, 'm'));
  });
});
