/**
 * Values from JSON Schema: valid ones (fast-check arbitraries built from the
 * schema's own keywords) and the small helpers the mutations share (lengths
 * in code points as JSON Schema counts them, UTF-8 bytes, JSON text with raw
 * number tokens JSON.stringify cannot write).
 */
import fc from 'fast-check';
import { utf8ByteLength, type JsonSchema } from '@gateway-minds/contract';

export { utf8ByteLength };

/** JSON Schema's string length: Unicode code points, not UTF-16 units. */
export const codePoints = (value: string): number => [...value].length;

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'array' | 'object';

export function typesOf(schema: JsonSchema): JsonType[] {
  if (Array.isArray(schema.type)) return schema.type as JsonType[];
  if (typeof schema.type === 'string') return [schema.type as JsonType];
  if (schema.oneOf || schema.anyOf) return [...new Set(((schema.oneOf ?? schema.anyOf) as JsonSchema[]).flatMap(typesOf))];
  if ('const' in schema) return [jsonTypeOf(schema.const)];
  if (Array.isArray(schema.enum)) return [...new Set((schema.enum as unknown[]).map(jsonTypeOf))];
  return [];
}

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** A JSON number written as is (1e400, 9007199254740993, -0.0): JSON.stringify cannot write these. */
export class RawJson {
  constructor(readonly text: string) {}
  toJSON(): string {
    return `\u0001RAW${this.text}\u0001`;
  }
}

/** JSON text of a value that may contain RawJson tokens and own `__proto__` keys. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001RAW([^"\\]*)\\u0001"/g, '$1');
}

/** Sets an own property, even `__proto__`. */
export function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A deep copy that keeps own `__proto__` keys and RawJson tokens. */
export function copy<T>(value: T): T {
  if (value instanceof RawJson) return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) setKey(out, key, copy(entry));
    return out as T;
  }
  return value;
}

/**
 * Whether a string pattern describes free text (it accepts an ordinary sentence), as the
 * contract's "not only whitespace" and "no U+0000" patterns do, rather than an identifier's shape.
 * Judged by what the pattern accepts, so the suite copies no pattern from the spec.
 */
export function isFreeTextPattern(pattern: string | undefined): pattern is string {
  return pattern !== undefined && new RegExp(pattern, 'u').test('Free text, \u00e9 \u{1F600}!');
}

/** Whether a free-text pattern refuses text that is only whitespace. */
export function refusesWhitespaceOnly(pattern: string): boolean {
  return !new RegExp(pattern, 'u').test(' \t ');
}

/** Printable text without U+0000 (that one has its own test), within the schema's character and byte bounds. */
function textArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = Math.min((schema.maxLength as number | undefined) ?? 200, 200);
  const maxBytes = (schema['x-max-bytes'] as number | undefined) ?? Infinity;
  const minBytes = (schema['x-min-bytes'] as number | undefined) ?? 0;
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  return fc
    .string({ unit: fc.oneof({ weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) }), minLength: Math.max(minLength, 1), maxLength })
    .filter((s) => !s.includes('\u0000'))
    .filter((s) => codePoints(s) >= minLength && codePoints(s) <= ((schema.maxLength as number | undefined) ?? Infinity))
    .filter((s) => utf8ByteLength(s) <= maxBytes && utf8ByteLength(s) >= minBytes)
    .filter((s) => !pattern || pattern.test(s));
}

/** A valid value of a (dereferenced) schema. Covers the keywords this contract uses. */
export function validArbitrary(schema: JsonSchema): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.oneOf || schema.anyOf) return fc.oneof(...((schema.oneOf ?? schema.anyOf) as JsonSchema[]).map(validArbitrary));
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => validArbitrary({ ...schema, type })));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = (schema.minimum as number | undefined) ?? -1_000_000;
      const max = (schema.maximum as number | undefined) ?? 1_000_000;
      return fc.oneof(fc.constantFrom(min, max), fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) }));
    }
    case 'number':
      return fc.double({ min: (schema.minimum as number | undefined) ?? -1e6, max: (schema.maximum as number | undefined) ?? 1e6, noNaN: true });
    case 'string': {
      if (schema.format === 'date-time') {
        return fc
          .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
          .map((d) => d.toISOString());
      }
      if (typeof schema.pattern === 'string' && !isFreeTextPattern(schema.pattern)) {
        const maxLength = (schema.maxLength as number | undefined) ?? Infinity;
        const minLength = (schema.minLength as number | undefined) ?? 0;
        return fc
          .stringMatching(new RegExp(schema.pattern))
          .filter((s) => codePoints(s) >= minLength && codePoints(s) <= maxLength && !s.includes('\u0000'));
      }
      return textArbitrary(schema);
    }
    case 'array': {
      const items = (schema.items as JsonSchema | undefined) ?? {};
      const constraints = { minLength: (schema.minItems as number | undefined) ?? 0, maxLength: Math.min((schema.maxItems as number | undefined) ?? 5, 5) };
      return schema.uniqueItems
        ? fc.uniqueArray(validArbitrary(items), { ...constraints, selector: (v) => JSON.stringify(v) })
        : fc.array(validArbitrary(items), constraints);
    }
    case 'object': {
      const properties = (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
      const required = (schema.required as string[] | undefined) ?? [];
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, property] of Object.entries(properties)) model[key] = validArbitrary(property);
      return fc.record(model, { requiredKeys: required });
    }
    default:
      return fc.constant(null);
  }
}
