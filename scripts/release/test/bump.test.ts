/**
 * The version rule (spec/DECISIONS.md, "How the version moves": breaking or a removed operation →
 * major; any other change the review reports → minor; prose or examples only → patch), judged by the
 * spec review's own compare on edits of the real bundled spec, as a release applies it to what
 * changed since the last release.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { compareSpecs } from '@gateway-minds/spec-review';
import { describe, expect, it } from 'vitest';
import { generatedClientLevels } from '@gateway-minds/spec-review';
import { bumpFor, nextVersion } from '../src/bump.js';

const require = createRequire(import.meta.url);
type Document = { info: { version: string; description?: string }; paths: Record<string, Record<string, any>> };
const spec = (): Document => JSON.parse(readFileSync(require.resolve('@gateway-minds/contract/openapi.json'), 'utf8'));

function verdict(edit: (document: Document) => void) {
  const base = spec();
  const head = spec();
  edit(head);
  const review = compareSpecs(base, head, { levels: generatedClientLevels });
  return { review, bump: bumpFor(review) };
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

  it('a changed info.version alone asks for no release', () => {
    expect(verdict((d) => (d.info.version = '9.9.9')).bump).toBeNull();
  });

  it('an example changed is prose: patch', () => {
    const { bump } = verdict((d) => {
      const media = Object.values(d.paths['/v1/usage']!.get.responses['200'].content)[0] as { examples?: Record<string, { value: unknown }> };
      media.examples = { ...media.examples, another: { value: {} } };
    });
    expect(bump).toBe('patch');
  });

  it('the next version follows semver', () => {
    expect(nextVersion('0.1.12', 'major')).toBe('1.0.0');
    expect(nextVersion('0.1.12', 'minor')).toBe('0.2.0');
    expect(nextVersion('0.1.12', 'patch')).toBe('0.1.13');
    expect(() => nextVersion('v1', 'patch')).toThrow(/major\.minor\.patch/);
  });
});
