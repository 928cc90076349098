/**
 * UTF-8 byte limits. JSON Schema bounds strings in characters; the interface
 * bounds some in UTF-8 bytes. The spec writes both: `maxLength` (a necessary
 * character bound) and `x-max-bytes` / `x-min-bytes`, defined here as Ajv
 * keywords so that every validator in the repository enforces the same rule.
 * Browser-safe: TextEncoder, no Buffer.
 */
const encoder = new TextEncoder();

export function utf8ByteLength(value: string): number {
  return encoder.encode(value).length;
}

/** Keyword definitions in Ajv's `KeywordDefinition` shape (no Ajv import needed). */
export const byteLimitKeywords = [
  {
    keyword: 'x-max-bytes',
    type: 'string',
    schemaType: 'number',
    errors: false,
    validate: (limit: number, data: string) => utf8ByteLength(data) <= limit,
  },
  {
    keyword: 'x-min-bytes',
    type: 'string',
    schemaType: 'number',
    errors: false,
    validate: (limit: number, data: string) => utf8ByteLength(data) >= limit,
  },
] as const;
