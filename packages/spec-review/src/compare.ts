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
  severity: Severity;
  /** Where in the operation or shared schema: `request body .name`, `query limit`, `response 200 body .items[].id`. */
  where: string;
  message: string;
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
  breaking: { operations: string[]; where: string; message: string }[];
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
  operation: Json;
  parameters: Json[];
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
      found.set(operationId, {
        ref: { operationId, method: method.toUpperCase(), path, summary: String(operation.summary ?? '') },
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

const upperBounds = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties', 'x-max-bytes'] as const;
const lowerBounds = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties', 'x-min-bytes'] as const;

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
   * recorded as one that uses it.
   */
  schema(b: unknown, h: unknown, direction: Direction, where: string, out: Change[], uses: Set<string>): void {
    const bName = schemaRefName(b);
    const hName = schemaRefName(h);
    if (bName && hName && bName === hName) {
      if (bName === this.catalogSchema) return;
      const key = `${direction}:${bName}`;
      if (!this.sharedGroups.has(key)) {
        const group: SharedGroup = { schema: bName, direction, changes: [], children: new Set() };
        this.sharedGroups.set(key, group); // before descending, so a cycle ends here
        this.schemaBody(resolve(this.base, b) ?? {}, resolve(this.head, h) ?? {}, direction, '', group.changes, group.children);
      }
      uses.add(key);
      return;
    }
    // Different components, or inline on one side: compare the contents here.
    this.schemaBody(this.inline(this.base, b), this.inline(this.head, h), direction, where, out, uses);
  }

  private inline(doc: Doc, node: unknown): Json {
    if (node === true || node === undefined) return {};
    if (node === false) return { not: {} };
    return resolve(doc, node) ?? {};
  }

  private schemaBody(b: Json, h: Json, direction: Direction, where: string, out: Change[], uses: Set<string>): void {
    const at = where || '(the schema)';
    const add = (severity: Severity, message: string) => out.push({ severity, where: at, message });
    const request = direction === 'request';

    // Types. Requests: a type no longer accepted breaks senders. Responses: a new type (null included) breaks readers.
    const bTypes = typesOf(b);
    const hTypes = typesOf(h);
    const declared = (s: Json) => list(Array.isArray(s.type) ? s.type : [s.type]);
    if (bTypes && hTypes) {
      const removed = [...bTypes].filter((t) => !hTypes.has(t) && !(t === 'integer' && bTypes.has('number')));
      const added = [...hTypes].filter((t) => !bTypes.has(t) && !(t === 'integer' && hTypes.has('number')));
      if (request) {
        if (removed.length) add('breaking', `no longer accepts type ${list(removed)} (retyped ${declared(b)} → ${declared(h)})`);
        if (added.length) add('info', `also accepts type ${list(added)}`);
      } else {
        if (added.length) add('breaking', `retyped: may now be ${list(added)} (${declared(b)} → ${declared(h)})`);
        if (removed.length) add('info', `is no longer ${list(removed)}`);
      }
    } else if (!bTypes && hTypes && request) {
      add('breaking', `now restricted to type ${declared(h)}`);
    } else if (bTypes && !hTypes && !request && !enumeration(h)) {
      add('breaking', `retyped: no longer restricted to ${declared(b)}`);
    }

    // Enumerations.
    const bEnum = enumeration(b);
    const hEnum = enumeration(h);
    if (bEnum && hEnum) {
      const key = (v: unknown) => JSON.stringify(v);
      const hKeys = new Set(hEnum.map(key));
      const bKeys = new Set(bEnum.map(key));
      const removed = bEnum.filter((v) => !hKeys.has(key(v)));
      const added = hEnum.filter((v) => !bKeys.has(key(v)));
      if (request) {
        if (removed.length) add('breaking', `enum value${removed.length > 1 ? 's' : ''} ${list(removed)} no longer accepted (narrowed)`);
        if (added.length) add('info', `enum value${added.length > 1 ? 's' : ''} ${list(added)} added`);
      } else {
        if (added.length) add('warning', `may now return enum value${added.length > 1 ? 's' : ''} ${list(added)}: clients that switch exhaustively must handle ${added.length > 1 ? 'them' : 'it'}`);
        if (removed.length) add('info', `no longer returns enum value${removed.length > 1 ? 's' : ''} ${list(removed)}`);
      }
    } else if (!bEnum && hEnum) {
      add(request ? 'breaking' : 'info', `now limited to the values ${list(hEnum)}`);
    } else if (bEnum && !hEnum) {
      add(request ? 'info' : 'warning', `no longer limited to ${list(bEnum)}`);
    }

    // Bounds.
    for (const keyword of upperBounds) {
      const before = b[keyword];
      const after = h[keyword];
      if (before === after) continue;
      const narrowed = typeof after === 'number' && (typeof before !== 'number' || after < before);
      const described = before === undefined ? `\`${keyword}: ${String(after)}\` added` : after === undefined ? `\`${keyword}\` removed (was ${String(before)})` : `\`${keyword}\` ${narrowed ? 'lowered' : 'raised'} ${String(before)} → ${String(after)}`;
      if (request) add(narrowed ? 'breaking' : 'info', `${described}${narrowed ? ' (narrowed)' : ''}`);
      else add(narrowed ? 'info' : 'warning', `${described}${narrowed ? '' : ': values may now be larger'}`);
    }
    for (const keyword of lowerBounds) {
      const before = b[keyword];
      const after = h[keyword];
      if (before === after) continue;
      const narrowed = typeof after === 'number' && (typeof before !== 'number' || after > before);
      const described = before === undefined ? `\`${keyword}: ${String(after)}\` added` : after === undefined ? `\`${keyword}\` removed (was ${String(before)})` : `\`${keyword}\` ${narrowed ? 'raised' : 'lowered'} ${String(before)} → ${String(after)}`;
      if (request) add(narrowed ? 'breaking' : 'info', `${described}${narrowed ? ' (narrowed)' : ''}`);
      else add(narrowed ? 'info' : 'warning', `${described}${narrowed ? '' : ': values may now be smaller'}`);
    }
    for (const keyword of ['pattern', 'format', 'multipleOf'] as const) {
      const before = b[keyword];
      const after = h[keyword];
      if (before === after) continue;
      const described = before === undefined ? `${keyword} ${show(after)} added` : after === undefined ? `${keyword} ${show(before)} removed` : `${keyword} changed ${show(before)} → ${show(after)}`;
      if (request) add(after === undefined ? 'info' : 'breaking', described);
      else add(after === undefined ? 'warning' : 'info', described);
    }
    if (b.uniqueItems !== h.uniqueItems && (b.uniqueItems === true || h.uniqueItems === true)) {
      const now = h.uniqueItems === true;
      add(request ? (now ? 'breaking' : 'info') : now ? 'info' : 'warning', now ? 'items must now be unique' : 'items no longer unique');
    }

    // Objects.
    const bProps = (isObject(b.properties) ? b.properties : {}) as Json;
    const hProps = (isObject(h.properties) ? h.properties : {}) as Json;
    const bRequired = new Set((b.required as string[] | undefined) ?? []);
    const hRequired = new Set((h.required as string[] | undefined) ?? []);
    const hClosed = h.additionalProperties === false || h.unevaluatedProperties === false;
    for (const name of Object.keys(bProps)) {
      if (name in hProps) continue;
      if (request) add(hClosed ? 'breaking' : 'warning', `property \`${name}\` removed${hClosed ? ': the body is closed, so a client still sending it is refused' : ''}`);
      else add('breaking', `response property \`${name}\` removed`);
    }
    for (const name of Object.keys(hProps)) {
      if (name in bProps) continue;
      if (request) add(hRequired.has(name) ? 'breaking' : 'info', hRequired.has(name) ? `new required property \`${name}\`` : `new optional property \`${name}\``);
      else add('info', `new response property \`${name}\``);
    }
    for (const name of Object.keys(bProps)) {
      if (!(name in hProps)) continue;
      if (!bRequired.has(name) && hRequired.has(name)) add(request ? 'breaking' : 'info', `property \`${name}\` is now required`);
      if (bRequired.has(name) && !hRequired.has(name)) add(request ? 'info' : 'breaking', request ? `property \`${name}\` is now optional` : `property \`${name}\` is no longer always present`);
      this.schema(bProps[name], hProps[name], direction, `${where}.${name}`, out, uses);
    }
    const bOpen = b.additionalProperties === undefined || b.additionalProperties === true;
    const hOpen = h.additionalProperties === undefined || h.additionalProperties === true;
    const objectish = (s: Json) => s.type === 'object' || isObject(s.properties);
    if (objectish(b) || objectish(h)) {
      if (bOpen && h.additionalProperties === false) add(request ? 'breaking' : 'info', 'additionalProperties closed: unknown properties are now refused');
      if (b.additionalProperties === false && hOpen) add(request ? 'info' : 'warning', 'additionalProperties opened: other properties may appear');
    }
    if (isObject(b.additionalProperties) && isObject(h.additionalProperties)) {
      this.schema(b.additionalProperties, h.additionalProperties, direction, `${where}.*`, out, uses);
    }

    // Arrays.
    if (b.items !== undefined && h.items !== undefined) this.schema(b.items, h.items, direction, `${where}[]`, out, uses);

    // Alternatives that are not enumerations: match branches by component name, title, or const-valued properties.
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const bAlt = b[keyword];
      const hAlt = h[keyword];
      if (!Array.isArray(bAlt) || !Array.isArray(hAlt) || enumeration(b) || enumeration(h)) continue;
      const bKeys = bAlt.map((s, i) => this.branchKey(this.base, s, i));
      const hKeys = hAlt.map((s, i) => this.branchKey(this.head, s, i));
      bAlt.forEach((branch, i) => {
        const j = hKeys.indexOf(bKeys[i]!);
        if (j < 0) add(request ? 'breaking' : 'info', `${keyword} variant ${bKeys[i]} removed`);
        else this.schema(branch, hAlt[j], direction, `${where}<${bKeys[i]}>`, out, uses);
      });
      hAlt.forEach((_branch, j) => {
        if (!bKeys.includes(hKeys[j]!)) add(request ? 'info' : 'warning', `${keyword} variant ${hKeys[j]} added${request ? '' : ': clients must handle it'}`);
      });
    }
    if (Array.isArray(b.allOf) && Array.isArray(h.allOf)) {
      const n = Math.min(b.allOf.length, h.allOf.length);
      for (let i = 0; i < n; i++) this.schema(b.allOf[i], h.allOf[i], direction, `${where}<allOf ${i}>`, out, uses);
      if (h.allOf.length > b.allOf.length) add(request ? 'breaking' : 'info', 'allOf gained a constraint');
      if (h.allOf.length < b.allOf.length) add(request ? 'info' : 'warning', 'allOf lost a constraint');
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

function compareOperation(cmp: Comparison, b: LocatedOperation, h: LocatedOperation, out: Change[], uses: Set<string>): void {
  const add = (severity: Severity, where: string, message: string) => out.push({ severity, where, message });

  if (b.ref.method !== h.ref.method || b.ref.path !== h.ref.path) {
    add('breaking', 'operation', `moved from \`${b.ref.method} ${b.ref.path}\` to \`${h.ref.method} ${h.ref.path}\``);
  }
  if (b.operation.summary !== h.operation.summary) add('info', 'summary', `summary changed to “${String(h.operation.summary ?? '')}”`);
  if (b.operation.description !== h.operation.description) add('info', 'description', 'description changed');
  if (b.operation.deprecated !== true && h.operation.deprecated === true) add('warning', 'operation', 'deprecated');

  // Security: every credential the operation accepted must still be accepted, with no new scope.
  const bSec = securityOf(b.operation, cmp.base);
  const hSec = securityOf(h.operation, cmp.head);
  const bOpen = !bSec || bSec.length === 0 || bSec.some((r) => r.size === 0);
  const hOpen = !hSec || hSec.length === 0 || hSec.some((r) => r.size === 0);
  if (bOpen && !hOpen) add('breaking', 'security', 'now needs a credential');
  else if (!bOpen && hOpen) add('info', 'security', 'no longer needs a credential');
  else if (!bOpen && !hOpen) {
    for (const requirement of bSec!) {
      const schemes = [...requirement.keys()];
      const match = hSec!.find((r) => schemes.every((s) => r.has(s)));
      if (!match) {
        add('breaking', 'security', `no longer accepts ${schemes.map((s) => `\`${s}\``).join(' + ')} credentials`);
        continue;
      }
      for (const scheme of schemes) {
        const newScopes = [...match.get(scheme)!].filter((s) => !requirement.get(scheme)!.has(s));
        if (newScopes.length) add('breaking', 'security', `\`${scheme}\` now needs scope ${list(newScopes)}`);
        const dropped = [...requirement.get(scheme)!].filter((s) => !match.get(scheme)!.has(s));
        if (dropped.length) add('info', 'security', `\`${scheme}\` no longer needs scope ${list(dropped)}`);
      }
    }
    for (const requirement of hSec!) {
      if (!bSec!.some((r) => [...requirement.keys()].every((s) => r.has(s)))) {
        add('info', 'security', `also accepts ${[...requirement.keys()].map((s) => `\`${s}\``).join(' + ')} credentials`);
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
    if (after !== undefined && before === undefined) add('breaking', extension, `now ${meaning} (\`${extension}: ${String(after)}\`)`);
    else if (after === undefined) add('info', extension, `no longer ${meaning}`);
    else add('warning', extension, `changed ${show(before)} → ${show(after)}`);
  }
  for (const extension of ['x-dpop-htm', 'x-credential-refusal', 'x-read-only', 'x-automatic-retry']) {
    const before = b.operation[extension];
    const after = h.operation[extension];
    if (JSON.stringify(before) === JSON.stringify(after)) continue;
    const severity: Severity = extension === 'x-dpop-htm' && before !== undefined ? 'breaking' : extension === 'x-read-only' && before === true ? 'warning' : extension === 'x-credential-refusal' ? 'warning' : 'info';
    add(severity, extension, `changed ${before === undefined ? '(none)' : show(before)} → ${after === undefined ? '(none)' : show(after)}`);
  }

  // Parameters (request direction).
  const bParams = new Map(b.parameters.map((p) => [parameterKey(p), p]));
  const hParams = new Map(h.parameters.map((p) => [parameterKey(p), p]));
  for (const [key, p] of bParams) {
    if (p.in === 'path') continue; // a path change is reported as a move
    const where = `${String(p.in)} parameter \`${String(p.name)}\``;
    const now = hParams.get(key);
    if (!now) {
      add(p.in === 'query' ? 'breaking' : 'warning', where, p.in === 'query' ? 'removed: a client still sending it is refused' : 'removed');
      continue;
    }
    if (p.required !== true && now.required === true) add('breaking', where, 'is now required');
    if (p.required === true && now.required !== true) add('info', where, 'is now optional');
    if (p['x-missing-code'] !== now['x-missing-code']) add('warning', where, `missing-code changed ${show(p['x-missing-code'] ?? null)} → ${show(now['x-missing-code'] ?? null)}`);
    cmp.schema(p.schema, now.schema, 'request', where, out, uses);
  }
  for (const [key, p] of hParams) {
    if (bParams.has(key) || p.in === 'path') continue;
    const where = `${String(p.in)} parameter \`${String(p.name)}\``;
    add(p.required === true ? 'breaking' : 'info', where, p.required === true ? 'new required parameter' : 'new optional parameter');
  }
  for (const [key, p] of hParams) {
    if (p.in !== 'path' || !bParams.has(key)) continue;
    cmp.schema(bParams.get(key)!.schema, p.schema, 'request', `path parameter \`${String(p.name)}\``, out, uses);
  }

  // Request body.
  const bBody = resolve(cmp.base, b.operation.requestBody);
  const hBody = resolve(cmp.head, h.operation.requestBody);
  if (!bBody && hBody) add(hBody.required === true ? 'breaking' : 'info', 'request body', hBody.required === true ? 'now required' : 'optional body added');
  else if (bBody && !hBody) add('breaking', 'request body', 'removed: a client still sending one is refused');
  else if (bBody && hBody) {
    if (bBody.required !== true && hBody.required === true) add('breaking', 'request body', 'is now required');
    const bContent = (bBody.content ?? {}) as Json;
    const hContent = (hBody.content ?? {}) as Json;
    for (const type of Object.keys(bContent)) {
      if (!(type in hContent)) add('breaking', 'request body', `media type \`${type}\` no longer accepted`);
      else cmp.schema((bContent[type] as Json).schema, (hContent[type] as Json).schema, 'request', `request body${Object.keys(hContent).length > 1 ? ` (${type})` : ''}`, out, uses);
    }
    for (const type of Object.keys(hContent)) if (!(type in bContent)) add('info', 'request body', `media type \`${type}\` also accepted`);
  }

  // Responses (response direction).
  const bResponses = (b.operation.responses ?? {}) as Json;
  const hResponses = (h.operation.responses ?? {}) as Json;
  const success = (status: string) => status.startsWith('2') || status.startsWith('3');
  for (const status of Object.keys(bResponses)) {
    if (status in hResponses) continue;
    if (success(status)) add('breaking', `response ${status}`, 'removed: clients expecting it break');
    else add('info', `response ${status}`, 'no longer returned');
  }
  for (const status of Object.keys(hResponses)) {
    if (status in bResponses) continue;
    add('warning', `response ${status}`, success(status) ? 'new success status: clients must handle it' : 'new error status: clients may now see it');
  }
  for (const status of Object.keys(bResponses)) {
    if (!(status in hResponses)) continue;
    const bResponse = resolve(cmp.base, bResponses[status]) ?? {};
    const hResponse = resolve(cmp.head, hResponses[status]) ?? {};
    const bContent = (bResponse.content ?? {}) as Json;
    const hContent = (hResponse.content ?? {}) as Json;
    for (const type of Object.keys(bContent)) {
      if (!(type in hContent)) add('breaking', `response ${status}`, `media type \`${type}\` no longer returned`);
      else cmp.schema((bContent[type] as Json).schema, (hContent[type] as Json).schema, 'response', `response ${status} body`, out, uses);
    }
    for (const type of Object.keys(hContent)) if (!(type in bContent)) add('warning', `response ${status}`, `may now return media type \`${type}\``);
    const bHeaders = (bResponse.headers ?? {}) as Json;
    const hHeaders = (hResponse.headers ?? {}) as Json;
    const lower = (headers: Json) => new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), { name: k, header: v }]));
    const bh = lower(bHeaders);
    const hh = lower(hHeaders);
    for (const [key, { name, header }] of bh) {
      const now = hh.get(key);
      const where = `response ${status} header \`${name}\``;
      if (!now) {
        add('breaking', where, 'removed');
        continue;
      }
      const before = resolve(cmp.base, header) ?? {};
      const after = resolve(cmp.head, now.header) ?? {};
      if (before.required === true && after.required !== true) add('breaking', where, 'no longer always sent');
      cmp.schema(before.schema, after.schema, 'response', where, out, uses);
    }
    for (const [key, { name }] of hh) if (!bh.has(key)) add('info', `response ${status} header \`${name}\``, 'added');
    if (!success(status)) {
      const bCodes = errorCodesOf(cmp.base, bResponse);
      const hCodes = errorCodesOf(cmp.head, hResponse);
      const added = [...hCodes].filter((c) => !bCodes.has(c));
      const removed = [...bCodes].filter((c) => !hCodes.has(c));
      if (added.length) add('warning', `response ${status}`, `may now return error code${added.length > 1 ? 's' : ''} ${list(added)}`);
      if (removed.length) add('info', `response ${status}`, `no longer lists error code${removed.length > 1 ? 's' : ''} ${list(removed)}`);
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
  const add = (severity: Severity, where: string, message: string) => out.push({ severity, where, message });
  const bInfo = (base.info ?? {}) as Json;
  const hInfo = (head.info ?? {}) as Json;
  if (bInfo.version !== hInfo.version) add('info', 'info.version', `${show(bInfo.version)} → ${show(hInfo.version)}`);
  if (JSON.stringify(base.servers) !== JSON.stringify(head.servers)) add('info', 'servers', 'changed');

  const bSchemes = (base.components?.securitySchemes ?? {}) as Json;
  const hSchemes = (head.components?.securitySchemes ?? {}) as Json;
  for (const [name, scheme] of Object.entries(bSchemes)) {
    const now = hSchemes[name];
    if (!now) {
      add('breaking', `security scheme \`${name}\``, 'removed');
      continue;
    }
    const before = resolve(base, scheme) ?? {};
    const after = resolve(head, now) ?? {};
    for (const field of ['type', 'scheme', 'in', 'name', 'bearerFormat', 'x-credential-kind']) {
      if (before[field] !== after[field]) add('breaking', `security scheme \`${name}\``, `${field} changed ${show(before[field] ?? null)} → ${show(after[field] ?? null)}`);
    }
  }
  for (const name of Object.keys(hSchemes)) if (!(name in bSchemes)) add('info', `security scheme \`${name}\``, 'added');

  const bCatalog = catalogOf(base);
  const hCatalog = catalogOf(head);
  if (bCatalog && hCatalog) {
    const added = [...hCatalog.keys()].filter((c) => !bCatalog.has(c));
    const removed = [...bCatalog.keys()].filter((c) => !hCatalog.has(c));
    if (added.length) add('info', 'error catalog', `code${added.length > 1 ? 's' : ''} added: ${list(added)}`);
    if (removed.length) add('info', 'error catalog', `code${removed.length > 1 ? 's' : ''} no longer emitted: ${list(removed)}`);
    for (const [code, before] of bCatalog) {
      const after = hCatalog.get(code);
      if (!after) continue;
      for (const fact of new Set([...Object.keys(before), ...Object.keys(after)])) {
        if (JSON.stringify(before[fact]) === JSON.stringify(after[fact])) continue;
        // A client matches (status, code) and reads the listed fields: changing them breaks it.
        const severity: Severity = fact === 'x-status' || fact === 'x-type' ? 'breaking' : fact === 'x-fields' || fact === 'x-retry-after' ? 'warning' : 'info';
        add(severity, `error code \`${code}\``, `${fact.slice(2)} changed ${show(before[fact] ?? null)} → ${show(after[fact] ?? null)}`);
      }
    }
  }
}

export function compareSpecs(baseDocument: object, headDocument: object): Review {
  const base = baseDocument as Doc;
  const head = headDocument as Doc;
  const cmp = new Comparison(base, head);
  const bOps = operationsOf(base);
  const hOps = operationsOf(head);

  const added = [...hOps.values()].filter((o) => !bOps.has(o.ref.operationId)).map((o) => o.ref);
  const removed = [...bOps.values()].filter((o) => !hOps.has(o.ref.operationId)).map((o) => o.ref);
  const perOperation: { ref: OperationRef; changes: Change[]; uses: Set<string> }[] = [];
  for (const [id, h] of hOps) {
    const b = bOps.get(id);
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

  const renamedFrom = new Map<string, OperationRef>();
  for (const r of removed) {
    const same = added.find((a) => a.method === r.method && a.path === r.path);
    if (same) renamedFrom.set(r.operationId, same);
  }
  const breaking: Review['breaking'] = [
    ...removed.map((r) => ({
      operations: [r.operationId],
      where: `\`${r.method} ${r.path}\``,
      message: renamedFrom.has(r.operationId)
        ? `operation id renamed to \`${renamedFrom.get(r.operationId)!.operationId}\` (client methods, CLI commands and MCP tools change name)`
        : 'operation removed',
    })),
    ...changed.flatMap((o) =>
      o.changes.filter((c) => c.severity === 'breaking').map((c) => ({ operations: [o.operation.operationId], where: c.where, message: c.message })),
    ),
    ...sharedSchemas.flatMap((s) =>
      s.changes
        .filter((c) => c.severity === 'breaking')
        .map((c) => ({ operations: s.operations, where: `schema \`${s.schema}\` (${s.direction})${c.where === '(the schema)' ? '' : ` ${c.where}`}`, message: c.message })),
    ),
    ...document.filter((c) => c.severity === 'breaking').map((c) => ({ operations: [], where: c.where, message: c.message })),
  ];

  return { added, removed, changed, sharedSchemas, document, breaking };
}
