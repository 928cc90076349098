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
    const expected = {
      id: 'request-max-length-decreased',
      level: 'breaking',
      operations: ['pets_create'],
      file: null,
      line: null,
      pointer: '/components/schemas/NewPet/properties/name/maxLength',
      where: 'schema `NewPet` (request) .name',
      message: '`maxLength` lowered 80 → 40',
    };
    expect(report.breaking).toEqual([expected]);
    expect(report.changes).toContainEqual(expected);
    expect(report.summary).toMatchObject({ breaking: 1 });
  });

  it('JSON gives each change its file and line, and each lint problem its location', () => {
    mkdirSync(join(dir, 'json'));
    writeFileSync(join(dir, 'json/openapi.yaml'), 'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths:\n  /items:\n    get:\n      operationId: list\n      parameters:\n        - name: q\n          in: query\n          schema: {type: string, maxLength: 5}\n      responses:\n        "200": {description: ok}\n');
    const base = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/items': { get: { operationId: 'list', parameters: [{ name: 'q', in: 'query', schema: { type: 'string', maxLength: 10 } }], responses: { '200': { description: 'ok' } } } } } };
    const head = structuredClone(base);
    head.paths['/items'].get.parameters[0]!.schema.maxLength = 5;
    const lint = { errors: 1, warnings: 0, problems: [{ severity: 'error', ruleId: 'operation-summary', message: 'Operation object should contain `summary` field.', location: 'openapi.yaml:5 #/paths/~1items/get', file: 'openapi.yaml', line: 5, pointer: '#/paths/~1items/get' }] };
    const report = JSON.parse(renderJson(compareSpecs(base, head), { locate: createLocator(join(dir, 'json/openapi.yaml'), dir), lint }));
    expect(report.changes).toEqual([expect.objectContaining({ id: 'request-max-length-decreased', file: 'json/openapi.yaml', line: 10 })]);
    expect(report.lint.problems).toEqual(lint.problems);
  });

  it('an acknowledged breaking change is annotated as a warning', () => {
    const head = mutated((d) => (d.components.schemas.NewPet.properties.name.maxLength = 40));
    const review = compareSpecs(toyApi(), head);
    expect(renderAnnotations(review, () => undefined, 'spec.yaml')).toMatch(/^::error file=spec\.yaml,line=1,title=request-max-length-decreased \(breaking\)::/);
    expect(renderAnnotations(review, () => undefined, 'spec.yaml', { acknowledged: true })).toMatch(/^::warning file=spec\.yaml,line=1,title=request-max-length-decreased \(breaking%2C acknowledged\)::/);
  });

  it('a removal is annotated on the nearest line still there at its place, not on an unchanged neighbour above it', () => {
    mkdirSync(join(dir, 'removal'));
    const file = join(dir, 'removal/openapi.yaml');
    // The head: property `b` (between `a` and `c`) is gone.
    writeFileSync(file, 'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths:\n  /items:\n    get:\n      operationId: list\n      responses:\n        "200":\n          description: ok\n          content:\n            application/json:\n              schema:\n                type: object\n                required: [a, b, c]\n                properties:\n                  a: {type: string}\n                  c: {type: string}\n');
    const schema = (props: string[]) => ({ type: 'object', required: ['a', 'b', 'c'], properties: Object.fromEntries(props.map((p) => [p, { type: 'string' }])) });
    const doc = (props: string[]) => ({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/items': { get: { operationId: 'list', responses: { '200': { description: 'ok', content: { 'application/json': { schema: schema(props) } } } } } } } });
    const review = compareSpecs(doc(['a', 'b', 'c']), doc(['a', 'c']));
    expect(review.breaking.map((b) => [b.id, b.side, b.pointer])).toEqual([['response-required-property-removed', 'base', '/paths/~1items/get/responses/200/content/application~1json/schema/properties/b']]);
    // Line 17 is `c:`, where `b` was; line 15 (`properties:`) and 16 (`a:`) did not change.
    expect(renderAnnotations(review, createLocator(file, dir, { base: doc(['a', 'b', 'c']) }), 'openapi.yaml')).toMatch(/^::error file=removal\/openapi\.yaml,line=17,/);
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
