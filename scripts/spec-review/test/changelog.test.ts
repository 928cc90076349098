/**
 * `npm run spec:changelog`'s builder on a temporary git repository: one entry
 * per commit that changed spec/, newest first, judged by the spec review.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toyApi, type Doc } from '../../../packages/spec-review/test/fixtures/toy-api.js';
import { buildChangelog, renderChangelogMarkdown } from '../src/changelog.js';

const repo = mkdtempSync(join(tmpdir(), 'spec-changelog-test-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

function git(...args: string[]): void {
  const result = spawnSync('git', ['-c', 'user.name=Changelog Test', '-c', 'user.email=changelog@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: repo, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
}

function commit(message: string, doc?: Doc): void {
  if (doc) writeFileSync(join(repo, 'spec/openapi.yaml'), `${JSON.stringify(doc, null, 2)}\n`);
  else writeFileSync(join(repo, 'NOTES.md'), message);
  git('add', '-A');
  git('commit', '-q', '-m', message);
}

describe('the API changelog from the history of spec/', () => {
  it('lists each spec commit, newest first, with operations added and removed and breaking changes by check id', async () => {
    git('init', '-q', '-b', 'main');
    mkdirSync(join(repo, 'spec'));
    cpSync(join(import.meta.dirname, 'fixtures/redocly.yaml'), join(repo, 'redocly.yaml'));
    commit('v1', toyApi());
    const v2 = toyApi();
    delete v2.paths['/pets/{pet_id}'].delete;
    v2.components.schemas.NewPet.properties.name.maxLength = 40;
    commit('v2: no more deleting, shorter names', v2);
    commit('notes only'); // not a spec commit
    const v3 = structuredClone(v2);
    v3.paths['/pets'].get.description = 'Lists pets.';
    commit('v3: a description', v3);

    const entries = await buildChangelog(repo);
    expect(entries.map((e) => e.subject)).toEqual(['v3: a description', 'v2: no more deleting, shorter names', 'v1']);
    expect(entries[2]!.initial).toBe(true);
    expect(entries[1]!.removed.map((o) => o.operationId)).toEqual(['pets_delete']);
    expect(entries[1]!.breaking.map((c) => c.id)).toEqual(['api-removed', 'request-max-length-decreased']);
    expect(entries[0]!.breaking).toEqual([]);
    expect(entries[0]!.infoCount).toBe(1);

    const markdown = renderChangelogMarkdown(entries);
    expect(markdown).toContain('- **Removed** `pets_delete` `DELETE /pets/{pet_id}`');
    expect(markdown).toContain('- **Breaking**: `pets_create` schema `NewPet` (request) .name: `maxLength` lowered 80 → 40 (narrowed) (`request-max-length-decreased`)');
    expect(markdown.indexOf('v3: a description')).toBeLessThan(markdown.indexOf('v2: no more deleting'));
  });
});
