/**
 * Direction-aware comparison of two bundled OpenAPI 3.x documents (component
 * `$ref`s kept, as @redocly/openapi-core's bundle leaves them).
 *
 * A change is judged by who is hurt by it:
 * - in a request (the client writes, the server validates) accepting less is
 *   breaking: a new required field or parameter, a removed enum value or type,
 *   a narrowed constraint (maxLength or maximum lowered, minLength or minimum
 *   raised, a pattern or format added or changed, additionalProperties closed);
 * - in a response (the server writes, the client reads) promising less is
 *   breaking: a removed or no longer required field, a retyped field (a new
 *   type, null included). A removed response enum value is not breaking; a new
 *   one is a warning (exhaustive clients should handle it).
 * Operations are matched by operationId, which names client methods, CLI
 * commands and MCP tools: a removed or renamed one is breaking.
 */

export type Severity = 'breaking' | 'warning' | 'info';
export type Direction = 'request' | 'response';

export interface Change {
  /** The check that found it: stable, documented in the README's table, usable in `levels` to re-level it. */
  id: string;
  /** Its level: `breaking` blocks a merge unless acknowledged, `warning` asks a reviewer to look, `info` is recorded. */
  severity: Severity;
  /** Where in the operation or shared schema: `request body .name`, `query limit`, `response 200 body .items[].id`. */
  where: string;
  message: string;
  /** JSON pointer to the changed node in the head document (in the base one when it was removed). */
  pointer: string;
}

export interface OperationRef {
  operationId: string;
  method: string;
  path: string;
  summary: string;
}

/** Changes inside a shared component schema, reported once with every operation that reaches it. */
export interface SharedSchemaChange {
  schema: string;
  direction: Direction;
  changes: Change[];
  operations: string[];
}

export interface OperationChange {
  operation: OperationRef;
  changes: Change[];
  /** Shared schemas with changes this operation uses (see `Review.sharedSchemas`). */
  sharedSchemas: { schema: string; direction: Direction; severity: Severity }[];
  severity: Severity;
}

export interface Review {
  added: OperationRef[];
  removed: OperationRef[];
  changed: OperationChange[];
  sharedSchemas: SharedSchemaChange[];
  /** Document-level changes: security schemes, the error catalog, servers, version. */
  document: Change[];
  /** Every breaking change, flattened, with the operation(s) it concerns. */
  breaking: BreakingChange[];
}

export interface BreakingChange {
  id: string;
  operations: string[];
  where: string;
  message: string;
  pointer: string;
}

type Json = Record<string, unknown>;
type Doc = Json & { paths?: Record<string, Json>; components?: Record<string, Record<string, unknown>> };

const methods = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;
const rank: Record<Severity, number> = { info: 0, warning: 1, breaking: 2 };

function worst(severities: Severity[]): Severity {
  return severities.reduce<Severity>((a, b) => (rank[b] > rank[a] ? b : a), 'info');
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  return typeof value === 'string' ? `\`${value}\`` : `\`${JSON.stringify(value)}\``;
}

function list(values: unknown[]): string {
  return values.map(show).join(', ');
}

function refTarget(doc: Doc, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only internal $refs are supported after bundling: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (isObject(node) ? node[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
}

/** Follows `$ref`s (parameters, responses, request bodies, headers, examples) to the object. */
function resolve(doc: Doc, node: unknown): Json | undefined {
  let current = node;
  for (let depth = 0; depth < 20 && isObject(current) && typeof current.$ref === 'string'; depth++) {
    current = refTarget(doc, current.$ref);
  }
  return isObject(current) ? current : undefined;
}

function schemaRefName(node: unknown): string | undefined {
  if (!isObject(node) || typeof node.$ref !== 'string') return undefined;
  const match = /^#\/components\/schemas\/(.+)$/.exec(node.$ref);
  return match ? match[1]!.replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

interface LocatedOperation {
  ref: OperationRef;
  /** JSON pointer to the operation object. */
  pointer: string;
  operation: Json;
  parameters: Json[];
}

/** A path with its parameter names left out: what routing matches on. */
function templateOf(path: string): string {
  return path.replace(/\{[^}]*\}/g, '{}');
}

function operationsOf(doc: Doc): Map<string, LocatedOperation> {
  const found = new Map<string, LocatedOperation>();
  for (const [path, itemOrRef] of Object.entries(doc.paths ?? {})) {
    const item = resolve(doc, itemOrRef) ?? {};
    const shared = ((item.parameters as unknown[] | undefined) ?? []).map((p) => resolve(doc, p) ?? {});
    for (const method of methods) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const own = ((operation.parameters as unknown[] | undefined) ?? []).map((p) => resolve(doc, p) ?? {});
      const key = (p: Json) => `${String(p.in)}:${String(p.name).toLowerCase()}`;
      const parameters = [...shared.filter((s) => !own.some((o) => key(o) === key(s))), ...own];
      const operationId = typeof operation.operationId === 'string' ? operation.operationId : `${method.toUpperCase()} ${path}`;
      // Without an operationId an operation is known by method and path, its parameter names left out
      // (`/books/{bookId}` and `/books/{id}` are one path).
      const mapKey = typeof operation.operationId === 'string' ? operation.operationId : `${method.toUpperCase()} ${templateOf(path)}`;
      found.set(mapKey, {
        ref: { operationId, method: method.toUpperCase(), path, summary: String(operation.summary ?? '') },
        pointer: `/paths/${escapePointer(path)}/${method}`,
        operation,
        parameters,
      });
    }
  }
  return found;
}

/** The values a schema admits when it is an enumeration (`enum`, `const`, or a oneOf/anyOf of consts). */
function enumeration(schema: Json): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  const alternatives = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0 && alternatives.every((a) => isObject(a) && 'const' in a)) {
    return alternatives.map((a) => (a as Json).const);
  }
  return undefined;
}

function typesOf(schema: Json): Set<string> | undefined {
  const types = new Set<string>();
  if (typeof schema.type === 'string') types.add(schema.type);
  else if (Array.isArray(schema.type)) for (const t of schema.type) types.add(String(t));
  else return undefined;
  if (schema.nullable === true) types.add('null'); // OpenAPI 3.0
  if (types.has('number')) types.add('integer');
  return types;
}

const upperBounds = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties', 'maxContains', 'x-max-bytes'] as const;
const lowerBounds = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties', 'minContains', 'x-min-bytes'] as const;

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

interface SharedGroup {
  schema: string;
  direction: Direction;
  changes: Change[];
  /** Shared schemas reached from inside this one (keys `direction:name`). */
  children: Set<string>;
}

class Comparison {
  readonly sharedGroups = new Map<string, SharedGroup>();
  /** The error catalog schema is compared as a catalog (document level), not as an enum in every error response. */
  private readonly catalogSchema: string | undefined;

  constructor(
    readonly base: Doc,
    readonly head: Doc,
  ) {
    this.catalogSchema = catalogOf(base) && catalogOf(head) ? 'ErrorCode' : undefined;
  }

  /** Every shared schema a set of uses reaches, through the schemas inside them. */
  closure(uses: Set<string>): Set<string> {
    const seen = new Set<string>();
    const visit = (key: string) => {
      if (seen.has(key)) return;
      seen.add(key);
      for (const child of this.sharedGroups.get(key)?.children ?? []) visit(child);
    };
    for (const key of uses) visit(key);
    return seen;
  }

  /**
   * Compares two schemas in one direction. Both sides naming the same
   * component schema are compared once per direction; the operation is then
   * recorded as one that uses it. `pointer` is where the head schema sits in
   * the head document (for annotations on the changed lines).
   */
  schema(b: unknown, h: unknown, direction: Direction, where: string, out: Change[], uses: Set<string>, pointer: string): void {
    const bName = schemaRefName(b);
    const hName = schemaRefName(h);
    if (bName && hName && bName === hName) {
      if (bName === this.catalogSchema) return;
      const key = `${direction}:${bName}`;
      if (!this.sharedGroups.has(key)) {
        const group: SharedGroup = { schema: bName, direction, changes: [], children: new Set() };
        this.sharedGroups.set(key, group); // before descending, so a cycle ends here
        this.schemaBody(resolve(this.base, b) ?? {}, resolve(this.head, h) ?? {}, direction, '', group.changes, group.children, `/components/schemas/${escapePointer(bName)}`);
      }
      uses.add(key);
      return;
    }
    // Different components, or inline on one side: compare the contents here.
    const at = hName ? `/components/schemas/${escapePointer(hName)}` : pointer;
    this.schemaBody(this.inline(this.base, b), this.inline(this.head, h), direction, where, out, uses, at);
  }

  private inline(doc: Doc, node: unknown): Json {
    if (node === true || node === undefined) return {};
    if (node === false) return { not: {} };
    return resolve(doc, node) ?? {};
  }

  private schemaBody(b: Json, h: Json, direction: Direction, where: string, out: Change[], uses: Set<string>, pointer: string): void {
    const at = where || '(the schema)';
    const request = direction === 'request';
    /** `check` is the direction-free part of the id: `request-` or `response-` is put before it. */
    const add = (check: string, severity: Severity, message: string, keyword?: string) =>
      out.push({ id: `${direction}-${check}`, severity, where: at, message, pointer: keyword ? `${pointer}/${escapePointer(keyword)}` : pointer });
    /** A change that narrows what is valid breaks requests; one that widens it breaks responses (clients sized by the old bounds). */
    const judged = (narrows: boolean): Severity => (request === narrows ? 'breaking' : 'info');

    // Types. Requests: a type no longer accepted breaks senders. Responses: a new type (null included) breaks readers.
    const bTypes = typesOf(b);
    const hTypes = typesOf(h);
    const declared = (s: Json) => list(Array.isArray(s.type) ? s.type : [s.type]);
    if (bTypes && hTypes) {
      const removed = [...bTypes].filter((t) => !hTypes.has(t) && !(t === 'integer' && bTypes.has('number')));
      const added = [...hTypes].filter((t) => !bTypes.has(t) && !(t === 'integer' && hTypes.has('number')));
      if (request) {
        if (removed.length) add('type-changed', 'breaking', `no longer accepts type ${list(removed)} (retyped ${declared(b)} → ${declared(h)})`, 'type');
        if (added.length) add('type-generalized', 'info', `also accepts type ${list(added)}`, 'type');
      } else {
        if (added.length) add('type-changed', 'breaking', `retyped: may now be ${list(added)} (${declared(b)} → ${declared(h)})`, 'type');
        if (removed.length) add('type-specialized', 'info', `is no longer ${list(removed)}`, 'type');
      }
    } else if (!bTypes && hTypes && request) {
      add('type-set', 'breaking', `now restricted to type ${declared(h)}`, 'type');
    } else if (bTypes && !hTypes && !request && !enumeration(h)) {
      add('type-unset', 'breaking', `retyped: no longer restricted to ${declared(b)}`);
    }

    // Enumerations (enum, const, a oneOf of consts, and Zalando's x-extensible-enum).
    const bEnum = enumeration(b);
    const hEnum = enumeration(h);
    const key = (v: unknown) => JSON.stringify(v);
    if (bEnum && hEnum) {
      const hKeys = new Set(hEnum.map(key));
      const bKeys = new Set(bEnum.map(key));
      const removed = bEnum.filter((v) => !hKeys.has(key(v)));
      const added = hEnum.filter((v) => !bKeys.has(key(v)));
      const plural = (n: number) => (n > 1 ? 's' : '');
      if (request) {
        if (removed.length) add('enum-value-removed', 'breaking', `enum value${plural(removed.length)} ${list(removed)} no longer accepted (narrowed)`, 'enum');
        if (added.length) add('enum-value-added', 'info', `enum value${plural(added.length)} ${list(added)} added`, 'enum');
      } else if ('const' in b && 'const' in h) {
        if (key(b.const) !== key(h.const)) add('const-changed', 'breaking', `const changed ${show(b.const)} → ${show(h.const)}`, 'const');
      } else {
        if (added.length) add('enum-value-added', 'warning', `may now return enum value${plural(added.length)} ${list(added)}: clients that switch exhaustively must handle ${added.length > 1 ? 'them' : 'it'}`, 'enum');
        if (removed.length) add('enum-value-removed', 'info', `no longer returns enum value${plural(removed.length)} ${list(removed)}`, 'enum');
      }
    } else if (!bEnum && hEnum) {
      add('became-enum', judged(true), `now limited to the values ${list(hEnum)}`, 'enum');
    } else if (bEnum && !hEnum) {
      add('enum-removed', judged(false), `no longer limited to ${list(bEnum)}${request ? '' : ': clients sized to those values break'}`);
    }
    const bExtensible = Array.isArray(b['x-extensible-enum']) ? (b['x-extensible-enum'] as unknown[]) : [];
    const hExtensible = Array.isArray(h['x-extensible-enum']) ? (h['x-extensible-enum'] as unknown[]) : [];
    const extensibleRemoved = bExtensible.filter((v) => !hExtensible.map(key).includes(key(v)));
    const extensibleAdded = hExtensible.filter((v) => !bExtensible.map(key).includes(key(v)));
    if (extensibleRemoved.length) add('x-extensible-enum-value-removed', request ? 'breaking' : 'info', `x-extensible-enum value${extensibleRemoved.length > 1 ? 's' : ''} ${list(extensibleRemoved)} removed`, 'x-extensible-enum');
    if (extensibleAdded.length) add('x-extensible-enum-value-added', 'info', `x-extensible-enum value${extensibleAdded.length > 1 ? 's' : ''} ${list(extensibleAdded)} added`, 'x-extensible-enum');

    // Bounds: a lowered upper bound or raised lower bound narrows; the reverse (or removal) widens.
    const bound = (keyword: string, upper: boolean) => {
      const before = b[keyword];
      const after = h[keyword];
      if (before === after) return;
      const narrowed = typeof after === 'number' && (typeof before !== 'number' || (upper ? after < before : after > before));
      const lowered = typeof after === 'number' && typeof before === 'number' && after < before;
      const name = keyword.replace(/^x-/, 'x-').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      const check = before === undefined ? `${name}-set` : after === undefined ? `${name}-unset` : `${name}-${lowered ? 'decreased' : 'increased'}`;
      const described = before === undefined ? `\`${keyword}: ${String(after)}\` added` : after === undefined ? `\`${keyword}\` removed (was ${String(before)})` : `\`${keyword}\` ${narrowed === upper ? 'lowered' : 'raised'} ${String(before)} → ${String(after)}`;
      add(check, judged(narrowed), `${described}${narrowed ? (request ? ' (narrowed)' : '') : request ? '' : `: values may now be ${upper ? 'larger' : 'smaller'} than clients were promised`}`, keyword);
    };
    for (const keyword of upperBounds) bound(keyword, true);
    for (const keyword of lowerBounds) bound(keyword, false);

    // Patterns: a pattern added or changed narrows unless the new one matches everything.
    if (b.pattern !== h.pattern) {
      const everything = (p: unknown) => typeof p === 'string' && /^\^?(\.\*|\[\\s\\S\]\*)\$?$/.test(p);
      if (h.pattern === undefined || everything(h.pattern)) add(h.pattern === undefined ? 'pattern-removed' : 'pattern-generalized', 'info', h.pattern === undefined ? `pattern ${show(b.pattern)} removed` : `pattern widened ${show(b.pattern)} → ${show(h.pattern)}`, 'pattern');
      else if (b.pattern === undefined) add('pattern-added', request ? 'breaking' : 'info', `pattern ${show(h.pattern)} added`, 'pattern');
      else add('pattern-changed', request ? 'breaking' : 'info', `pattern changed ${show(b.pattern)} → ${show(h.pattern)}`, 'pattern');
    }
    // Format, multipleOf, content keywords: set or changed narrows a request; changed or dropped widens a response.
    for (const keyword of ['format', 'multipleOf', 'contentMediaType', 'contentEncoding'] as const) {
      const before = b[keyword];
      const after = h[keyword];
      if (before === after) continue;
      const name = keyword.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      if (before === undefined) add(`${name}-added`, request ? 'breaking' : 'info', `${keyword} ${show(after)} added`, keyword);
      else if (after === undefined) add(`${name}-removed`, request ? 'info' : 'breaking', `${keyword} ${show(before)} removed`, keyword);
      else add(`${name}-changed`, 'breaking', `${keyword} changed ${show(before)} → ${show(after)}`, keyword);
    }
    if (b.uniqueItems !== h.uniqueItems && (b.uniqueItems === true || h.uniqueItems === true)) {
      const now = h.uniqueItems === true;
      add(now ? 'unique-items-set' : 'unique-items-unset', judged(now), now ? 'items must now be unique' : 'items no longer unique', 'uniqueItems');
    }
    if (b.default !== undefined || h.default !== undefined) {
      if (JSON.stringify(b.default) !== JSON.stringify(h.default)) {
        const check = b.default === undefined ? 'default-value-added' : h.default === undefined ? 'default-value-removed' : 'default-value-changed';
        add(check, 'info', `default ${b.default === undefined ? 'added' : h.default === undefined ? 'removed' : 'changed'} ${show(b.default ?? null)} → ${show(h.default ?? null)}`, 'default');
      }
    }

    // Objects. A readOnly property is the server's to write: no obligation in a request; writeOnly likewise in a response.
    const bProps = (isObject(b.properties) ? b.properties : {}) as Json;
    const hProps = (isObject(h.properties) ? h.properties : {}) as Json;
    const bRequired = new Set((b.required as string[] | undefined) ?? []);
    const hRequired = new Set((h.required as string[] | undefined) ?? []);
    const hClosed = h.additionalProperties === false || h.unevaluatedProperties === false;
    const notHere = (doc: Doc, s: unknown) => {
      const property = resolve(doc, s) ?? {};
      return request ? property.readOnly === true : property.writeOnly === true;
    };
    const propertyPointer = (name: string) => `${pointer}/properties/${escapePointer(name)}`;
    const addAt = (check: string, severity: Severity, message: string, name: string) =>
      out.push({ id: `${direction}-${check}`, severity, where: at, message, pointer: propertyPointer(name) });
    for (const name of Object.keys(bProps)) {
      if (name in hProps || notHere(this.base, bProps[name])) continue;
      if (request) addAt('property-removed', hClosed ? 'breaking' : 'warning', `property \`${name}\` removed${hClosed ? ': the body is closed, so a client still sending it is refused' : ''}`, name);
      else addAt(bRequired.has(name) ? 'required-property-removed' : 'optional-property-removed', 'breaking', `response property \`${name}\` removed`, name);
    }
    for (const name of Object.keys(hProps)) {
      if (name in bProps) continue;
      const obliged = request && hRequired.has(name) && !notHere(this.head, hProps[name]);
      if (request) addAt(obliged ? 'new-required-property' : 'new-optional-property', obliged ? 'breaking' : 'info', obliged ? `new required property \`${name}\`` : `new optional property \`${name}\``, name);
      else addAt('property-added', 'info', `new response property \`${name}\``, name);
    }
    for (const name of Object.keys(bProps)) {
      if (!(name in hProps)) continue;
      const exempt = notHere(this.head, hProps[name]);
      if (!bRequired.has(name) && hRequired.has(name)) addAt('property-became-required', request && !exempt ? 'breaking' : 'info', `property \`${name}\` is now required`, name);
      if (bRequired.has(name) && !hRequired.has(name)) addAt('property-became-optional', request || exempt ? 'info' : 'breaking', request ? `property \`${name}\` is now optional` : `property \`${name}\` is no longer always present`, name);
      if (!exempt) this.schema(bProps[name], hProps[name], direction, `${where}.${name}`, out, uses, propertyPointer(name));
    }
    const bOpen = b.additionalProperties === undefined || b.additionalProperties === true;
    const hOpen = h.additionalProperties === undefined || h.additionalProperties === true;
    const objectish = (s: Json) => s.type === 'object' || isObject(s.properties);
    if (objectish(b) || objectish(h)) {
      if (bOpen && h.additionalProperties === false) add('additional-properties-closed', request ? 'breaking' : 'info', 'additionalProperties closed: unknown properties are now refused', 'additionalProperties');
      if (b.additionalProperties === false && hOpen) add('additional-properties-opened', request ? 'info' : 'warning', 'additionalProperties opened: other properties may appear', 'additionalProperties');
    }
    if (isObject(b.additionalProperties) && isObject(h.additionalProperties)) {
      this.schema(b.additionalProperties, h.additionalProperties, direction, `${where}.*`, out, uses, `${pointer}/additionalProperties`);
    }
    // dependentRequired: a property newly required when another is present.
    const bDependent = (isObject(b.dependentRequired) ? b.dependentRequired : {}) as Record<string, string[]>;
    const hDependent = (isObject(h.dependentRequired) ? h.dependentRequired : {}) as Record<string, string[]>;
    for (const trigger of new Set([...Object.keys(bDependent), ...Object.keys(hDependent)])) {
      const before = bDependent[trigger] ?? [];
      const after = hDependent[trigger] ?? [];
      const added = after.filter((n) => !before.includes(n));
      const removed = before.filter((n) => !after.includes(n));
      if (added.length) add('dependent-required-added', judged(true), `with \`${trigger}\`, now also requires ${list(added)}`, 'dependentRequired');
      if (removed.length) add('dependent-required-removed', judged(false), `with \`${trigger}\`, no longer requires ${list(removed)}`, 'dependentRequired');
    }

    // Subschemas of JSON Schema 2020-12 (and items, not): compared in place; one added narrows, one removed widens.
    const single = ['items', 'contains', 'propertyNames', 'if', 'then', 'else', 'not', 'contentSchema', 'unevaluatedItems', 'unevaluatedProperties'] as const;
    for (const keyword of single) {
      const before = b[keyword];
      const after = h[keyword];
      if (before === undefined && after === undefined) continue;
      const name = keyword.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      const label = keyword === 'items' ? `${where}[]` : `${where}<${keyword}>`;
      if (before !== undefined && after !== undefined) {
        if (keyword === 'if' || keyword === 'not') {
          // Changing a condition or a negation cannot be judged by parts: any change may narrow.
          if (JSON.stringify(before) !== JSON.stringify(after)) add(`${name}-changed`, 'breaking', `\`${keyword}\` changed`, keyword);
        } else this.schema(before, after, direction, label, out, uses, `${pointer}/${keyword}`);
      } else if (after !== undefined) {
        if (after === true || (isObject(after) && Object.keys(after).length === 0)) continue;
        add(`${name}-added`, request ? 'breaking' : 'info', `\`${keyword}\` added`, keyword);
      } else {
        if (before === true || (isObject(before) && Object.keys(before).length === 0)) continue;
        add(`${name}-removed`, request ? 'info' : 'breaking', `\`${keyword}\` removed`);
      }
    }
    for (const keyword of ['patternProperties', 'dependentSchemas'] as const) {
      const before = (isObject(b[keyword]) ? b[keyword] : {}) as Json;
      const after = (isObject(h[keyword]) ? h[keyword] : {}) as Json;
      const name = keyword.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
        if (k in before && k in after) this.schema(before[k], after[k], direction, `${where}<${keyword} ${k}>`, out, uses, `${pointer}/${keyword}/${escapePointer(k)}`);
        else if (k in after) add(`${name}-added`, request ? 'breaking' : 'info', `${keyword} \`${k}\` added`, keyword);
        else add(`${name}-removed`, request ? 'info' : 'breaking', `${keyword} \`${k}\` removed`);
      }
    }
    if (Array.isArray(b.prefixItems) || Array.isArray(h.prefixItems)) {
      const before = (b.prefixItems as unknown[] | undefined) ?? [];
      const after = (h.prefixItems as unknown[] | undefined) ?? [];
      for (let i = 0; i < Math.min(before.length, after.length); i++) this.schema(before[i], after[i], direction, `${where}[${i}]`, out, uses, `${pointer}/prefixItems/${i}`);
      if (after.length > before.length) add('prefix-items-added', request ? 'breaking' : 'info', `prefixItems gained ${after.length - before.length} position${after.length - before.length > 1 ? 's' : ''}`, 'prefixItems');
      if (after.length < before.length) add('prefix-items-removed', request ? 'info' : 'breaking', `prefixItems lost ${before.length - after.length} position${before.length - after.length > 1 ? 's' : ''}`, 'prefixItems');
    }

    // Alternatives that are not enumerations: match branches by component name, title, or const-valued properties.
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const bAlt = b[keyword];
      const hAlt = h[keyword];
      if (enumeration(b) || enumeration(h)) continue;
      const name = keyword === 'oneOf' ? 'one-of' : 'any-of';
      if (!Array.isArray(bAlt) && Array.isArray(hAlt)) {
        // Wrapping a schema in alternatives: a request must now match them (exactly one, for oneOf); a response may be any of them.
        add(`${name}-added`, 'breaking', `now ${keyword} ${hAlt.length} alternatives${request ? ': a body valid before may match none, or more than one' : ': clients must handle each'}`, keyword);
        continue;
      }
      if (!Array.isArray(bAlt) || !Array.isArray(hAlt)) continue;
      const bKeys = bAlt.map((s, i) => this.branchKey(this.base, s, i));
      const hKeys = hAlt.map((s, i) => this.branchKey(this.head, s, i));
      bAlt.forEach((branch, i) => {
        const j = hKeys.indexOf(bKeys[i]!);
        if (j < 0) add(`${name}-variant-removed`, request ? 'breaking' : 'info', `${keyword} variant ${bKeys[i]} removed`, keyword);
        else this.schema(branch, hAlt[j], direction, `${where}<${bKeys[i]}>`, out, uses, `${pointer}/${keyword}/${j}`);
      });
      hAlt.forEach((_branch, j) => {
        if (!bKeys.includes(hKeys[j]!)) out.push({ id: `${direction}-${name}-variant-added`, severity: request ? 'info' : 'breaking', where: at, message: `${keyword} variant ${hKeys[j]} added${request ? '' : ': clients must handle it'}`, pointer: `${pointer}/${keyword}/${j}` });
      });
    }
    if (Array.isArray(b.allOf) && Array.isArray(h.allOf)) {
      const n = Math.min(b.allOf.length, h.allOf.length);
      for (let i = 0; i < n; i++) this.schema(b.allOf[i], h.allOf[i], direction, `${where}<allOf ${i}>`, out, uses, `${pointer}/allOf/${i}`);
      if (h.allOf.length > b.allOf.length) add('all-of-added', request ? 'breaking' : 'info', 'allOf gained a constraint', 'allOf');
      if (h.allOf.length < b.allOf.length) add('all-of-removed', request ? 'info' : 'breaking', 'allOf lost a constraint', 'allOf');
    }
  }

  private branchKey(doc: Doc, branch: unknown, index: number): string {
    const name = schemaRefName(branch);
    if (name) return `\`${name}\``;
    const schema = resolve(doc, branch) ?? {};
    if (typeof schema.title === 'string') return `\`${schema.title}\``;
    const consts = Object.entries((schema.properties as Json | undefined) ?? {})
      .map(([prop, s]) => (isObject(s) && 'const' in s ? `${prop}=${JSON.stringify(s.const)}` : undefined))
      .filter(Boolean);
    if (consts.length) return `\`${consts.join(',')}\``;
    if (typeof schema.type === 'string') return `\`${schema.type}\``;
    return `#${index + 1}`;
  }
}

function parameterKey(p: Json): string {
  return `${String(p.in)}:${String(p.in) === 'header' ? String(p.name).toLowerCase() : String(p.name)}`;
}

function securityOf(operation: Json, doc: Doc): Map<string, Set<string>>[] | undefined {
  const security = (operation.security ?? doc.security) as Record<string, string[]>[] | undefined;
  return security?.map((requirement) => new Map(Object.entries(requirement).map(([scheme, scopes]) => [scheme, new Set(scopes)])));
}

function errorCodesOf(doc: Doc, response: Json): Set<string> {
  const codes = new Set<string>();
  for (const media of Object.values((response.content as Json | undefined) ?? {})) {
    for (const example of Object.values(((media as Json).examples as Json | undefined) ?? {})) {
      const code = ((resolve(doc, example)?.value as Json | undefined)?.error as Json | undefined)?.code;
      if (typeof code === 'string') codes.add(code);
    }
  }
  return codes;
}

/** The parameter itself, or one of its facts (`required`, `x-missing-code`); the operation when the parameter is not found. */
function parameterFactPointer(doc: Doc, located: LocatedOperation, parameter: Json, fact?: string): string {
  const schema = parameterPointer(doc, located, parameter);
  if (!schema.endsWith('/schema')) return schema;
  const entry = schema.slice(0, -'/schema'.length);
  return fact === undefined ? entry : `${entry}/${escapePointer(fact)}`;
}

/** Where a parameter's schema sits in the document: in the operation, its path item, or a shared component. */
function parameterPointer(doc: Doc, located: LocatedOperation, parameter: Json): string {
  const itemPointer = located.pointer.slice(0, located.pointer.lastIndexOf('/'));
  const item = resolve(doc, refTarget(doc, `#${itemPointer}`)) ?? {};
  for (const [owner, list] of [
    [located.pointer, located.operation.parameters],
    [itemPointer, item.parameters],
  ] as const) {
    const index = ((list as unknown[] | undefined) ?? []).findIndex((p) => resolve(doc, p) === parameter);
    if (index < 0) continue;
    const entry = (list as unknown[])[index];
    if (isObject(entry) && typeof entry.$ref === 'string' && entry.$ref.startsWith('#/')) return `${entry.$ref.slice(1)}/schema`;
    return `${owner}/parameters/${index}/schema`;
  }
  return located.pointer;
}

function compareOperation(cmp: Comparison, b: LocatedOperation, h: LocatedOperation, out: Change[], uses: Set<string>): void {
  const add = (id: string, severity: Severity, where: string, message: string, pointer = h.pointer) => out.push({ id, severity, where, message, pointer });

  if (b.ref.method !== h.ref.method || templateOf(b.ref.path) !== templateOf(h.ref.path)) {
    add('api-moved', 'breaking', 'operation', `moved from \`${b.ref.method} ${b.ref.path}\` to \`${h.ref.method} ${h.ref.path}\``);
  }
  if (b.operation.summary !== h.operation.summary) add('api-summary-changed', 'info', 'summary', `summary changed to “${String(h.operation.summary ?? '')}”`);
  if (b.operation.description !== h.operation.description) add('api-description-changed', 'info', 'description', 'description changed');
  if (b.operation.deprecated !== true && h.operation.deprecated === true) add('endpoint-deprecated', 'warning', 'operation', 'deprecated');

  // Security: every credential the operation accepted must still be accepted, with no new scope.
  const bSec = securityOf(b.operation, cmp.base);
  const hSec = securityOf(h.operation, cmp.head);
  const bOpen = !bSec || bSec.length === 0 || bSec.some((r) => r.size === 0);
  const hOpen = !hSec || hSec.length === 0 || hSec.some((r) => r.size === 0);
  if (bOpen && !hOpen) add('api-security-added', 'breaking', 'security', 'now needs a credential');
  else if (!bOpen && hOpen) add('api-security-removed', 'info', 'security', 'no longer needs a credential');
  else if (!bOpen && !hOpen) {
    for (const requirement of bSec!) {
      const schemes = [...requirement.keys()];
      const match = hSec!.find((r) => schemes.every((s) => r.has(s)));
      if (!match) {
        add('api-security-scheme-removed', 'breaking', 'security', `no longer accepts ${schemes.map((s) => `\`${s}\``).join(' + ')} credentials`);
        continue;
      }
      for (const scheme of schemes) {
        const newScopes = [...match.get(scheme)!].filter((s) => !requirement.get(scheme)!.has(s));
        if (newScopes.length) add('api-security-scope-added', 'breaking', 'security', `\`${scheme}\` now needs scope ${list(newScopes)}`);
        const dropped = [...requirement.get(scheme)!].filter((s) => !match.get(scheme)!.has(s));
        if (dropped.length) add('api-security-scope-removed', 'info', 'security', `\`${scheme}\` no longer needs scope ${list(dropped)}`);
      }
    }
    for (const requirement of hSec!) {
      if (!bSec!.some((r) => [...requirement.keys()].every((s) => r.has(s)))) {
        add('api-security-scheme-added', 'info', 'security', `also accepts ${[...requirement.keys()].map((s) => `\`${s}\``).join(' + ')} credentials`);
      }
    }
  }

  // Operation extensions that put a new condition on callers.
  for (const [extension, meaning] of [
    ['x-sandbox-selection', 'needs a verified Sandbox selection'],
    ['x-original-session', 'needs the original signed-in session'],
    ['x-admission-setting', 'is admitted only by a server setting (off by default)'],
  ] as const) {
    const before = b.operation[extension];
    const after = h.operation[extension];
    if (before === after) continue;
    if (after !== undefined && before === undefined) add(`api-${extension}-added`, 'breaking', extension, `now ${meaning} (\`${extension}: ${String(after)}\`)`);
    else if (after === undefined) add(`api-${extension}-removed`, 'info', extension, `no longer ${meaning}`);
    else add(`api-${extension}-changed`, 'warning', extension, `changed ${show(before)} → ${show(after)}`);
  }
  for (const extension of ['x-dpop-htm', 'x-credential-refusal', 'x-read-only', 'x-automatic-retry']) {
    const before = b.operation[extension];
    const after = h.operation[extension];
    if (JSON.stringify(before) === JSON.stringify(after)) continue;
    const severity: Severity = extension === 'x-dpop-htm' && before !== undefined ? 'breaking' : extension === 'x-read-only' && before === true ? 'warning' : extension === 'x-credential-refusal' ? 'warning' : 'info';
    add(`api-${extension}-changed`, severity, extension, `changed ${before === undefined ? '(none)' : show(before)} → ${after === undefined ? '(none)' : show(after)}`);
  }

  // Parameters (request direction).
  const bParams = new Map(b.parameters.map((p) => [parameterKey(p), p]));
  const hParams = new Map(h.parameters.map((p) => [parameterKey(p), p]));
  for (const [key, p] of bParams) {
    if (p.in === 'path') continue; // a path change is reported as a move
    const where = `${String(p.in)} parameter \`${String(p.name)}\``;
    const now = hParams.get(key);
    if (!now) {
      add(`request-parameter-removed`, p.in === 'query' ? 'breaking' : 'warning', where, p.in === 'query' ? 'removed: a client still sending it is refused' : 'removed');
      continue;
    }
    // On the parameter's own line in an annotation, not the operation's.
    const required = parameterFactPointer(cmp.head, h, now, 'required');
    if (p.required !== true && now.required === true) add('request-parameter-became-required', 'breaking', where, 'is now required', required);
    if (p.required === true && now.required !== true) add('request-parameter-became-optional', 'info', where, 'is now optional', required);
    if (p['x-missing-code'] !== now['x-missing-code']) {
      add('request-parameter-x-missing-code-changed', 'warning', where, `missing-code changed ${show(p['x-missing-code'] ?? null)} → ${show(now['x-missing-code'] ?? null)}`, parameterFactPointer(cmp.head, h, now, 'x-missing-code'));
    }
    const bDefault = resolve(cmp.base, p.schema)?.default;
    const hDefault = resolve(cmp.head, now.schema)?.default;
    if (JSON.stringify(bDefault) !== JSON.stringify(hDefault)) {
      // The server fills an omitted parameter with its default: a client that omits it now gets other behaviour.
      const check = bDefault === undefined ? 'added' : hDefault === undefined ? 'removed' : 'changed';
      add(`request-parameter-default-value-${check}`, 'breaking', where, `default ${check}: ${show(bDefault ?? null)} → ${show(hDefault ?? null)} (clients that omit it get other behaviour)`, parameterPointer(cmp.head, h, now));
    }
    cmp.schema(p.schema, now.schema, 'request', where, out, uses, parameterPointer(cmp.head, h, now));
  }
  for (const [key, p] of hParams) {
    if (bParams.has(key) || p.in === 'path') continue;
    const where = `${String(p.in)} parameter \`${String(p.name)}\``;
    add(p.required === true ? 'new-required-request-parameter' : 'new-optional-request-parameter', p.required === true ? 'breaking' : 'info', where, p.required === true ? 'new required parameter' : 'new optional parameter', parameterFactPointer(cmp.head, h, p));
  }
  // Path parameters are matched by their place in the path, so a renamed one (`{bookId}` → `{id}`) is still compared.
  const pathNames = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const bNames = pathNames(b.ref.path);
  pathNames(h.ref.path).forEach((name, i) => {
    const before = b.parameters.find((p) => p.in === 'path' && p.name === bNames[i]);
    const after = h.parameters.find((p) => p.in === 'path' && p.name === name);
    if (!before || !after) return;
    cmp.schema(before.schema, after.schema, 'request', `path parameter \`${name}\``, out, uses, parameterPointer(cmp.head, h, after));
  });

  // Request body.
  const bBody = resolve(cmp.base, b.operation.requestBody);
  const hBody = resolve(cmp.head, h.operation.requestBody);
  if (!bBody && hBody) add(hBody.required === true ? 'request-body-added-required' : 'request-body-added-optional', hBody.required === true ? 'breaking' : 'info', 'request body', hBody.required === true ? 'now required' : 'optional body added');
  else if (bBody && !hBody) add('request-body-removed', 'breaking', 'request body', 'removed: a client still sending one is refused');
  else if (bBody && hBody) {
    if (bBody.required !== true && hBody.required === true) add('request-body-became-required', 'breaking', 'request body', 'is now required');
    const bContent = (bBody.content ?? {}) as Json;
    const hContent = (hBody.content ?? {}) as Json;
    for (const type of Object.keys(bContent)) {
      if (!(type in hContent)) add('request-body-media-type-removed', 'breaking', 'request body', `media type \`${type}\` no longer accepted`);
      else cmp.schema((bContent[type] as Json).schema, (hContent[type] as Json).schema, 'request', `request body${Object.keys(hContent).length > 1 ? ` (${type})` : ''}`, out, uses, `${h.pointer}/requestBody/content/${escapePointer(type)}/schema`);
    }
    for (const type of Object.keys(hContent)) if (!(type in bContent)) add('request-body-media-type-added', 'info', 'request body', `media type \`${type}\` also accepted`);
  }

  // Responses (response direction).
  const bResponses = (b.operation.responses ?? {}) as Json;
  const hResponses = (h.operation.responses ?? {}) as Json;
  const success = (status: string) => status.startsWith('2') || status.startsWith('3');
  for (const status of Object.keys(bResponses)) {
    if (status in hResponses) continue;
    if (success(status)) add('response-success-status-removed', 'breaking', `response ${status}`, 'removed: clients expecting it break');
    else add('response-non-success-status-removed', 'info', `response ${status}`, 'no longer returned');
  }
  for (const status of Object.keys(hResponses)) {
    if (status in bResponses) continue;
    add(success(status) ? 'response-success-status-added' : 'response-non-success-status-added', 'warning', `response ${status}`, success(status) ? 'new success status: clients must handle it' : 'new error status: clients may now see it');
  }
  for (const status of Object.keys(bResponses)) {
    if (!(status in hResponses)) continue;
    const bResponse = resolve(cmp.base, bResponses[status]) ?? {};
    const hResponse = resolve(cmp.head, hResponses[status]) ?? {};
    const bContent = (bResponse.content ?? {}) as Json;
    const hContent = (hResponse.content ?? {}) as Json;
    for (const type of Object.keys(bContent)) {
      if (!(type in hContent)) add('response-media-type-removed', 'breaking', `response ${status}`, `media type \`${type}\` no longer returned`);
      else cmp.schema((bContent[type] as Json).schema, (hContent[type] as Json).schema, 'response', `response ${status} body`, out, uses, `${h.pointer}/responses/${status}/content/${escapePointer(type)}/schema`);
    }
    for (const type of Object.keys(hContent)) if (!(type in bContent)) add('response-media-type-added', 'warning', `response ${status}`, `may now return media type \`${type}\``);
    const bHeaders = (bResponse.headers ?? {}) as Json;
    const hHeaders = (hResponse.headers ?? {}) as Json;
    const lower = (headers: Json) => new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), { name: k, header: v }]));
    const bh = lower(bHeaders);
    const hh = lower(hHeaders);
    for (const [key, { name, header }] of bh) {
      const now = hh.get(key);
      const where = `response ${status} header \`${name}\``;
      if (!now) {
        add('response-header-removed', 'breaking', where, 'removed');
        continue;
      }
      const before = resolve(cmp.base, header) ?? {};
      const after = resolve(cmp.head, now.header) ?? {};
      if (before.required === true && after.required !== true) add('response-header-became-optional', 'breaking', where, 'no longer always sent');
      // A response header is a string on the wire whatever its schema says: a retyped or widened one is a warning, not a break.
      const headerChanges: Change[] = [];
      cmp.schema(before.schema, after.schema, 'response', where, headerChanges, uses, `${h.pointer}/responses/${status}/headers/${escapePointer(name)}`);
      for (const change of headerChanges) out.push({ ...change, id: change.id.replace(/^response-/, 'response-header-'), severity: change.severity === 'breaking' ? 'warning' : change.severity });
    }
    for (const [key, { name }] of hh) if (!bh.has(key)) add('response-header-added', 'info', `response ${status} header \`${name}\``, 'added');
    if (!success(status)) {
      const bCodes = errorCodesOf(cmp.base, bResponse);
      const hCodes = errorCodesOf(cmp.head, hResponse);
      const added = [...hCodes].filter((c) => !bCodes.has(c));
      const removed = [...bCodes].filter((c) => !hCodes.has(c));
      if (added.length) add('response-error-code-added', 'warning', `response ${status}`, `may now return error code${added.length > 1 ? 's' : ''} ${list(added)}`);
      if (removed.length) add('response-error-code-removed', 'info', `response ${status}`, `no longer lists error code${removed.length > 1 ? 's' : ''} ${list(removed)}`);
    }
  }
}

interface CatalogEntry {
  [fact: string]: unknown;
}

/** The error catalog, when the document keeps one as `components.schemas.ErrorCode` (a oneOf of consts with x- facts). */
function catalogOf(doc: Doc): Map<string, CatalogEntry> | undefined {
  const schema = doc.components?.schemas?.ErrorCode;
  if (!isObject(schema) || !Array.isArray(schema.oneOf)) return undefined;
  const entries = new Map<string, CatalogEntry>();
  for (const entry of schema.oneOf) {
    if (!isObject(entry) || typeof entry.const !== 'string') continue;
    entries.set(entry.const, Object.fromEntries(Object.entries(entry).filter(([k]) => k.startsWith('x-'))));
  }
  return entries;
}

function compareDocument(base: Doc, head: Doc, out: Change[]): void {
  const add = (id: string, severity: Severity, where: string, message: string, pointer = '') => out.push({ id, severity, where, message, pointer });
  const bInfo = (base.info ?? {}) as Json;
  const hInfo = (head.info ?? {}) as Json;
  if (bInfo.version !== hInfo.version) add('api-version-changed', 'info', 'info.version', `${show(bInfo.version)} → ${show(hInfo.version)}`);
  if (JSON.stringify(base.servers) !== JSON.stringify(head.servers)) add('api-servers-changed', 'info', 'servers', 'changed');

  const bSchemes = (base.components?.securitySchemes ?? {}) as Json;
  const hSchemes = (head.components?.securitySchemes ?? {}) as Json;
  for (const [name, scheme] of Object.entries(bSchemes)) {
    const now = hSchemes[name];
    if (!now) {
      add('api-security-component-removed', 'breaking', `security scheme \`${name}\``, 'removed');
      continue;
    }
    const before = resolve(base, scheme) ?? {};
    const after = resolve(head, now) ?? {};
    for (const field of ['type', 'scheme', 'in', 'name', 'bearerFormat', 'x-credential-kind']) {
      if (before[field] !== after[field]) add('api-security-component-changed', 'breaking', `security scheme \`${name}\``, `${field} changed ${show(before[field] ?? null)} → ${show(after[field] ?? null)}`);
    }
  }
  for (const name of Object.keys(hSchemes)) if (!(name in bSchemes)) add('api-security-component-added', 'info', `security scheme \`${name}\``, 'added');

  // A component schema's name is a type name in every client generated from the document (openapi-typescript's
  // `components['schemas']['Mind']`): removing or renaming one breaks code that names it, whatever the wire does.
  const bSchemas = (base.components?.schemas ?? {}) as Json;
  const hSchemas = (head.components?.schemas ?? {}) as Json;
  const addedSchemas = Object.keys(hSchemas).filter((name) => !(name in bSchemas));
  for (const name of Object.keys(bSchemas)) {
    if (name in hSchemas) continue;
    const shape = JSON.stringify(bSchemas[name]);
    const renamedTo = addedSchemas.find((other) => JSON.stringify(hSchemas[other]) === shape);
    const message = renamedTo
      ? `renamed to \`${renamedTo}\`, the same shape: generated types named \`${name}\` are gone`
      : `removed: generated types named \`${name}\` are gone`;
    add('api-schema-removed', 'breaking', `schema \`${name}\``, message, `/components/schemas/${escapePointer(name)}`);
  }
  for (const name of addedSchemas) add('api-schema-added', 'info', `schema \`${name}\``, 'added', `/components/schemas/${escapePointer(name)}`);

  const bCatalog = catalogOf(base);
  const hCatalog = catalogOf(head);
  if (bCatalog && hCatalog) {
    const added = [...hCatalog.keys()].filter((c) => !bCatalog.has(c));
    const removed = [...bCatalog.keys()].filter((c) => !hCatalog.has(c));
    if (added.length) add('api-error-code-added', 'info', 'error catalog', `code${added.length > 1 ? 's' : ''} added: ${list(added)}`);
    if (removed.length) add('api-error-code-removed', 'info', 'error catalog', `code${removed.length > 1 ? 's' : ''} no longer emitted: ${list(removed)}`);
    for (const [code, before] of bCatalog) {
      const after = hCatalog.get(code);
      if (!after) continue;
      for (const fact of new Set([...Object.keys(before), ...Object.keys(after)])) {
        if (JSON.stringify(before[fact]) === JSON.stringify(after[fact])) continue;
        if (fact === 'x-reasons') {
          compareReasons(code, before[fact], after[fact], add);
          continue;
        }
        // A client matches (status, code) and reads the listed fields: changing them breaks it.
        const severity: Severity = fact === 'x-status' || fact === 'x-type' ? 'breaking' : fact === 'x-fields' || fact === 'x-retry-after' ? 'warning' : 'info';
        add('api-error-code-changed', severity, `error code \`${code}\``, `${fact.slice(2)} changed ${show(before[fact] ?? null)} → ${show(after[fact] ?? null)}`);
      }
    }
  }
}

/**
 * A code's `reason`s (x-reasons), one by one. A client branches on a reason: one that is no longer sent
 * leaves its branch dead (a warning, as a changed `x-fields`); a new one reaches a client's default
 * branch (info); a reworded meaning is prose (info).
 */
function compareReasons(code: string, before: unknown, after: unknown, add: (id: string, severity: Severity, where: string, message: string) => void): void {
  const reasonsOf = (value: unknown): Json => (isObject(value) ? (value as Json) : {});
  const b = reasonsOf(before);
  const h = reasonsOf(after);
  const where = `error code \`${code}\``;
  const removed = Object.keys(b).filter((r) => !(r in h));
  const added = Object.keys(h).filter((r) => !(r in b));
  const reworded = Object.keys(b).filter((r) => r in h && JSON.stringify(b[r]) !== JSON.stringify(h[r]));
  if (removed.length) add('api-error-reason-removed', 'warning', where, `reason${removed.length > 1 ? 's' : ''} no longer sent: ${list(removed)}`);
  if (added.length) add('api-error-reason-added', 'info', where, `reason${added.length > 1 ? 's' : ''} added: ${list(added)}`);
  if (reworded.length) add('api-error-reason-changed', 'info', where, `meaning reworded: ${list(reworded)}`);
}

export interface CompareOptions {
  /**
   * Re-levels checks by id (`{ 'response-max-length-increased': 'warning' }`). Our one default that differs from
   * oasdiff on purpose: `api-operation-id-renamed` is breaking, because an operationId names SDK methods, CLI
   * commands and MCP tools; set it to `info` for an API whose clients do not see operation ids.
   */
  levels?: Record<string, Severity>;
}

export function compareSpecs(baseDocument: object, headDocument: object, options: CompareOptions = {}): Review {
  const review = compareUnleveled(baseDocument, headDocument);
  return options.levels && Object.keys(options.levels).length > 0 ? relevel(review, options.levels) : review;
}

/** Applies level overrides and rebuilds the derived severities and the breaking list. */
function relevel(review: Review, levels: Record<string, Severity>): Review {
  const fix = (changes: Change[]) => changes.map((c) => (levels[c.id] ? { ...c, severity: levels[c.id]! } : c));
  const sharedSchemas = review.sharedSchemas.map((s) => ({ ...s, changes: fix(s.changes) }));
  const sharedByKey = new Map(sharedSchemas.map((s) => [`${s.direction}:${s.schema}`, s]));
  const changed = review.changed.map((o) => {
    const changes = fix(o.changes);
    const shared = o.sharedSchemas.map((s) => ({ ...s, severity: worst(sharedByKey.get(`${s.direction}:${s.schema}`)!.changes.map((c) => c.severity)) }));
    return { ...o, changes, sharedSchemas: shared, severity: worst([...changes.map((c) => c.severity), ...shared.map((s) => s.severity)]) };
  });
  const document = fix(review.document);
  const breaking = review.breaking
    .map((b) => (levels[b.id] ? { ...b, severity: levels[b.id]! } : { ...b, severity: 'breaking' as Severity }))
    .filter((b) => b.severity === 'breaking')
    .map(({ severity: _severity, ...b }) => b);
  // Changes re-levelled up to breaking join the list.
  const raised = (changes: Change[], operations: string[], where: (c: Change) => string) =>
    changes.filter((c) => c.severity === 'breaking' && levels[c.id] === 'breaking').map((c) => ({ id: c.id, operations, where: where(c), message: c.message, pointer: c.pointer }));
  const promoted = [
    ...changed.flatMap((o) => raised(o.changes, [o.operation.operationId], (c) => c.where)),
    ...sharedSchemas.flatMap((s) => raised(s.changes, s.operations, (c) => sharedWhere(s, c))),
    ...raised(document, [], (c) => c.where),
  ].filter((p) => !breaking.some((b) => b.id === p.id && b.where === p.where && b.message === p.message));
  return { ...review, changed, sharedSchemas, document, breaking: [...breaking, ...promoted] };
}

function sharedWhere(s: SharedSchemaChange, c: Change): string {
  return `schema \`${s.schema}\` (${s.direction})${c.where === '(the schema)' ? '' : ` ${c.where}`}`;
}

function compareUnleveled(baseDocument: object, headDocument: object): Review {
  const base = baseDocument as Doc;
  const head = headDocument as Doc;
  const cmp = new Comparison(base, head);
  const bOps = operationsOf(base);
  const hOps = operationsOf(head);

  const added = [...hOps.entries()].filter(([key]) => !bOps.has(key)).map(([, o]) => o.ref);
  const removed = [...bOps.entries()].filter(([key]) => !hOps.has(key)).map(([, o]) => o.ref);
  const pointerOf = new Map([...bOps.values(), ...hOps.values()].map((o) => [`${o.ref.method} ${o.ref.path}`, o.pointer]));
  // An operation whose id changed and nothing else of its method and path: the id change is breaking
  // on its own, and the operation is still compared, so that what else changed in it is not hidden.
  const renamedFrom = new Map<string, OperationRef>();
  const baseOfRenamed = new Map<LocatedOperation, LocatedOperation>();
  for (const [key, b] of bOps) {
    if (hOps.has(key)) continue;
    const h = [...hOps].find(([headKey, candidate]) => !bOps.has(headKey) && candidate.ref.method === b.ref.method && templateOf(candidate.ref.path) === templateOf(b.ref.path))?.[1];
    if (!h) continue;
    renamedFrom.set(b.ref.operationId, h.ref);
    baseOfRenamed.set(h, b);
  }
  const perOperation: { ref: OperationRef; changes: Change[]; uses: Set<string> }[] = [];
  for (const [id, h] of hOps) {
    const b = bOps.get(id) ?? baseOfRenamed.get(h);
    if (!b) continue;
    const changes: Change[] = [];
    const uses = new Set<string>();
    compareOperation(cmp, b, h, changes, uses);
    perOperation.push({ ref: h.ref, changes, uses });
  }

  const reached = perOperation.map((o) => ({ ...o, uses: cmp.closure(o.uses) }));
  const sharedSchemas: SharedSchemaChange[] = [...cmp.sharedGroups.entries()]
    .filter(([, g]) => g.changes.length > 0)
    .map(([key, g]) => ({
      schema: g.schema,
      direction: g.direction,
      changes: g.changes,
      operations: reached.filter((o) => o.uses.has(key)).map((o) => o.ref.operationId),
    }))
    .sort((x, y) => rank[worst(y.changes.map((c) => c.severity))] - rank[worst(x.changes.map((c) => c.severity))]);
  const sharedByKey = new Map(sharedSchemas.map((s) => [`${s.direction}:${s.schema}`, s]));

  const changed: OperationChange[] = reached
    .map(({ ref, changes, uses }) => {
      const shared = [...uses]
        .map((key) => sharedByKey.get(key))
        .filter((s): s is SharedSchemaChange => s !== undefined)
        .map((s) => ({ schema: s.schema, direction: s.direction, severity: worst(s.changes.map((c) => c.severity)) }));
      return { operation: ref, changes, sharedSchemas: shared, severity: worst([...changes.map((c) => c.severity), ...shared.map((s) => s.severity)]) };
    })
    .filter((o) => o.changes.length > 0 || o.sharedSchemas.length > 0);

  const document: Change[] = [];
  compareDocument(base, head, document);
  // Webhooks (OpenAPI 3.1): the API calls the client; one removed is a callback a client relies on gone.
  const bHooks = (isObject(base.webhooks) ? base.webhooks : {}) as Json;
  const hHooks = (isObject(head.webhooks) ? head.webhooks : {}) as Json;
  for (const name of Object.keys(bHooks)) {
    if (!(name in hHooks)) document.push({ id: 'webhook-removed', severity: 'breaking', where: `webhook \`${name}\``, message: 'removed', pointer: `/webhooks/${escapePointer(name)}` });
  }
  for (const name of Object.keys(hHooks)) {
    if (!(name in bHooks)) document.push({ id: 'webhook-added', severity: 'info', where: `webhook \`${name}\``, message: 'added', pointer: `/webhooks/${escapePointer(name)}` });
  }

  const breaking: Review['breaking'] = [
    ...removed.map((r) => ({
      id: renamedFrom.has(r.operationId) ? 'api-operation-id-renamed' : 'api-removed',
      pointer: renamedFrom.has(r.operationId) ? pointerOf.get(`${renamedFrom.get(r.operationId)!.method} ${renamedFrom.get(r.operationId)!.path}`) ?? '' : pointerOf.get(`${r.method} ${r.path}`) ?? '',
      operations: [r.operationId],
      where: `\`${r.method} ${r.path}\``,
      message: renamedFrom.has(r.operationId)
        ? `operation id renamed to \`${renamedFrom.get(r.operationId)!.operationId}\` (client methods, CLI commands and MCP tools change name)`
        : 'operation removed',
    })),
    ...changed.flatMap((o) =>
      o.changes.filter((c) => c.severity === 'breaking').map((c) => ({ id: c.id, operations: [o.operation.operationId], where: c.where, message: c.message, pointer: c.pointer })),
    ),
    ...sharedSchemas.flatMap((s) =>
      s.changes
        .filter((c) => c.severity === 'breaking')
        .map((c) => ({ id: c.id, operations: s.operations, where: sharedWhere(s, c), message: c.message, pointer: c.pointer })),
    ),
    ...document.filter((c) => c.severity === 'breaking').map((c) => ({ id: c.id, operations: [], where: c.where, message: c.message, pointer: c.pointer })),
  ];

  return { added, removed, changed, sharedSchemas, document, breaking };
}
