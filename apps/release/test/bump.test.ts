/**
 * The version rule (issue 23: "a change to spec/ that the spec review classes as breaking, additive
 * or a fix bumps the packages' major, minor or patch version"), judged by the spec review's own
 * compare on edits of the real bundled spec.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { compareSpecs } from '@gateway-minds/spec-review';
import { describe, expect, it } from 'vitest';
import { bumpFor, changelogEntry, nextVersion } from '../src/bump.js';

const require = createRequire(import.meta.url);
type Document = { info: { version: string; description?: string }; paths: Record<string, Record<string, any>> };
const spec = (): Document => JSON.parse(readFileSync(require.resolve('@gateway-minds/contract/openapi.json'), 'utf8'));

function verdict(edit: (document: Document) => void) {
  const base = spec();
  const head = spec();
  edit(head);
  const review = compareSpecs(base, head);
  return { review, bump: bumpFor(review, JSON.stringify(base) !== JSON.stringify(head)) };
}

describe('version bump from the spec review', () => {
  it('no change to spec/: no release', () => {
    expect(verdict(() => {}).bump).toBeNull();
  });

  it('a removed operation is breaking: major', () => {
    expect(verdict((d) => delete d.paths['/v1/usage']).bump).toBe('major');
  });

  it('a newly required query parameter is breaking: major', () => {
    const { bump, review } = verdict((d) => {
      const get = d.paths['/v1/usage']!.get;
      get.parameters = [...(get.parameters ?? []), { name: 'brand_new', in: 'query', required: true, schema: { type: 'string' } }];
    });
    expect(review.breaking.map((b) => b.operations)).toContainEqual(['gateway_getUsage']);
    expect(bump).toBe('major');
  });

  it('a new operation is additive: minor', () => {
    const { bump, review } = verdict((d) => {
      d.paths['/v1/brand-new'] = { get: { ...d.paths['/v1/status']!.get, operationId: 'gateway_brandNew' } };
    });
    expect(review.added.map((o) => o.operationId)).toEqual(['gateway_brandNew']);
    expect(bump).toBe('minor');
  });

  it('prose only (a description) is a fix: patch', () => {
    const { bump, review } = verdict((d) => {
      d.info.description = `${d.info.description} Clarified.`;
    });
    expect(review.breaking).toEqual([]);
    expect(bump).toBe('patch');
  });

  // DECISIONS.md, "How the version moves": "prose or examples only (the review reports nothing, or only an operation's new summary or description) → patch".
  it("an operation's summary or description reworded is prose: patch", () => {
    const { bump, review } = verdict((d) => {
      d.paths['/v1/usage']!.get.summary = 'Report requests per service, reworded';
      d.paths['/v1/usage']!.get.description = 'Reworded.';
    });
    expect(review.changed.flatMap((o) => o.changes.map((c) => c.id)).sort()).toEqual(['api-description-changed', 'api-summary-changed']);
    expect(bump).toBe('patch');
  });

  it('reworded prose beside a change of shape in the same operation is still that change: minor', () => {
    const { bump } = verdict((d) => {
      const get = d.paths['/v1/usage']!.get;
      get.summary = 'Reworded';
      get.parameters = [...(get.parameters ?? []), { name: 'brand_new', in: 'query', required: false, schema: { type: 'string' } }];
    });
    expect(bump).toBe('minor');
  });

  it('a changed info.version alone asks for nothing more', () => {
    expect(verdict((d) => (d.info.version = '9.9.9')).bump).toBe('patch');
  });

  it('the next version follows semver', () => {
    expect(nextVersion('0.1.12', 'major')).toBe('1.0.0');
    expect(nextVersion('0.1.12', 'minor')).toBe('0.2.0');
    expect(nextVersion('0.1.12', 'patch')).toBe('0.1.13');
    expect(() => nextVersion('v1', 'patch')).toThrow(/major\.minor\.patch/);
  });

  it("the changelog entry names each operation and links it to the reference", () => {
    const { review } = verdict((d) => {
      delete d.paths['/v1/usage'];
      d.paths['/v1/brand-new'] = { get: { ...d.paths['/v1/status']!.get, operationId: 'gateway_brandNew' } };
    });
    const entry = changelogEntry('1.0.0', 'major', review, 'https://docs.example/', '2026-11-24');
    expect(entry).toMatch(/^## 1\.0\.0 \(2026-11-24\)/);
    expect(entry).toContain('### Removed operations');
    expect(entry).toContain('[`gateway_getUsage`](https://docs.example/reference.html#operation/gateway_getUsage) (`GET /v1/usage`)');
    expect(entry).toContain('### Added operations');
    expect(entry).toContain('[`gateway_brandNew`](https://docs.example/reference.html#operation/gateway_brandNew)');
  });
});
