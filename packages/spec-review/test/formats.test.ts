/**
 * Check ids re-levelled by option, the JSON rendering, and annotations placed
 * on source lines through external $refs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareSpecs, createLocator, generatedClientLevels, renderAnnotations, renderJson } from '../src/index.js';
import { mutated, toyApi } from './fixtures/toy-api.js';

describe('levels', () => {
  const renamed = mutated((d) => (d.paths['/pets'].get.operationId = 'pets_listAll'));

  it('an operationId rename is info by default, as oasdiff levels api-operation-id-removed', () => {
    expect(compareSpecs(toyApi(), renamed).breaking).toEqual([]);
  });

  it('is breaking with generatedClientLevels, for an API whose operation ids name SDK methods, CLI commands and MCP tools', () => {
    expect(compareSpecs(toyApi(), renamed, { levels: generatedClientLevels }).breaking.map((b) => b.id)).toEqual(['api-operation-id-renamed']);
  });

  it('refuses to re-level an id that is not registered', () => {
    expect(() => compareSpecs(toyApi(), renamed, { levels: { 'no-such-check': 'info' } })).toThrow(/not registered/);
  });

  it('can raise a warning to breaking, which then joins the breaking list and the operation severity', () => {
    const deprecated = mutated((d) => (d.paths['/pets'].get.deprecated = true));
    expect(compareSpecs(toyApi(), deprecated).breaking).toEqual([]);
    const review = compareSpecs(toyApi(), deprecated, { levels: { 'endpoint-deprecated': 'breaking' } });
    expect(review.breaking.map((b) => `${b.id} ${b.operations.join(',')}`)).toEqual(['endpoint-deprecated pets_list']);
    expect(review.changed.find((o) => o.operation.operationId === 'pets_list')!.severity).toBe('breaking');
  });
});

describe('renderings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spec-review-formats-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('JSON lists every change with id, level, operations and pointer', () => {
    const head = mutated((d) => (d.components.schemas.NewPet.properties.name.maxLength = 40));
    const report = JSON.parse(renderJson(compareSpecs(toyApi(), head)));
    expect(report.breaking).toBe(1);
    expect(report.changes).toContainEqual({
      id: 'request-max-length-decreased',
      level: 'breaking',
      operations: ['pets_create'],
      where: 'schema `NewPet` (request) .name',
      message: '`maxLength` lowered 80 → 40',
      pointer: '/components/schemas/NewPet/properties/name/maxLength',
    });
  });

  it('annotations land on the changed line of the file a $ref leads to', () => {
    mkdirSync(join(dir, 'paths'));
    const base = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/items': { get: { operationId: 'list', parameters: [{ name: 'q', in: 'query', schema: { type: 'string', maxLength: 10 } }], responses: { '200': { description: 'ok' } } } } } };
    writeFileSync(join(dir, 'openapi.yaml'), 'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths:\n  /items:\n    $ref: paths/items.yaml\n');
    writeFileSync(join(dir, 'paths/items.yaml'), 'get:\n  operationId: list\n  parameters:\n    - name: q\n      in: query\n      schema:\n        type: string\n        maxLength: 5\n  responses:\n    "200": {description: ok}\n');
    const head = structuredClone(base);
    head.paths['/items'].get.parameters[0]!.schema.maxLength = 5;
    const review = compareSpecs(base, head);
    expect(review.breaking.map((b) => b.pointer)).toEqual(['/paths/~1items/get/parameters/0/schema/maxLength']);
    const annotations = renderAnnotations(review, createLocator(join(dir, 'openapi.yaml'), dir), 'openapi.yaml');
    expect(annotations).toBe('::error file=paths/items.yaml,line=8,title=request-max-length-decreased (breaking)::list: query parameter q: maxLength lowered 10 → 5\n');
  });
});
