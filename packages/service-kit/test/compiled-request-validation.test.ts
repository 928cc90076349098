/**
 * Keywords written beside a parameter schema's `$ref` apply together with the referenced schema's
 * (JSON Schema 2020-12, §8.2.3.1: `$ref` is an applicator, its siblings are evaluated too; OpenAPI
 * 3.1 uses that dialect). express-openapi-validator is given them as `allOf` (service-app.ts); the
 * compiled validators merge the two into one schema, which is the same only where no keyword is on
 * both sides: there the request must be left to the validator.
 */
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '@gateway-minds/contract';
import { compileRequestValidation } from '../src/compiled-request-validation.js';

function documentWith(codeSchema: Record<string, unknown>): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'beside a $ref', version: '1' },
    paths: {
      '/things': {
        get: { operationId: 'things_list', parameters: [{ name: 'code', in: 'query', required: true, schema: codeSchema }], responses: { '200': { description: 'ok' } } },
      },
    },
    components: { schemas: { ShortCode: { type: 'string', maxLength: 3 } } },
  } as unknown as OpenApiDocument;
}

const request = (code: string) => ({ originalUrl: `/things?code=${code}`, query: { code }, headers: {}, body: undefined }) as unknown as Request;

describe('a parameter schema with keywords beside its $ref, in the compiled validators', () => {
  it('applies a keyword the referenced schema lacks together with it', () => {
    const validation = compileRequestValidation(documentWith({ $ref: '#/components/schemas/ShortCode', pattern: '^[a-z]+$' }));
    expect(validation.accepts(request('abc'), 'things_list', {})).toBe(true);
    expect(validation.accepts(request('ab1'), 'things_list', {})).toBe(false);
    expect(validation.accepts(request('abcd'), 'things_list', {})).toBe(false);
    expect(validation.counts).toEqual({ accepted: 1, handedOn: 2 });
  });

  it('leaves to the validator a parameter whose keyword is on both sides (a merge would keep only the outer maxLength)', () => {
    const validation = compileRequestValidation(documentWith({ $ref: '#/components/schemas/ShortCode', maxLength: 10 }));
    expect(validation.accepts(request('abcd'), 'things_list', {})).toBe(false);
    expect(validation.accepts(request('ab'), 'things_list', {})).toBe(false);
    expect(validation.counts).toEqual({ accepted: 0, handedOn: 2 });
  });
});
