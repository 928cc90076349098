/**
 * Cutting a release on a temporary git repository (spec/DECISIONS.md, "How the version moves"):
 * spec changes land without touching a version; the cut finds the last release (a tag), asks the
 * spec review what changed since, writes the version and every package's changelog (linked to the
 * published docs, never a local address), commits and tags. A pull request sees only a preview.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { toyApi } from '@gateway-minds/spec-review/toy-api';
import { localChangelogLinks, publishedPackages, publishedDocsUrl, readManifest, specVersion } from '../src/published.js';
import { cutRelease, planRelease, previewMarkdown } from '../src/release.js';

const repo = mkdtempSync(join(tmpdir(), 'release-test-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

function git(...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.name=Release Test', '-c', 'user.email=release@example.invalid', '-c', 'commit.gpgsign=false', '-c', 'tag.gpgsign=false', ...args], { cwd: repo, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

describe('a release', () => {
  git('init', '-q', '-b', 'main');
  mkdirSync(join(repo, 'spec'));
  cpSync(join(import.meta.dirname, '../../../scripts/spec-history/test/fixtures/redocly.yaml'), join(repo, 'redocly.yaml'));
  writeFileSync(join(repo, 'spec/openapi.yaml'), stringify(toyApi()));
  for (const { name, dir } of publishedPackages) {
    mkdirSync(join(repo, dir), { recursive: true });
    writeFileSync(join(repo, dir, 'package.json'), `${JSON.stringify({ name, version: '1.0.0', dependencies: name.endsWith('/contract') ? {} : { '@gateway-minds/contract': '1.0.0' } }, null, 2)}\n`);
    writeFileSync(join(repo, dir, 'CHANGELOG.md'), `# Changelog of ${name}\n\nEach version speaks the API version of the same number.\n\n## 1.0.0 (2026-01-01)\n\nFirst published version, written by hand.\n`);
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'the first release');
  git('tag', 'v1.0.0');
  // A spec pull request: a new optional field and a reworded description, no version touched.
  const changed = toyApi();
  changed.components.schemas.NewPet.properties.color = { type: 'string', maxLength: 20 };
  changed.paths['/pets'].get.description = 'Lists pets, newest first.';
  writeFileSync(join(repo, 'spec/openapi.yaml'), stringify(changed));
  git('commit', '-qam', 'Merge colors: pets have a color');

  it('a spec change lands without a version: the version is still the last release', () => {
    expect(parse(readFileSync(join(repo, 'spec/openapi.yaml'), 'utf8')).info.version).toBe('1.0.0');
    for (const { dir } of publishedPackages) expect(readManifest(dir, repo).version).toBe('1.0.0');
  });

  it('a pull request sees which version merging makes the next release', async () => {
    const markdown = previewMarkdown(await planRelease(repo));
    expect(markdown).toContain('the next release is **1.1.0** (minor: additive: existing calls keep working), from the 2 changes to the API since the last release, 1.0.0 (tag `v1.0.0`)');
    expect(markdown).toContain('not in pull requests');
  });

  it('refuses to write changelog links without the published docs address, or with a local one', async () => {
    await expect(cutRelease(repo, undefined)).rejects.toThrow(/DOCS_BASE_URL is not set/);
    await expect(cutRelease(repo, 'http://127.0.0.1:8080/docs')).rejects.toThrow(/not a published address/);
    expect(() => publishedDocsUrl('http://localhost:4000')).toThrow(/not a published address/);
    expect(git('status', '--porcelain')).toBe('');
  });

  it('cut: writes the version and each changelog from the release history, commits and tags', async () => {
    expect(await cutRelease(repo, 'https://docs.example/gateway-minds/', { tag: true, date: '2026-12-01' })).toBe('1.1.0');
    expect(specVersion(repo)).toBe('1.1.0');
    for (const { dir, name } of publishedPackages) {
      const manifest = readManifest(dir, repo);
      expect(manifest.version, name).toBe('1.1.0');
      if (!name.endsWith('/contract')) expect(manifest.dependencies!['@gateway-minds/contract']).toBe('1.1.0');
    }
    const changelog = readFileSync(join(repo, 'packages/client/CHANGELOG.md'), 'utf8');
    expect(changelog).toBe(
      [
        '# Changelog of @gateway-minds/client',
        '',
        'Each version speaks the API version of the same number.',
        '',
        '## 1.1.0 (2026-12-01)',
        '',
        'API 1.1.0 (minor): additive: existing calls keep working.',
        '',
        '- Compatible: [`pets_list`](https://docs.example/gateway-minds/reference.html#operation/pets_list): description: description changed: “Lists pets, newest first.” (`api-description-changed`)',
        '- Compatible: [`pets_create`](https://docs.example/gateway-minds/reference.html#operation/pets_create): schema `NewPet` (request): new optional property `color` (`request-new-optional-property`)',
        '',
        '## 1.0.0 (2026-01-01)',
        '',
        'First published version, written by hand.',
        '',
      ].join('\n'),
    );
    expect(localChangelogLinks(repo)).toEqual([]);
    expect(git('log', '-1', '--format=%s')).toBe('release: v1.1.0 (minor)');
    expect(git('tag', '--points-at', 'HEAD')).toBe('v1.1.0');
    expect(git('status', '--porcelain')).toBe('');
  });

  it('nothing changed since the last release: nothing to cut', async () => {
    const plan = await planRelease(repo);
    expect(plan.last.tag).toBe('v1.1.0');
    expect(plan.bump).toBeNull();
    expect(previewMarkdown(plan)).toContain('nothing to release');
    expect(await cutRelease(repo, 'https://docs.example/gateway-minds')).toBeNull();
  });
});
