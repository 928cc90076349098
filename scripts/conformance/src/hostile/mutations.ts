/**
 * Hostile requests from the contract: for an operation, fast-check arbitraries
 * of requests that are valid except for ONE broken constraint, each with the
 * code spec/DECISIONS.md documents for that place ("Which code for a
 * validation failure"):
 *
 *   body (shape, types, patterns, bounds, UTF-8 byte limits, unknown fields)  INVALID_ARGUMENT
 *   malformed JSON                                                            INVALID_ARGUMENT
 *   a query parameter                                                         INVALID_QUERY
 *   a path identifier                                                         INVALID_IDENTIFIER
 *   a header                                                                  BAD_REQUEST (x-missing-code when missing, its schema's x-invalid-code when invalid)
 *   not application/json, or no body where one is required                  JSON_REQUIRED
 *   a body over 64 KiB                                                        PAYLOAD_TOO_LARGE
 *   a body on an operation that takes none                                    BODY_NOT_ALLOWED
 *   a query on an operation that takes none                                   QUERY_NOT_ALLOWED
 *   the org usage read's own rule                                             INVALID_ORG_READ
 *   the gateway's path and query limits                                       PATH_INVALID, QUERY_TOO_LONG
 *
 * Every generated body is checked against the schema (Ajv 2020, full formats,
 * the byte-limit keywords) before it is used, so a mutation that happens to
 * be valid is dropped rather than sent with a wrong expectation.
 */
import fc from 'fast-check';
import { fastFormats } from 'ajv-formats/dist/formats.js';
import { isJsonContentType, type ErrorCode, type JsonSchema } from '@gateway-minds/contract';
import { encodeQuery, render, validParts, type Fixture, type HostileCase, type RequestParts } from './requests.js';
import { literalSegments, schemaErrors, type OperationSpec, type ParameterSpec } from './spec.js';
import { codePoints, copy, isFreeTextPattern, jsonText, RawJson, refusesWhitespaceOnly, setKey, typesOf, utf8ByteLength, validArbitrary, type JsonType } from './values.js';

/** 64 KiB: the contract's body limit (spec/DECISIONS.md, "Per-operation body limits"). */
export const BODY_LIMIT = 64 * 1024;
/** The interface's limits table: query string and path, at most 8192 characters. */
export const URL_PART_LIMIT = 8192;

/** Characters that break identifiers and patterns: look-alikes, bidi controls, zero-width, combining, astral. */
const HOSTILE_CHARS = [
  'g', 'z', 'G', 'Z', 'I', 'L', 'O', 'U', 'i', 'l', 'o', 'u', '-', '_', ' ', '+', '.', '~', '!', '*', "'", '"', '<', '>', '{', '}', '|', '^', '`', '%', '#', '?', '&', '=', ':', '@', ',', ';',
  '\u00e9', '\u00df', '\u00ff', '\u0130', '\ufb01', '\u200f', '\u202e', '\u200b', '\u200d', '\ufeff', '\u00a0', '\uff11', '\u0663', '\u0301', '\u0430', '\u2028',
  '\u{1F600}', '\u{1F469}\u200d\u{1F469}\u200d\u{1F467}', '\u{10FFFF}', '\ud800', '\udfff', '\u0000', '\u0007', '\t', '\n',
];
/** Unicode whitespace, which JSON Schema's `\S` (ECMAScript regex) does not count as content. */
const WHITESPACE = [' ', '\t', '\n', '\r', '\u000b', '\u000c', '\u00a0', '\u1680', '\u2000', '\u2003', '\u2009', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
/** Multi-byte characters: 2, 3 and 4 UTF-8 bytes, one code point each. */
const MULTIBYTE = ['\u00e9', '\u00df', '\u20ac', '\u4e2d', '\u05d0', '\u0634', '\u{1F600}', '\u{1F331}', '\u{10348}'];

export type Context = 'body' | 'query' | 'path' | 'header';

const hasLoneSurrogate = (s: string): boolean => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
/** What can travel in each place at all: a header value is Latin-1 without controls; a URL part is encoded UTF-8. */
const fits: Record<Context, (s: string) => boolean> = {
  body: () => true,
  query: (s) => !hasLoneSurrogate(s),
  path: (s) => !hasLoneSurrogate(s) && !/[/\\\u0000-\u001f\u007f]/.test(s) && s !== '.' && s !== '..' && !literalSegments.has(s) && s.length > 0,
  header: (s) => /^[\x21-\x7e\x80-\xff]([\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?$/.test(s),
};

const fastFormat = fastFormats['date-time'] as RegExp | { validate: RegExp | ((s: string) => boolean) };
const fastDateTime = (s: string): boolean => {
  const check = fastFormat instanceof RegExp ? fastFormat : fastFormat.validate;
  return check instanceof RegExp ? check.test(s) : check(s);
};
const dateTimeSchema: JsonSchema = { type: 'string', format: 'date-time' };
/** Invalid as a date-time both for ajv-formats' fast mode (the servers) and its full mode. */
const invalidDateTime = (s: string): boolean => !fastDateTime(s) && schemaErrors(dateTimeSchema, s).length > 0;

interface Replacement {
  kind: string;
  value: fc.Arbitrary<unknown>;
}

function replaceAt(value: string, index: number, char: string): string {
  const points = [...value];
  points[index % points.length] = char;
  return points.join('');
}

/** Strings that break one string constraint of the schema and can travel in `context`. */
function stringViolations(schema: JsonSchema, context: Context): Replacement[] {
  const out: Replacement[] = [];
  const minLength = schema.minLength as number | undefined;
  const maxLength = schema.maxLength as number | undefined;
  const maxBytes = schema['x-max-bytes'] as number | undefined;
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
  const structured = pattern !== undefined && !isFreeTextPattern(pattern);
  const valid = validArbitrary(schema) as fc.Arbitrary<string>;
  const usable = (s: string) => fits[context](s);

  // A header cannot carry '' apart from sending it empty, which headerArbitraries does on its own:
  // below a minimum of 1 there is nothing else to send (a filter that never passes would spin forever).
  if (minLength && minLength > 0 && (context !== 'header' || (structured && minLength > 1))) {
    const shorter = structured
      ? fc.tuple(valid, fc.nat()).map(([s, n]) => [...s].slice(0, n % minLength).join(''))
      : fc.constant('');
    out.push({ kind: 'min-length', value: shorter.filter((s) => codePoints(s) < minLength && usable(s)) });
  }
  if (maxLength !== undefined && schema.format !== 'date-time') {
    const longer = structured
      ? fc.tuple(valid, valid).map(([a, b]) => {
          // Counted as it grows, not counted again whole at each step (quadratic in maxLength).
          const unit = b || 'a';
          const unitLength = codePoints(unit);
          let s = a;
          for (let length = codePoints(a); length <= maxLength; length += unitLength) s += unit;
          return s;
        })
      : fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom('a', 'Z', '0', 'x y', 'k')).map(([extra, unit]) => unit.repeat(Math.ceil((maxLength + extra) / unit.length)));
    out.push({ kind: 'max-length', value: longer.filter((s) => codePoints(s) > maxLength && usable(s)) });
  }
  if (structured) {
    const re = new RegExp(pattern, 'u');
    const corrupted = fc.oneof(
      fc.tuple(valid, fc.nat(), fc.constantFrom(...HOSTILE_CHARS)).map(([s, i, c]) => replaceAt(s, i, c)),
      fc.tuple(valid, fc.constantFrom(...HOSTILE_CHARS), fc.boolean()).map(([s, c, before]) => (before ? c + s : s + c)),
      valid.map((s) => s.toUpperCase()),
      valid.map((s) => s.toLowerCase()),
      fc.tuple(valid, fc.nat()).map(([s, i]) => replaceAt(s, i, [...s][(i + 7) % codePoints(s)] === '-' ? 'a' : '-')),
    );
    out.push({
      kind: 'pattern',
      value: corrupted.filter((s) => !re.test(s) && codePoints(s) >= (minLength ?? 0) && codePoints(s) <= (maxLength ?? Infinity) && usable(s)),
    });
  }
  if (isFreeTextPattern(pattern) && refusesWhitespaceOnly(pattern)) {
    const max = Math.min(maxLength ?? 20, 20);
    out.push({
      kind: 'whitespace-only',
      value: fc
        .array(fc.constantFrom(...WHITESPACE), { minLength: Math.max(minLength ?? 1, 1), maxLength: max })
        .map((chars) => chars.join(''))
        .filter((s) => utf8ByteLength(s) <= (maxBytes ?? Infinity) && usable(s)),
    });
  }
  if (schema.format === 'date-time') {
    const curated = ['yesterday', '2026-11-21', '12:00:00Z', '2026-11-21T12:00:00', '2026-11-21 12:00', '2026/11/21T12:00:00Z', '21.11.2026 12:00', '1763726400', '2026-11-21T12:00Z', '2026-W47-5T12:00:00Z', 'T', ' ', '2026-11-21T12:00:00\u200fZ', '\u0662\u0660\u0662\u0666-11-21T12:00:00Z'];
    const corrupted = fc
      .tuple(validArbitrary(schema) as fc.Arbitrary<string>, fc.nat(), fc.constantFrom('x', ' ', '/', '.', '', '\u00e9', '\u{1F600}', '+'))
      .map(([s, i, c]) => {
        const points = [...s];
        points.splice(i % points.length, 1, ...(c ? [c] : []));
        return points.join('');
      });
    out.push({ kind: 'format', value: fc.oneof(fc.constantFrom(...curated), corrupted).filter((s) => invalidDateTime(s) && codePoints(s) <= (maxLength ?? Infinity) && usable(s)) });
    if (maxLength !== undefined) {
      out.push({
        kind: 'max-length',
        value: fc.integer({ min: 1, max: 20 }).map((extra) => `2026-11-21T12:00:00.${'1'.repeat(maxLength - 20 + extra)}Z`).filter(usable),
      });
    }
  }
  if (maxBytes !== undefined) {
    // Within the character bound, over the byte bound: the case JSON Schema alone would accept.
    const overBytes = fc
      .tuple(fc.constantFrom(...MULTIBYTE), fc.constantFrom(...MULTIBYTE), fc.integer({ min: 0, max: 3 }), fc.string({ unit: 'grapheme-ascii', maxLength: 3 }))
      .map(([a, b, extra, ascii]) => {
        const unit = a + b;
        const count = Math.floor(maxBytes / utf8ByteLength(unit)) + 1 + extra;
        return ascii + unit.repeat(count);
      })
      .filter((s) => utf8ByteLength(s) > maxBytes && codePoints(s) <= (maxLength ?? Infinity) && usable(s));
    out.push({ kind: 'max-bytes', value: overBytes });
  }
  if (Array.isArray(schema.enum) || 'const' in schema) {
    const allowed = (Array.isArray(schema.enum) ? schema.enum : [schema.const]) as unknown[];
    const strings = allowed.filter((v): v is string => typeof v === 'string');
    const variants = fc.oneof(
      fc.constantFrom(...strings).map((s) => s.toUpperCase()),
      fc.constantFrom(...strings).map((s) => s.toLowerCase()),
      fc.constantFrom(...strings).map((s) => ` ${s}`),
      fc.constantFrom(...strings).map((s) => `${s}\u200b`),
      fc.constantFrom(...strings).map((s) => s.slice(0, -1)),
      fc.string({ minLength: 0, maxLength: 12 }),
    );
    out.push({ kind: 'enum', value: variants.filter((s) => !allowed.includes(s) && usable(s)) });
  }
  return out;
}

function numberText(n: bigint): unknown {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : new RawJson(n.toString());
}

/** Numbers that break one numeric constraint (bounds, integrality), as JSON values. */
function numberViolations(schema: JsonSchema): Replacement[] {
  const out: Replacement[] = [];
  const min = schema.minimum as number | undefined;
  const max = schema.maximum as number | undefined;
  if (min !== undefined) {
    out.push({ kind: 'below-minimum', value: fc.oneof(fc.constant(numberText(BigInt(min) - 1n)), fc.bigInt({ min: BigInt(min) - 10n ** 12n, max: BigInt(min) - 1n }).map(numberText)) });
  }
  if (max !== undefined) {
    out.push({
      kind: 'above-maximum',
      value: fc.oneof(fc.constant(numberText(BigInt(max) + 1n)), fc.bigInt({ min: BigInt(max) + 1n, max: BigInt(max) + 10n ** 20n }).map(numberText), fc.constant(new RawJson('1e400'))),
    });
  }
  if (typesOf(schema).includes('integer') && !typesOf(schema).includes('number')) {
    const lo = min ?? -1000;
    const hi = Math.min(max ?? 1000, lo + 1000);
    out.push({
      kind: 'not-integer',
      value: fc.oneof(
        fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
        fc.constantFrom(new RawJson(`${lo}.5`), new RawJson('2.5e-1'), new RawJson('1e-7')),
      ),
    });
  }
  return out;
}

/** Query and path values are strings on the wire: the strings that are not a valid integer of the schema. */
function integerStringViolations(schema: JsonSchema, context: Context): Replacement[] {
  const min = (schema.minimum as number | undefined) ?? -Infinity;
  const max = (schema.maximum as number | undefined) ?? Infinity;
  // The servers coerce query strings to numbers as Ajv does (+s == s): ' 5', '0x5' and '5e0' would pass.
  const allowed = Array.isArray(schema.enum) ? (schema.enum as number[]) : undefined;
  const coercesToValid = (s: string) =>
    s.trim() !== '' && Number.isInteger(Number(s)) && Number(s) >= min && Number(s) <= max && (!allowed || allowed.includes(Number(s)));
  const value = fc
    .oneof(
      fc.constantFrom('abc', '1.5', 'NaN', 'true', 'null', '[]', '{}', '\u0661', '\uff11', '1,5', '--1', '\u{1F600}', '8', '31', '0', '-7', '1e3'),
      fc.integer({ min: Number.isFinite(max) ? max + 1 : 0, max: Number.isFinite(max) ? max + 10_000 : 0 }).map(String),
      fc.integer({ min: Number.isFinite(min) ? min - 10_000 : 0, max: Number.isFinite(min) ? min - 1 : 0 }).map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1000, max: 1000 }).filter((n) => !Number.isInteger(n)).map(String),
    )
    // Strings that coerce to ±Infinity ('Infinity', '1e400') answer 500 today: they are in the edges test (KNOWN DEFECT).
    .filter((s) => !coercesToValid(s) && Number(s) !== Infinity && Number(s) !== -Infinity && fits[context](s));
  return [{ kind: 'not-integer', value }];
}

const wrongTypeValues: Record<JsonType, fc.Arbitrary<unknown>> = {
  string: fc.string({ maxLength: 10 }),
  integer: fc.integer(),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
  boolean: fc.boolean(),
  null: fc.constant(null),
  array: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxLength: 3 }),
  object: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
};

function wrongTypes(schema: JsonSchema): Replacement[] {
  const allowed = typesOf(schema);
  if (allowed.length === 0) return [];
  const wrong = (Object.keys(wrongTypeValues) as JsonType[]).filter((type) => {
    if (allowed.includes(type)) return false;
    if (type === 'integer' && allowed.includes('number')) return false;
    return true;
  });
  return wrong.length ? [{ kind: 'wrong-type', value: fc.oneof(...wrong.map((type) => wrongTypeValues[type])) }] : [];
}

function arrayViolations(schema: JsonSchema): Replacement[] {
  const out: Replacement[] = [];
  const items = (schema.items as JsonSchema | undefined) ?? {};
  const maxItems = schema.maxItems as number | undefined;
  const minItems = schema.minItems as number | undefined;
  if (maxItems !== undefined) {
    out.push({ kind: 'max-items', value: fc.array(validArbitrary(items), { minLength: maxItems + 1, maxLength: maxItems + 3 }) });
  }
  if (minItems !== undefined && minItems > 0) out.push({ kind: 'min-items', value: fc.constant([]) });
  if (schema.uniqueItems) out.push({ kind: 'unique-items', value: validArbitrary(items).map((v) => [v, v]) });
  if (Array.isArray(schema.enum)) {
    const allowed = (schema.enum as unknown[]).map((v) => JSON.stringify(v));
    const values = Array.isArray(items.enum) ? (items.enum as unknown[]) : [];
    const candidates: unknown[][] = [];
    for (const a of values) {
      candidates.push([a]);
      for (const b of values) if (a !== b) candidates.push([a, b]);
    }
    const outside = candidates.filter((c) => !allowed.includes(JSON.stringify(c)));
    if (outside.length) out.push({ kind: 'enum', value: fc.constantFrom(...outside) });
  }
  return out;
}

/** Every way to break one constraint of a value of `schema` (other than leaving it out). */
export function invalidValues(schema: JsonSchema, context: Context): Replacement[] {
  const types = typesOf(schema);
  if (context !== 'body') {
    if (types.includes('integer') || types.includes('number')) return integerStringViolations(schema, context);
    return stringViolations(schema, context);
  }
  const out = wrongTypes(schema);
  if (types.includes('string')) out.push(...stringViolations(schema, context));
  if (types.includes('integer') || types.includes('number')) out.push(...numberViolations(schema));
  if (types.includes('array')) out.push(...arrayViolations(schema));
  return out;
}

interface Site {
  path: (string | number)[];
  schema: JsonSchema;
  required: boolean;
  present: boolean;
}

/** Every place of a body the schema constrains, with whether it is required and present in `value`. */
function collectSites(schema: JsonSchema, value: unknown, path: (string | number)[] = [], required = true, present = true, out: Site[] = []): Site[] {
  out.push({ path, schema, required, present });
  if (!present) return out;
  const alternatives = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (alternatives) {
    const branch = alternatives.find((b) => schemaErrors(b, value).length === 0);
    if (branch) collectSites(branch, value, path, required, present, out);
    return out;
  }
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties && value && typeof value === 'object' && !Array.isArray(value)) {
    const requiredKeys = (schema.required as string[] | undefined) ?? [];
    for (const [key, property] of Object.entries(properties)) {
      collectSites(property, (value as Record<string, unknown>)[key], [...path, key], requiredKeys.includes(key), Object.hasOwn(value, key), out);
    }
  }
  if (schema.items && Array.isArray(value) && value.length > 0) collectSites(schema.items as JsonSchema, value[0], [...path, 0], true, true, out);
  return out;
}

const REMOVE = Symbol('remove');

function withValueAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const out = copy(root) as Record<string, unknown>;
  let node: Record<string, unknown> = out;
  for (const key of path.slice(0, -1)) node = node[key as string] as Record<string, unknown>;
  const last = path[path.length - 1]!;
  if (value === REMOVE) delete node[last as string];
  else if (Array.isArray(node)) node[last as number] = value;
  else setKey(node, String(last), value);
  return out;
}

const pointer = (path: (string | number)[]) => `/${path.join('/')}`;

/** Keys no closed object of the contract has: look-alikes of real keys, prototype names, unicode. */
function extraKeys(properties: string[]): fc.Arbitrary<string> {
  const lookAlikes = properties.flatMap((p) => [p.toUpperCase(), `${p} `, ` ${p}`, `${p}\u200b`, p.replace(/[a-z]/, (c) => c.toUpperCase()), p.replace('e', '\u0435'), `${p}_`]);
  return fc
    .oneof(
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }),
      fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', 'organization_id', 'tenant', 'project_id', 'org', '$ref', 'id ', ...lookAlikes),
    )
    .filter((key) => !properties.includes(key));
}

/** Builds a case from the valid request of `operation` with `change` applied to its parts. */
function caseOf(
  operation: OperationSpec,
  fixture: Fixture,
  category: string,
  location: string,
  expected: ErrorCode[],
  change: (parts: RequestParts) => void,
): fc.Arbitrary<HostileCase> {
  return fc.uuid({ version: 4 }).map((fresh) => {
    const parts = validParts(operation, fixture, fresh);
    change(parts);
    return { operation: operation.id, category, location, request: render(operation, parts), expected };
  });
}

function bodyCase(operation: OperationSpec, fixture: Fixture, category: string, location: string, body: fc.Arbitrary<unknown>): fc.Arbitrary<HostileCase> {
  return fc
    .tuple(fc.uuid({ version: 4 }), body)
    .map(([fresh, value]) => {
      const parts = validParts(operation, fixture, fresh);
      parts.body = jsonText(value);
      const expected: ErrorCode[] = Buffer.byteLength(parts.body) > BODY_LIMIT ? ['PAYLOAD_TOO_LARGE'] : ['INVALID_ARGUMENT'];
      return { operation: operation.id, category, location, request: render(operation, parts), expected };
    })
    .filter((c) => c.expected[0] === 'PAYLOAD_TOO_LARGE' || schemaErrors(operation.body!, JSON.parse(c.request.body as string)).length > 0);
}

function bodyArbitraries(operation: OperationSpec, fixture: Fixture): fc.Arbitrary<HostileCase>[] {
  const schema = operation.body!;
  // Every named example is a base: between them they reach both branches of a oneOf, nulls and optional fields.
  const bases = [fixture.body(operation), ...operation.examples.map((e) => copy(e))].filter((b, i, all) => all.findIndex((o) => jsonText(o) === jsonText(b)) === i);
  const out: fc.Arbitrary<HostileCase>[] = [];
  for (const base of bases) for (const site of collectSites(schema, base)) {
    const at = pointer(site.path);
    if (site.required && site.present && site.path.length > 0) {
      out.push(bodyCase(operation, fixture, 'body.missing-required', at, fc.constant(withValueAt(base, site.path, REMOVE))));
    }
    for (const replacement of invalidValues(site.schema, 'body')) {
      out.push(bodyCase(operation, fixture, `body.${replacement.kind}`, at, replacement.value.map((v) => withValueAt(base, site.path, v))));
    }
    const properties = site.schema.properties as Record<string, JsonSchema> | undefined;
    if (site.present && properties && site.schema.additionalProperties === false) {
      out.push(
        bodyCase(operation, fixture, 'body.unknown-field', at, fc.tuple(extraKeys(Object.keys(properties)), fc.jsonValue({ maxDepth: 1 })).map(([key, value]) => withValueAt(base, [...site.path, key], value))),
      );
    }
  }
  return out;
}

const MALFORMED = [
  "{'text':'a'}", '{"a":1,}', '{a:1}', '{"a":NaN}', '{"a":Infinity}', '{"a":undefined}', '//c\n{}', '/*c*/{}', '{"a":"\u0001"}', '{"a":"\\x41"}', '{"a":"\\u12"}',
  '{"a":01}', '{"a":.5}', '{"a":+1}', '{"a":0x10}', '{"a":"b"}}', '{}{}', '{"a":"b"', '{"a" "b"}', '{"a":"b",,"c":1}', '[1,]', '{"\\ud800":}', '\u0000{}', '{"a":tru}', '{"a":nul}',
  '{"a":"\\q"}', '{"a":1 2}', '{,}', '{"a":"\n"}', ']', '{"a":-}', '{"a":1e}', '{"a":"\\uZZZZ"}',
];

function malformedArbitrary(operation: OperationSpec, fixture: Fixture): fc.Arbitrary<HostileCase> {
  const text = jsonText(fixture.body(operation));
  const broken = fc
    .oneof(
      fc.integer({ min: 1, max: text.length - 1 }).map((i) => text.slice(0, i)),
      fc.tuple(fc.integer({ min: 0, max: text.length }), fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', "'", '\u0001', 'x', 'NaN', '//', '/*', '\u0000'))
        .map(([i, c]) => text.slice(0, i) + c + text.slice(i)),
      fc.integer({ min: 0, max: text.length - 1 }).map((i) => text.slice(0, i) + text.slice(i + 1)),
      fc.constantFrom(...MALFORMED),
    )
    .filter((candidate) => {
      if (candidate.trim() === '') return false;
      try {
        JSON.parse(candidate);
        return false;
      } catch {
        return true;
      }
    });
  const notAnObject = fc.oneof(fc.constantFrom('[]', '[1]', '"x"', '1', 'null', 'true', `[${text}]`, `"${text.replace(/"/g, '\\"')}"`), fc.jsonValue({ maxDepth: 1 }).filter((v) => v === null || typeof v !== 'object' || Array.isArray(v)).map((v) => jsonText(v)));
  return fc.oneof(
    fc.tuple(fc.uuid({ version: 4 }), broken).map(([fresh, body]) => ({ ...malformedCase(operation, fixture, fresh, body), category: 'json.malformed' })),
    fc.tuple(fc.uuid({ version: 4 }), notAnObject).map(([fresh, body]) => ({ ...malformedCase(operation, fixture, fresh, body), category: 'json.not-an-object' })),
  );
}

function malformedCase(operation: OperationSpec, fixture: Fixture, fresh: string, body: string): HostileCase {
  const parts = validParts(operation, fixture, fresh);
  parts.body = body;
  return { operation: operation.id, category: 'json', location: 'body', request: render(operation, parts), expected: ['INVALID_ARGUMENT'] };
}

function contentTypeArbitrary(operation: OperationSpec, fixture: Fixture): fc.Arbitrary<HostileCase> {
  const curated = [
    'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'text/json', 'json', '*/*', 'application/*',
    'application/json-patch+json', 'application/merge-patch+json', 'application/problem+json', 'application/ld+json', 'application/vnd.api+json', 'application/jsonp',
    'application/json; charset=latin1', 'application/json; charset=utf-16', 'application/json; charset=iso-8859-1', 'APPLICATION/JSONX', 'application/octet-stream',
    'application/json, text/plain', 'text/html; charset=utf-8', 'application/javascript', '', 'application/ json',
  ];
  const type = fc
    .oneof(
      fc.constantFrom(...curated),
      fc.tuple(fc.stringMatching(/^[a-z]{1,10}$/), fc.stringMatching(/^[a-z0-9.+-]{1,15}$/)).map(([t, s]) => `${t}/${s}`),
    )
    // Left out: application/json with parameters other than a non-UTF-8 charset (the contract does not say).
    .filter((t) => !isJsonContentType(t) && (!/^application\/json\s*(;|$)/i.test(t.trim()) || /charset=(?!utf-8)/i.test(t)));
  return fc.oneof(
    fc.tuple(fc.uuid({ version: 4 }), type).map(([fresh, t]) => {
      const parts = validParts(operation, fixture, fresh);
      if (t === '') delete parts.headers['content-type'];
      else parts.headers['content-type'] = t;
      return { operation: operation.id, category: 'content-type.not-json', location: 'Content-Type', request: render(operation, parts), expected: ['JSON_REQUIRED'] as ErrorCode[] };
    }),
    caseOf(operation, fixture, 'content-type.no-body', 'body', ['JSON_REQUIRED'], (parts) => {
      parts.body = undefined;
    }),
    caseOf(operation, fixture, 'content-type.empty-body', 'body', ['JSON_REQUIRED'], (parts) => {
      parts.body = '';
    }),
  );
}

/** The base body padded with an extra string field to exactly `size` bytes (the extra field alone makes it invalid). */
function padded(base: string, size: number): string {
  const head = '{"pad":"';
  const glue = base === '{}' ? '"}' : '",' + base.slice(1);
  return head + 'x'.repeat(Math.max(0, size - head.length - glue.length)) + glue;
}

function oversizeArbitrary(operation: OperationSpec, fixture: Fixture): fc.Arbitrary<HostileCase> {
  const base = jsonText(fixture.body(operation));
  return fc.oneof(
    fc.tuple(fc.uuid({ version: 4 }), fc.integer({ min: BODY_LIMIT + 1, max: 4 * BODY_LIMIT }), fc.boolean(), fc.boolean()).map(([fresh, size, chunked, garbage]) => {
      const parts = validParts(operation, fixture, fresh);
      parts.body = garbage ? Buffer.alloc(size, 0x7b) : padded(base, size);
      parts.chunked = chunked;
      return { operation: operation.id, category: 'size.over-limit', location: `${size} bytes`, request: render(operation, parts), expected: ['PAYLOAD_TOO_LARGE'] as ErrorCode[] };
    }),
    // Both sides of the limit: 65536 bytes is read (and refused for its shape), 65537 is not.
    fc.tuple(fc.uuid({ version: 4 }), fc.constantFrom(BODY_LIMIT, BODY_LIMIT + 1), fc.boolean()).map(([fresh, size, chunked]) => {
      const parts = validParts(operation, fixture, fresh);
      parts.body = padded(base, size);
      parts.chunked = chunked;
      const expected: ErrorCode[] = size > BODY_LIMIT ? ['PAYLOAD_TOO_LARGE'] : ['INVALID_ARGUMENT'];
      return { operation: operation.id, category: 'size.boundary', location: `${size} bytes`, request: render(operation, parts), expected };
    }),
  );
}

function bodyOnReadArbitrary(operation: OperationSpec, fixture: Fixture, code: ErrorCode): fc.Arbitrary<HostileCase> {
  const body = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }).map((v) => jsonText(v)),
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.uint8Array({ minLength: 1, maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
  );
  return fc
    .tuple(fc.uuid({ version: 4 }), body, fc.constantFrom(undefined, 'application/json', 'text/plain', 'application/octet-stream'), fc.boolean())
    .map(([fresh, payload, type, chunked]) => {
      const parts = validParts(operation, fixture, fresh);
      parts.body = payload;
      parts.chunked = chunked;
      if (type) parts.headers['content-type'] = type;
      return { operation: operation.id, category: 'body.on-read', location: 'body', request: render(operation, parts), expected: [code] };
    })
    .filter((c) => Buffer.byteLength(c.request.body!) > 0);
}

function queryNotAllowedArbitrary(operation: OperationSpec, fixture: Fixture): fc.Arbitrary<HostileCase> {
  const query = fc.oneof(
    fc.array(fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })), { minLength: 1, maxLength: 3 }).map((pairs) => encodeQuery(pairs)),
    fc.array(fc.tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }), fc.string({ unit: 'grapheme', maxLength: 4 })), { minLength: 1, maxLength: 2 }).map((pairs) => encodeQuery(pairs)),
    fc.constantFrom('x', '=', '&', '&&', 'a=1&a=2', '%zz', 'a[b]=c', 'a[]=1', '__proto__[x]=1', 'mind=0b7e7a52-4d0b-4a61-9a43-6e8d1c2f3a4b', '=&=', ';', '%00', '+', '?', 'limit=20', 'days=30'),
  );
  return fc.tuple(fc.uuid({ version: 4 }), query).map(([fresh, q]) => {
    const parts = validParts(operation, fixture, fresh);
    parts.query = q;
    return { operation: operation.id, category: 'query.not-allowed', location: 'query', request: render(operation, parts), expected: ['QUERY_NOT_ALLOWED'] as ErrorCode[] };
  });
}

function queryArbitraries(operation: OperationSpec, fixture: Fixture): fc.Arbitrary<HostileCase>[] {
  const declared = operation.parameters.filter((p) => p.in === 'query');
  const names = new Set(declared.map((p) => p.name));
  const orgRead = operation.id === 'gateway_getUsage';
  // The org usage read refuses anything but days=7|30 and one service with its own code (spec/DECISIONS.md).
  const codeFor = (parameter: ParameterSpec | null, kind: string): ErrorCode[] =>
    orgRead && !(parameter?.name === 'service' && (kind === 'value' || kind === 'empty')) ? ['INVALID_ORG_READ'] : ['INVALID_QUERY'];
  const out: fc.Arbitrary<HostileCase>[] = [];
  const pairsOf = (parts: RequestParts): [string, string][] =>
    parts.query ? parts.query.split('&').map((pair) => pair.split('=').map(decodeURIComponent) as [string, string]) : [];

  for (const parameter of declared) {
    if (parameter.required) {
      out.push(caseOf(operation, fixture, 'query.missing-required', parameter.name, codeFor(parameter, 'missing'), (parts) => {
        parts.query = encodeQuery(pairsOf(parts).filter(([key]) => key !== parameter.name));
      }));
    }
    for (const replacement of invalidValues(parameter.schema, 'query')) {
      out.push(
        fc.tuple(fc.uuid({ version: 4 }), replacement.value as fc.Arbitrary<string>).map(([fresh, value]) => {
          const parts = validParts(operation, fixture, fresh);
          parts.query = encodeQuery([...pairsOf(parts).filter(([key]) => key !== parameter.name), [parameter.name, String(value)]]);
          return { operation: operation.id, category: `query.${replacement.kind}`, location: parameter.name, request: render(operation, parts), expected: codeFor(parameter, 'value') };
        }),
      );
    }
    const sample = fixture.queryValue(operation, parameter);
    const value = sample ?? (parameter.schema.type === 'integer' ? String((parameter.schema.minimum as number | undefined) ?? 1) : String((parameter.schema.enum as unknown[] | undefined)?.[0] ?? 'minds'));
    out.push(caseOf(operation, fixture, 'query.repeated', parameter.name, codeFor(parameter, 'repeated'), (parts) => {
      parts.query = encodeQuery([...pairsOf(parts).filter(([key]) => key !== parameter.name), [parameter.name, value], [parameter.name, value]]);
    }));
    out.push(
      fc.tuple(fc.uuid({ version: 4 }), fc.constantFrom('[]', '[0]', '[a]', '[b][c]')).map(([fresh, suffix]) => {
        const parts = validParts(operation, fixture, fresh);
        const rest = encodeQuery(pairsOf(parts).filter(([key]) => key !== parameter.name));
        parts.query = [rest, `${encodeURIComponent(parameter.name)}${suffix}=${encodeURIComponent(value)}`].filter(Boolean).join('&');
        return { operation: operation.id, category: 'query.structured', location: parameter.name, request: render(operation, parts), expected: codeFor(parameter, 'structured') };
      }),
    );
    out.push(caseOf(operation, fixture, 'query.empty', parameter.name, codeFor(parameter, 'empty'), (parts) => {
      parts.query = encodeQuery([...pairsOf(parts).filter(([key]) => key !== parameter.name), [parameter.name, '']]);
    }));
    out.push(caseOf(operation, fixture, 'query.bad-encoding', parameter.name, codeFor(parameter, 'value'), (parts) => {
      const rest = encodeQuery(pairsOf(parts).filter(([key]) => key !== parameter.name));
      parts.query = [rest, `${encodeURIComponent(parameter.name)}=%zz${parameter.schema.type === 'integer' ? '' : '%E0%A4%A'}`].filter(Boolean).join('&');
    }));
  }
  // An unknown parameter. Names of Object.prototype members are left to the known-defects test (qs drops them).
  const unknownName = fc
    .oneof(fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/), fc.constantFrom('Mind', 'MIND', 'mind_id', 'limit ', 'org', 'organization_id', 'project', 'tenant', 'callback', 'fields', 'format', 'page', 'offset', 'cursor', 'sort'))
    .filter((name) => !names.has(name) && !(name in Object.prototype) && name !== '__proto__');
  out.push(
    fc.tuple(fc.uuid({ version: 4 }), unknownName, fc.string({ maxLength: 6 })).map(([fresh, name, value]) => {
      const parts = validParts(operation, fixture, fresh);
      parts.query = [parts.query, encodeQuery([[name, value]])].filter(Boolean).join('&');
      return { operation: operation.id, category: 'query.unknown-parameter', location: name, request: render(operation, parts), expected: codeFor(null, 'unknown') };
    }),
  );
  return out;
}

function pathArbitraries(operation: OperationSpec, fixture: Fixture): fc.Arbitrary<HostileCase>[] {
  const out: fc.Arbitrary<HostileCase>[] = [];
  for (const parameter of operation.parameters.filter((p) => p.in === 'path')) {
    for (const replacement of invalidValues(parameter.schema, 'path')) {
      out.push(
        fc.tuple(fc.uuid({ version: 4 }), replacement.value as fc.Arbitrary<string>).map(([fresh, value]) => {
          const parts = validParts(operation, fixture, fresh);
          parts.path[parameter.name] = encodeURIComponent(value);
          return { operation: operation.id, category: `path.${replacement.kind}`, location: parameter.name, request: render(operation, parts), expected: ['INVALID_IDENTIFIER'] as ErrorCode[] };
        }),
      );
    }
    // Forbidden characters or encodings in the path are the gateway's own rule (PATH_INVALID).
    const forbidden = fc.oneof(
      fc.constantFrom('..', '.', '%2e%2e', '%2E', '.%2e'),
      fc.tuple(fc.constantFrom('/', '\\', '\u0000', '\u0001', '\u001f', '\u007f', '\n', '\t'), fc.nat({ max: 36 })).map(([c, i]) => {
        const valid = fixture.pathValue(operation, parameter);
        return encodeURIComponent(valid.slice(0, i)) + encodeURIComponent(c) + encodeURIComponent(valid.slice(i));
      }),
    );
    out.push(
      fc.tuple(fc.uuid({ version: 4 }), forbidden).map(([fresh, encoded]) => {
        const parts = validParts(operation, fixture, fresh);
        parts.path[parameter.name] = encoded;
        return { operation: operation.id, category: 'path.forbidden-encoding', location: parameter.name, request: render(operation, parts), expected: ['PATH_INVALID'] as ErrorCode[] };
      }),
    );
    out.push(caseOf(operation, fixture, 'path.too-long', parameter.name, ['PATH_INVALID'], (parts) => {
      parts.path[parameter.name] = 'a'.repeat(URL_PART_LIMIT + 1);
    }));
  }
  return out;
}

function headerArbitraries(operation: OperationSpec, fixture: Fixture): fc.Arbitrary<HostileCase>[] {
  const out: fc.Arbitrary<HostileCase>[] = [];
  for (const parameter of operation.parameters.filter((p) => p.in === 'header')) {
    const name = parameter.name.toLowerCase();
    if (parameter.required) {
      out.push(caseOf(operation, fixture, 'header.missing', parameter.name, [parameter.missingCode ?? 'BAD_REQUEST'], (parts) => {
        delete parts.headers[name];
      }));
    }
    const invalid = invalidValues(parameter.schema, 'header').map((r) => ({ ...r, value: r.value as fc.Arbitrary<string> }));
    if (parameter.schema.minLength === 1 && !parameter.required) invalid.push({ kind: 'empty', value: fc.constant('') });
    if (parameter.schema.pattern) {
      // Sent twice: a server sees "a, b", which no pattern of the contract accepts.
      invalid.push({ kind: 'repeated', value: fc.constant('') });
    }
    for (const replacement of invalid) {
      out.push(
        fc.tuple(fc.uuid({ version: 4 }), fc.uuid({ version: 4 }), replacement.value).map(([fresh, other, value]) => {
          const parts = validParts(operation, fixture, fresh);
          if (replacement.kind === 'repeated') {
            const first = String(parts.headers[name] ?? fixture.headerValue(operation, parameter, fresh));
            parts.headers[name] = [first, fixture.headerValue(operation, parameter, other) ?? first];
          } else {
            parts.headers[name] = value;
          }
          return { operation: operation.id, category: `header.${replacement.kind}`, location: parameter.name, request: render(operation, parts), expected: [parameter.invalidCode ?? 'BAD_REQUEST'] as ErrorCode[] };
        }),
      );
    }
  }
  return out;
}

function limitArbitraries(operation: OperationSpec, fixture: Fixture): fc.Arbitrary<HostileCase>[] {
  return [
    fc.tuple(fc.uuid({ version: 4 }), fc.integer({ min: URL_PART_LIMIT + 1, max: URL_PART_LIMIT + 500 })).map(([fresh, length]) => {
      const parts = validParts(operation, fixture, fresh);
      const padding = `pad=${'q'.repeat(length)}`;
      parts.query = [parts.query, padding].filter(Boolean).join('&');
      return { operation: operation.id, category: 'url.query-too-long', location: 'query', request: render(operation, parts), expected: ['QUERY_TOO_LONG'] as ErrorCode[] };
    }),
  ];
}

export interface CategoryArbitrary {
  name: string;
  weight: number;
  arbitrary: fc.Arbitrary<HostileCase>;
}

/** The hostile requests of one operation, grouped by where the request is broken. */
export function hostileArbitraries(operation: OperationSpec, fixture: Fixture): CategoryArbitrary[] {
  const out: CategoryArbitrary[] = [];
  const orgRead = operation.id === 'gateway_getUsage';
  if (operation.body) {
    out.push({ name: 'body', weight: 12, arbitrary: fc.oneof(...bodyArbitraries(operation, fixture)) });
    out.push({ name: 'json', weight: 4, arbitrary: malformedArbitrary(operation, fixture) });
    out.push({ name: 'content-type', weight: 2, arbitrary: contentTypeArbitrary(operation, fixture) });
    out.push({ name: 'size', weight: 2, arbitrary: oversizeArbitrary(operation, fixture) });
  } else {
    out.push({ name: 'body-on-read', weight: 3, arbitrary: bodyOnReadArbitrary(operation, fixture, orgRead ? 'INVALID_ORG_READ' : 'BODY_NOT_ALLOWED') });
  }
  if (operation.parameters.some((p) => p.in === 'query')) out.push({ name: 'query', weight: 8, arbitrary: fc.oneof(...queryArbitraries(operation, fixture)) });
  else out.push({ name: 'query-not-allowed', weight: 3, arbitrary: queryNotAllowedArbitrary(operation, fixture) });
  const paths = pathArbitraries(operation, fixture);
  if (paths.length) out.push({ name: 'path', weight: 8, arbitrary: fc.oneof(...paths) });
  const headers = headerArbitraries(operation, fixture);
  if (headers.length) out.push({ name: 'header', weight: 6, arbitrary: fc.oneof(...headers) });
  out.push({ name: 'url-limits', weight: 1, arbitrary: fc.oneof(...limitArbitraries(operation, fixture)) });
  return out;
}

/** `count` hostile requests of one operation, reproducible from `seed`. */
export function sampleHostile(operation: OperationSpec, fixture: Fixture, count: number, seed: number): HostileCase[] {
  const categories = hostileArbitraries(operation, fixture);
  const arbitrary = fc.oneof(...categories.map((c) => ({ weight: c.weight, arbitrary: c.arbitrary })));
  return fc.sample(arbitrary, { seed, numRuns: count });
}
