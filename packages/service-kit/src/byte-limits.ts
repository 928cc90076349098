/**
 * Enforces the contract's `x-max-bytes` / `x-min-bytes` on a request body.
 * express-openapi-validator has no hook for custom Ajv keywords, so the
 * limits are checked after it, against the same (dereferenced) schema.
 */
import { utf8ByteLength, type JsonSchema } from '@gateway-minds/contract';
import type { ValidationIssue } from './errors.js';

export function byteLimitViolations(schema: JsonSchema | undefined, value: unknown, location = 'body'): ValidationIssue[] {
  if (!schema || value === undefined || value === null) return [];
  const issues: ValidationIssue[] = [];
  if (typeof value === 'string') {
    const bytes = utf8ByteLength(value);
    const max = schema['x-max-bytes'];
    const min = schema['x-min-bytes'];
    if (typeof max === 'number' && bytes > max) issues.push({ location, message: `must be at most ${max} UTF-8 bytes (is ${bytes})` });
    if (typeof min === 'number' && bytes < min) issues.push({ location, message: `must be at least ${min} UTF-8 bytes (is ${bytes})` });
  }
  for (const branch of [...((schema.oneOf as JsonSchema[]) ?? []), ...((schema.anyOf as JsonSchema[]) ?? []), ...((schema.allOf as JsonSchema[]) ?? [])]) {
    issues.push(...byteLimitViolations(branch, value, location));
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, i) => issues.push(...byteLimitViolations(schema.items as JsonSchema, item, `${location}[${i}]`)));
  } else if (typeof value === 'object' && schema.properties) {
    for (const [name, child] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
      issues.push(...byteLimitViolations(child, (value as Record<string, unknown>)[name], `${location}.${name}`));
    }
  }
  return issues;
}

/** Whether a schema (or anything inside it) declares a byte limit: skip the walk for bodies that cannot violate one. */
export function hasByteLimits(schema: JsonSchema | undefined, seen = new Set<object>()): boolean {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return false;
  seen.add(schema);
  if ('x-max-bytes' in schema || 'x-min-bytes' in schema) return true;
  return Object.values(schema).some((child) =>
    Array.isArray(child) ? child.some((c) => hasByteLimits(c as JsonSchema, seen)) : hasByteLimits(child as JsonSchema, seen),
  );
}
