/**
 * Every named example in the spec is valid against its schema (including the
 * UTF-8 byte limits lint cannot check), every error example is consistent with
 * the catalog, and every body is closed.
 */
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../src/document-types.js';
import { deriveErrorCatalog } from '../scripts/derive.js';
import { bundled, createAjv, dereferenced, operationsOf } from './support/spec.js';

const ajv = createAjv();
const catalog = deriveErrorCatalog(bundled);
const requestIdExample = (bundled.components!.schemas!.RequestId as { examples: string[] }).examples[0];

interface ExampleCase {
  name: string;
  where: string;
  status: string | null;
  schema: JsonSchema;
  value: unknown;
}

const cases: ExampleCase[] = operationsOf(dereferenced).flatMap(({ operation }) => {
  const id = operation.operationId;
  const fromMedia = (where: string, status: string | null, media: { schema?: JsonSchema; examples?: Record<string, { value?: unknown }> } | undefined) =>
    Object.entries(media?.examples ?? {}).map(([name, example]) => ({ name, where: `${id} ${where}`, status, schema: media!.schema!, value: example.value }));
  return [
    ...fromMedia('request', null, operation.requestBody?.content?.['application/json']),
    ...Object.entries(operation.responses).flatMap(([status, response]) =>
      fromMedia(`response ${status}`, status, response.content?.['application/json']),
    ),
  ];
});

describe('named examples', () => {
  it('exist in quantity', () => {
    expect(cases.length).toBeGreaterThan(200);
  });

  it.each(cases.map((c) => [`${c.where} ${c.name}`, c] as const))('%s is valid against its schema', (_label, example) => {
    const validate = ajv.compile(example.schema);
    const valid = validate(example.value);
    expect(valid ? [] : validate.errors).toEqual([]);
  });

  it('every operation has a named example for its success response and for each error response', () => {
    for (const { operation } of operationsOf(dereferenced)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const examples = Object.keys(response.content?.['application/json']?.examples ?? {});
        expect(examples.length, `${operation.operationId} ${status}`).toBeGreaterThan(0);
      }
    }
  });
});

describe('error examples', () => {
  const errorCases = cases.filter((c) => c.status !== null && Number(c.status) >= 400);

  it.each(errorCases.map((c) => [`${c.where} ${c.name}`, c] as const))('%s agrees with the catalog', (_label, example) => {
    const error = (example.value as { error: Record<string, unknown> }).error;
    const code = String(error.code);
    const facts = catalog[code]!;
    expect(example.name === code || example.name.startsWith(`${code}_`), 'example named after its code').toBe(true);
    expect(String(facts.status), 'status').toBe(example.status);
    expect(error.type, 'type').toBe(facts.type);
    expect(error.docs_url, 'docs_url anchor').toMatch(new RegExp(`#${code}$`));
    for (const field of facts.fields) expect(error, `field ${field}`).toHaveProperty(field);
    // ErrorCode.yaml, x-reasons: "every `reason` the code is sent with"; a code without it never carries one.
    if (error.reason !== undefined) expect(Object.keys(facts.reasons), `reason ${String(error.reason)} listed for ${code}`).toContain(error.reason);
    // X-Request-Id.yaml: "the same as `request_id` in an error body". The Prism mock sends the header from
    // RequestId's schema example, so every example's body carries that one (DECISIONS "Example request ids").
    expect(error.request_id, 'request_id').toBe(requestIdExample);
  });

  it('the served catalog example lists each code\'s reasons as the catalog does (ErrorCatalogEntry, `reasons`)', () => {
    const served = operationsOf(dereferenced).find(({ operation }) => operation.operationId === 'gateway_listErrors')!.operation.responses['200']!.content!['application/json']!.examples!;
    const entries = Object.values(served).flatMap((example) => (example.value as { errors: { code: string; reasons: { reason: string; description: string }[] }[] }).errors);
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) expect(Object.fromEntries(entry.reasons.map((r) => [r.reason, r.description])), entry.code).toEqual(catalog[entry.code]!.reasons);
  });

  it('every 4xx and 5xx response uses the one envelope schema', () => {
    for (const { operation } of operationsOf(bundled)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const resolved = response.$ref
          ? bundled.components!.responses![response.$ref.split('/').at(-1)!]!
          : response;
        expect(resolved.content?.['application/json']?.schema, `${operation.operationId} ${status}`).toEqual({
          $ref: '#/components/schemas/ErrorEnvelope',
        });
      }
    }
  });

  it('every 429 response declares Retry-After', () => {
    for (const { operation } of operationsOf(dereferenced)) {
      const limited = operation.responses['429'];
      if (limited) expect(limited.headers, operation.operationId).toHaveProperty('Retry-After');
    }
  });
});

describe('closed bodies', () => {
  function openObjects(schema: JsonSchema, at: string, found: string[]): string[] {
    if (schema.properties && schema.additionalProperties !== false) found.push(at);
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties') {
        for (const [name, child] of Object.entries(value as Record<string, JsonSchema>)) openObjects(child, `${at}.${name}`, found);
      } else if (['items', 'additionalProperties'].includes(key) && value && typeof value === 'object') {
        openObjects(value as JsonSchema, `${at}.${key}`, found);
      } else if (['oneOf', 'anyOf', 'allOf'].includes(key)) {
        (value as JsonSchema[]).forEach((child, i) => openObjects(child, `${at}.${key}[${i}]`, found));
      }
    }
    return found;
  }

  it('every object in every request and response body has additionalProperties: false', () => {
    const open: string[] = [];
    for (const { operation } of operationsOf(dereferenced)) {
      const body = operation.requestBody?.content?.['application/json']?.schema;
      if (body) openObjects(body, `${operation.operationId} request`, open);
      for (const [status, response] of Object.entries(operation.responses)) {
        const schema = response.content?.['application/json']?.schema;
        if (schema) openObjects(schema, `${operation.operationId} ${status}`, open);
      }
    }
    expect(open).toEqual([]);
  });
});

describe('byte limits', () => {
  it('are enforced in UTF-8 bytes, not characters', () => {
    const validate = ajv.compile({ type: 'string', maxLength: 4, 'x-max-bytes': 4 });
    expect(validate('abcd')).toBe(true);
    expect(validate('ééé')).toBe(false); // 3 characters, 6 bytes
    const atLeastOne = ajv.compile({ type: 'string', minLength: 1, 'x-min-bytes': 1 });
    expect(atLeastOne('')).toBe(false);
  });
});

describe('dereference', () => {
  it('keeps keywords written beside a $ref', async () => {
    const { dereference } = await import('../src/dereference.js');
    const doc = dereference({ components: { schemas: { A: { type: 'string' }, B: { $ref: '#/components/schemas/A', description: 'beside' } } } });
    expect(doc.components.schemas.B).toEqual({ type: 'string', description: 'beside' });
  });
});
