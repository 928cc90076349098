import { describe, expect, it } from 'vitest';
import { dereference, pruneUnreachableComponents, type OpenApiDocument } from '../src/index.js';

const ref = (to: string) => ({ $ref: `#/components/${to}` });

function sample(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/a': { get: { operationId: 'a', parameters: [ref('parameters/Limit')], responses: { '200': ref('responses/Ok') } } },
    },
    components: {
      parameters: { Limit: { name: 'limit', in: 'query', schema: ref('schemas/Count') }, Unused: { name: 'x', in: 'query' } },
      responses: { Ok: { description: 'ok', content: { 'application/json': { schema: ref('schemas/Page') } } } },
      schemas: {
        Page: { type: 'object', properties: { items: { type: 'array', items: ref('schemas/Node') } } },
        Node: { type: 'object', properties: { child: ref('schemas/Node'), 'a/b': ref('schemas/a~1b') } },
        'a/b': { type: 'string' },
        Count: { type: 'integer' },
        Orphan: { type: 'object', properties: { page: ref('schemas/Page') } },
      },
      securitySchemes: { key: { type: 'http', scheme: 'bearer' } },
    },
  } as unknown as OpenApiDocument;
}

describe('pruneUnreachableComponents', () => {
  it('keeps what the paths reach, through other components and cycles, and drops the rest', () => {
    const document = sample();
    pruneUnreachableComponents(document);
    const components = document.components as Record<string, Record<string, unknown>>;
    expect(Object.keys(components.schemas!).sort()).toEqual(['Count', 'Node', 'Page', 'a/b']);
    expect(Object.keys(components.parameters!)).toEqual(['Limit']);
    expect(Object.keys(components.responses!)).toEqual(['Ok']);
    expect(Object.keys(components.securitySchemes!)).toEqual(['key']);
    // What is left still resolves.
    expect(() => dereference(document)).not.toThrow();
  });
});
