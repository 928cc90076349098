/**
 * The bundled document against the interface: every operation with its method,
 * path, success status and credentials; every stated constraint; the 119 error
 * codes with their status and type.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveErrorCatalog, deriveOperationTable } from '../scripts/derive.js';
import { expectedConstraints, expectedOperations, noAutomaticRetryOperations, originalSessionOperations } from './fixtures/interface-expectations.js';
import interfaceErrorCodes from './fixtures/interface-error-codes.json' with { type: 'json' };
import { bundled, isRequiredAt, operationsOf, repoRoot, schemaAt } from './support/spec.js';

describe('operations', () => {
  const actual = operationsOf(bundled);

  it('are exactly the interface operations, no more and no fewer', () => {
    expect(actual.map((o) => o.operation.operationId).sort()).toEqual(expectedOperations.map((o) => o.operationId).sort());
    expect(actual.filter((o) => o.operation.operationId.startsWith('minds_'))).toHaveLength(21);
  });

  it.each(expectedOperations)('$operationId is $method $path answering $status', (expected) => {
    const found = actual.find((o) => o.operation.operationId === expected.operationId)!;
    expect({ method: found.method, path: found.path }).toEqual({ method: expected.method, path: expected.path });
    const success = Object.keys(found.operation.responses).filter((s) => s.startsWith('2'));
    expect(success).toEqual([String(expected.status)]);
  });

  it.each(expectedOperations)('$operationId accepts exactly the credentials the interface names', (expected) => {
    const found = actual.find((o) => o.operation.operationId === expected.operationId)!;
    const schemes = (found.operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
    expect(schemes.sort()).toEqual([...expected.credentials].sort());
  });

  it.each(expectedOperations)('$operationId needs the original session exactly where the interface says "original" (x-original-session)', (expected) => {
    const found = actual.find((o) => o.operation.operationId === expected.operationId)!;
    expect(found.operation['x-original-session'] === 'required').toBe(originalSessionOperations.includes(expected.operationId));
  });

  it.each(expectedOperations)('$operationId is retried by clients only where the interface allows it (x-automatic-retry)', (expected) => {
    const facts = deriveOperationTable(bundled)[expected.operationId]!;
    expect(facts.automaticRetry).toBe(facts.readOnly && !noAutomaticRetryOperations.includes(expected.operationId));
  });

  it('the usage route needs platform.usage.read', () => {
    const usage = actual.find((o) => o.operation.operationId === 'gateway_getUsage')!;
    expect(usage.operation.security).toEqual([{ bridgeSession: ['platform.usage.read'] }]);
  });
});

describe('constraints stated by the interface', () => {
  it.each(expectedConstraints.map((c) => [`${c.operationId} ${c.location}`, c] as const))('%s', (_name, constraint) => {
    const schema = schemaAt(constraint.operationId, constraint.location);
    const { expect: want } = constraint;
    const types = ([] as unknown[]).concat(schema.type ?? []);
    const alternatives = (schema.oneOf ?? schema.anyOf ?? []) as Record<string, unknown>[];
    const nonNull = alternatives.find((a) => a.type !== 'null') ?? schema;
    const keyword = (name: string) => schema[name] ?? nonNull[name];

    if (want.type !== undefined) expect(types.length ? types : [nonNull.type]).toContain(want.type);
    for (const name of ['pattern', 'const', 'minimum', 'maximum', 'minLength', 'maxLength', 'default', 'format'] as const) {
      if (want[name] !== undefined) expect(keyword(name), name).toEqual(want[name]);
    }
    if (want.enum !== undefined) {
      const values = (keyword('enum') as unknown[]).filter((v) => v !== null);
      expect(values.sort()).toEqual([...want.enum].sort());
    }
    if (want.maxBytes !== undefined) {
      expect(keyword('x-max-bytes')).toBe(want.maxBytes);
      expect(keyword('maxLength')).toBe(want.maxBytes);
    }
    if (want.minBytes !== undefined) {
      expect(keyword('x-min-bytes')).toBe(want.minBytes);
      expect(keyword('minLength')).toBe(want.minBytes);
    }
    if (want.notOnlyWhitespace) {
      // The pattern is judged by what it accepts: not only whitespace (the interface), and no
      // U+0000 (DECISIONS.md "Text that cannot be stored as sent").
      const pattern = new RegExp(keyword('pattern') as string, 'u');
      expect(['x', ' a b ', '\u00e9'].map((text) => pattern.test(text)), 'accepts text with a non-space').toEqual([true, true, true]);
      expect(['', ' ', ' \t\n ', 'a\u0000b', '\u0000'].map((text) => pattern.test(text)), 'refuses whitespace only or U+0000').toEqual([false, false, false, false, false]);
    }
    if (want.nullable !== undefined) {
      const nullable = types.includes('null') || alternatives.some((a) => a.type === 'null') || (schema.enum as unknown[] | undefined)?.includes(null) === true;
      expect(nullable, 'nullable').toBe(want.nullable);
    }
    if (want.closed) expect(schema.additionalProperties ?? nonNull.additionalProperties).toBe(false);
    if (want.required !== undefined) {
      const required = constraint.location.split('.').length === 2 && ['query', 'header', 'path'].includes(constraint.location.split('.')[0]!)
        ? schema['x-required']
        : isRequiredAt(constraint.operationId, constraint.location);
      expect(required, 'required').toBe(want.required);
    }
  });
});

describe('error codes', () => {
  const catalog = deriveErrorCatalog(bundled);

  it('are the interface codes, each with its status and type', () => {
    const actual = Object.entries(catalog).map(([code, facts]) => ({ code, status: facts.status, type: facts.type }));
    const expected = interfaceErrorCodes.map(({ code, status, type }) => ({ code, status, type }));
    expect(actual).toEqual(expected);
    expect(actual).toHaveLength(119);
  });

  it('each carries the interface meaning as its description', () => {
    for (const { code, meaning } of interfaceErrorCodes) expect(catalog[code]?.description, code).toBe(meaning);
  });

  it('Retry-After comes with RATE_LIMITED and SERVICE_DISABLED, required_scope with SCOPE_MISSING', () => {
    expect(Object.keys(catalog).filter((code) => catalog[code]!.retryAfter).sort()).toEqual(['RATE_LIMITED', 'SERVICE_DISABLED']);
    expect(catalog.SCOPE_MISSING!.fields).toEqual(['required_scope']);
  });

  it('a relay error carries a reason (Errors: "`reason` and `layer` (on relay errors)"), and the gateway\'s own relay errors list theirs', () => {
    for (const code of ['UPSTREAM_UNREACHABLE', 'UPSTREAM_TIMEOUT', 'BAD_GATEWAY']) {
      expect(catalog[code]!.fields, code).toEqual(['reason', 'layer']);
      expect(Object.keys(catalog[code]!.reasons).length, code).toBeGreaterThan(0);
    }
  });

  // DECISIONS "Error reasons": a listed reason is one the Error schema admits, with its meaning.
  it.each([
    ['a reason that is not snake_case', { NotFound: 'x' }, /reason NotFound does not match the Error schema's `reason`/],
    ['a reason longer than the envelope admits', { ['a'.repeat(65)]: 'x' }, /does not match the Error schema's `reason` \(.*, at most 64 characters\)/],
    ['a reason without a meaning', { mind_not_found: ' ' }, /needs a description/],
  ])('the build refuses %s', (_name, reasons, message) => {
    const entry = { const: 'NOT_FOUND', description: 'not found', 'x-status': 404, 'x-type': 'not_found', 'x-reasons': reasons };
    const schemas = { ...bundled.components!.schemas, ErrorCode: { oneOf: [entry] } };
    expect(() => deriveErrorCatalog({ ...bundled, components: { ...bundled.components, schemas } } as typeof bundled)).toThrow(message);
  });

  // The fixture above is a transcription; when the interface itself sits
  // beside the repository (as it does in CI), check the transcription too.
  const seed = join(repoRoot, '../shared/seed/gateway-minds-interface.md');
  it.runIf(existsSync(seed))('the fixture matches the interface document', () => {
    const table = readFileSync(seed, 'utf8').split('| Code | Status | Type | Meaning |')[1]!.split('## Limits')[0]!;
    const rows = [...table.matchAll(/^\| ([A-Z0-9_]+) \| (\d{3}) \| ([a-z_]+) \| (.*) \|$/gm)].map((m) => ({
      code: m[1],
      status: Number(m[2]),
      type: m[3],
      meaning: m[4],
    }));
    expect(rows).toEqual(interfaceErrorCodes);
  });
});
