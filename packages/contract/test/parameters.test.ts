/**
 * operationParameters follows OpenAPI 3.1, Path Item Object, `parameters`: "These parameters can be
 * overridden at the operation level, but cannot be removed there" (a parameter is identified by
 * its name and location). The contract has no overridden parameter today; these cases are the rule.
 */
import { describe, expect, it } from 'vitest';
import { lookupRef, operationParameters, type OpenApiDocument, type OpenApiParameter } from '../src/index.js';

const pathLevel: OpenApiParameter = { name: 'mind_id', in: 'path', required: true, schema: { type: 'string' } };
const sameNameInQuery: OpenApiParameter = { name: 'mind_id', in: 'query', schema: { type: 'string' } };
const redefined: OpenApiParameter = { name: 'mind_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

describe('operationParameters (OpenAPI 3.1 Path Item Object: path-level parameters "can be overridden at the operation level")', () => {
  it("keeps the path item's parameters the operation does not redefine, before its own", () => {
    expect(operationParameters({ parameters: [pathLevel] }, { operationId: 'x', responses: {}, parameters: [sameNameInQuery] })).toEqual([pathLevel, sameNameInQuery]);
  });

  it('takes the operation’s definition where it redefines one by name and location', () => {
    expect(operationParameters({ parameters: [pathLevel] }, { operationId: 'x', responses: {}, parameters: [redefined] })).toEqual([redefined]);
  });

  it('resolves $refs before comparing, when given a resolver', () => {
    const doc = { components: { parameters: { Mind: redefined } } } as unknown as OpenApiDocument;
    const resolve = (p: OpenApiParameter) => (p.$ref ? (lookupRef(doc, p.$ref) as OpenApiParameter) : p);
    const byRef = { $ref: '#/components/parameters/Mind' } as OpenApiParameter;
    expect(operationParameters({ parameters: [pathLevel] }, { operationId: 'x', responses: {}, parameters: [byRef] }, resolve)).toEqual([redefined]);
  });
});
