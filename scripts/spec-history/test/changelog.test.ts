/**
 * The release history (`npm run spec:changelog`, and the packages' CHANGELOG.md written from it) on a
 * temporary git repository: released versions (tags `v<x.y.z>`, or before them the commit where
 * `info.version` first took a value) newest first, each compared with the one before by the spec
 * review, and the changes since the last release on top.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toyApi, type Doc } from '@gateway-minds/spec-review/toy-api';
import { buildReleaseHistory, lastRelease, releasePoints, renderChangelogMarkdown } from '../src/changelog.js';

const repo = mkdtempSync(join(tmpdir(), 'spec-changelog-test-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

function git(...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.name=Changelog Test', '-c', 'user.email=changelog@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: repo, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

function commit(message: string, doc?: Doc): void {
  if (doc) writeFileSync(join(repo, 'spec/openapi.yaml'), `${JSON.stringify(doc, null, 2)}\n`);
  else writeFileSync(join(repo, 'NOTES.md'), message);
  git('add', '-A');
  git('commit', '-q', '-m', message);
}

const versioned = (doc: Doc, version: string): Doc => ({ ...doc, info: { ...doc.info, version } });

describe('the release history', () => {
  git('init', '-q', '-b', 'main');
  mkdirSync(join(repo, 'spec'));
  cpSync(join(import.meta.dirname, 'fixtures/redocly.yaml'), join(repo, 'redocly.yaml'));
  commit('Merge first-spec: the spec', toyApi());
  // 1.1.0, released the old way: a pull request that changed the spec, then one that set the version.
  const v11 = toyApi();
  v11.paths['/pets'].get.description = 'Lists pets.';
  commit('describe the list', v11);
  commit('Release 1.1.0', versioned(v11, '1.1.0'));
  commit('notes only');
  // 2.0.0, released the new way: tagged.
  const v2 = versioned(v11, '2.0.0');
  delete v2.paths['/pets/{pet_id}'].delete;
  commit('release: v2.0.0', v2);
  git('tag', 'v2.0.0');
  // Unreleased: a spec change on main after the tag, the version untouched.
  const next = structuredClone(v2);
  next.components.schemas.NewPet.properties.name.maxLength = 40;
  commit('shorter names', next);

  it('finds the releases: the tag, and before tags the first commit carrying each version', () => {
    const points = releasePoints(repo);
    expect(points.map((p) => [p.version, p.tag])).toEqual([
      ['1.0.0', null],
      ['1.1.0', null],
      ['2.0.0', 'v2.0.0'],
    ]);
    expect(lastRelease(repo)!.commit).toBe(git('rev-parse', 'v2.0.0^{commit}'));
  });

  it('lists each release newest first with every change the review reports, and the unreleased ones on top', async () => {
    const history = await buildReleaseHistory(repo);
    expect(history.releases.map((r) => [r.version, r.bump, r.initial])).toEqual([
      ['2.0.0', 'major', false],
      ['1.1.0', 'minor', false],
      ['1.0.0', null, true],
    ]);
    expect(history.releases[0]!.removed.map((o) => o.operationId)).toEqual(['pets_delete']);
    expect(history.releases[0]!.changes.map((c) => [c.id, c.level])).toEqual([['api-removed', 'breaking']]);
    // A description is a change too: listed, not counted; the version line is not a change.
    expect(history.releases[1]!.changes.map((c) => c.id)).toEqual(['api-description-changed']);
    expect(history.unreleased!.previous).toBe('2.0.0');
    expect(history.unreleased!.changes.map((c) => [c.id, c.operations, c.message])).toEqual([['request-max-length-decreased', ['pets_create'], '`maxLength` lowered 80 → 40']]);
  });

  it('renders it for consumers: versions, each change with its operation linked to the published reference, level and check id; no commit messages', async () => {
    const markdown = renderChangelogMarkdown(await buildReleaseHistory(repo), 'https://docs.example/api/');
    expect(markdown.indexOf('## Unreleased')).toBeLessThan(markdown.indexOf('## 2.0.0 ('));
    expect(markdown.indexOf('## 2.0.0 (')).toBeLessThan(markdown.indexOf('## 1.1.0 ('));
    expect(markdown).toContain('- **Breaking**: [`pets_delete`](https://docs.example/api/reference.html#operation/pets_delete): `DELETE /pets/{pet_id}`: operation removed without being deprecated first (`api-removed`)');
    expect(markdown).toContain('- Compatible: [`pets_list`](https://docs.example/api/reference.html#operation/pets_list): description: description changed: “Lists pets.” (`api-description-changed`)');
    expect(markdown).not.toMatch(/Merge first-spec|Release 1\.1\.0|shorter names|describe the list/);
    expect(markdown).not.toMatch(/127\.0\.0\.1|localhost/);
  });
});
