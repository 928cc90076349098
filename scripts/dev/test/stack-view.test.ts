/**
 * Which saved edits reach the running stack (stack-view.ts): the loop restarts the stack for those
 * and leaves it running for the rest. Judged on the real bundled contract.
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { bundledContract } from '../src/paths.js';
import { stackView } from '../src/stack-view.js';

type Doc = Record<string, any>;
const contract = (): Doc => JSON.parse(readFileSync(bundledContract, 'utf8')) as Doc;
const reaches = (edit: (doc: Doc) => void, examplesMatter = false) => {
  const before = contract();
  const after = contract();
  edit(after);
  expect(isDeepStrictEqual(before, after), 'the edit changed the document').toBe(false);
  return !isDeepStrictEqual(stackView(before, { examplesMatter }), stackView(after, { examplesMatter }));
};
const firstExample = (doc: Doc) => Object.values(doc.components.examples as Record<string, { value: unknown }>)[0]!;

describe('an edit the stack does not read leaves it running', () => {
  it('a named example', () => expect(reaches((doc) => (firstExample(doc).value = { changed: true }))).toBe(false));
  it("a component schema's description and a property's", () => {
    expect(reaches((doc) => (doc.components.schemas.Mind.description = 'Reworded.'))).toBe(false);
    expect(reaches((doc) => (doc.components.schemas.Mind.properties.mind_id.description = 'Reworded.'))).toBe(false);
  });
});

describe('an edit the stack reads restarts it', () => {
  it('a named example, once a scaffolded handler answers examples', () => expect(reaches((doc) => (firstExample(doc).value = { changed: true }), true)).toBe(true));
  it('a property named `description` (a name, not the keyword)', () =>
    expect(reaches((doc) => (doc.components.schemas.ErrorCatalogEntry.properties.description.maxLength = 7))).toBe(true));
  it("a constraint of a component schema's property", () => expect(reaches((doc) => (doc.components.schemas.Mind.properties.name.maxLength = 7))).toBe(true));
  it("an operation's summary (GET /v1/openapi.json serves it)", () => expect(reaches((doc) => (doc.paths['/v1/minds/services/{mind_id}'].get.summary = 'Reworded'))).toBe(true));
  it("an error code's meaning (GET /v1/errors serves it)", () => expect(reaches((doc) => (doc.components.schemas.ErrorCode.oneOf[0].description = 'reworded'))).toBe(true));
});
