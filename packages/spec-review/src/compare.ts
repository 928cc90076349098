/**
 * Direction-aware comparison of two bundled OpenAPI 3.0 or 3.1 documents (component `$ref`s kept,
 * as @redocly/openapi-core's bundle leaves them). This module matches operations and shared
 * schemas and hands each pair to the check families (checks/*.ts), which emit registered check ids
 * (registry.ts gives each its level).
 *
 * A change is judged by who is hurt by it: in a request (the client writes, the server validates)
 * accepting less is breaking; in a response (the server writes, the client reads) promising more
 * than before is breaking too, because clients were sized by the old bounds. Operations are matched
 * by operationId, or by method and path (parameter names left out) when there is none; webhooks'
 * operations are compared the same way.
 */
import { checkOf } from './registry.js';
import { escapeSegment } from '@gateway-minds/contract/json-pointer';
import { isObject, rank, resolve, same, schemaRefName, templateOf, worst, quote, type BreakingChange, type Change, type Direction, type Doc, type Json, type OperationChange, type OperationRef, type Review, type Severity, type SharedSchemaChange } from './model.js';
import { emit, keywordPointer, type SchemaScope, type Typing } from './scope.js';
import { schemaTypes, typeKeywords } from './checks/schema-types.js';
import { constraintKeywords, schemaConstraints } from './checks/schema-constraints.js';
import { objectKeywords, schemaObjects } from './checks/schema-objects.js';
import { compositionKeywords, nullableWrapped, schemaComposition } from './checks/schema-composition.js';
import { schemaAnnotations } from './checks/schema-annotations.js';
import { compareLifecycle, removalCheck } from './checks/lifecycle.js';
import { compareOperationSecurity, compareSecuritySchemes } from './checks/security.js';
import { compareExtensions, examinedOperationFields } from './checks/extensions.js';
import { compareParameters } from './checks/parameters.js';
import { compareRequestBody } from './checks/request-body.js';
import { compareResponses } from './checks/responses.js';
import { compareDocument } from './checks/document.js';
import { catalogOf, compareErrorCatalog } from './checks/error-catalog.js';

export * from './model.js';

export interface LocatedOperation {
  ref: OperationRef;
  /** JSON pointer to the operation object. */
  pointer: string;
  operation: Json;
  parameters: Json[];
}

const methods = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

function operationsOf(doc: Doc): Map<string, LocatedOperation> {
  const found = new Map<string, LocatedOperation>();
  const walk = (items: Record<string, Json>, root: 'paths' | 'webhooks') => {
    for (const [path, itemOrRef] of Object.entries(items)) {
      const item = resolve(doc, itemOrRef) ?? {};
      const shared = ((item.parameters as unknown[] | undefined) ?? []).map((p) => resolve(doc, p) ?? {});
      for (const method of methods) {
        const operation = item[method];
        if (!isObject(operation)) continue;
        const own = ((operation.parameters as unknown[] | undefined) ?? []).map((p) => resolve(doc, p) ?? {});
        const key = (p: Json) => `${String(p.in)}:${String(p.name).toLowerCase()}`;
        const parameters = [...shared.filter((s) => !own.some((o) => key(o) === key(s))), ...own];
        const shownPath = root === 'webhooks' ? `webhook ${path}` : path;
        const hasId = typeof operation.operationId === 'string';
        const operationId = hasId ? (operation.operationId as string) : `${method.toUpperCase()} ${shownPath}`;
        // Without an operationId an operation is known by method and path, its parameter names left out (`/books/{bookId}` and `/books/{id}` are one path).
        const mapKey = hasId ? operationId : `${method.toUpperCase()} ${root === 'webhooks' ? shownPath : templateOf(path)}`;
        found.set(mapKey, {
          ref: { operationId, method: method.toUpperCase(), path: shownPath, summary: String(operation.summary ?? ''), pointer: `/${root}/${escapeSegment(path)}/${method}` },
          pointer: `/${root}/${escapeSegment(path)}/${method}`,
          operation,
          parameters,
        });
      }
    }
  };
  walk((doc.paths ?? {}) as Record<string, Json>, 'paths');
  if (isObject(doc.webhooks)) walk(doc.webhooks as Record<string, Json>, 'webhooks');
  return found;
}

interface SharedGroup {
  schema: string;
  direction: Direction;
  changes: Change[];
  /** Shared schemas reached from inside this one (keys `direction:name`). */
  children: Set<string>;
}

/** Keywords a schema family examines; any other that changed is reported by `schema-keyword-changed`. */
const examinedKeywords = new Set([...typeKeywords, ...constraintKeywords, ...objectKeywords, ...compositionKeywords]);

export class Comparison {
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
   * Compares two schemas in one direction. Both sides naming the same component schema are
   * compared once per direction (and typing); the operation is recorded as one that uses it.
   * `pointer` / `basePointer` say where the schemas sit in the head / base document.
   */
  schema(b: unknown, h: unknown, direction: Direction, where: string, out: Change[], uses: Set<string>, pointer: string, basePointer: string, typing: Typing = 'strong', skip: string[] = []): void {
    if (b === undefined && h === undefined) return;
    const bName = schemaRefName(b);
    const hName = schemaRefName(h);
    if (bName && hName && bName === hName) {
      if (bName === this.catalogSchema) return;
      const key = `${direction}${typing === 'strong' ? '' : `(${typing})`}${skip.length ? `-${skip.join()}` : ''}:${bName}`;
      if (!this.sharedGroups.has(key)) {
        const group: SharedGroup = { schema: bName, direction, changes: [], children: new Set() };
        this.sharedGroups.set(key, group); // before descending, so a cycle ends here
        const at = `/components/schemas/${escapeSegment(bName)}`;
        this.schemaBody(this.inline(this.base, b), this.inline(this.head, h), direction, '', group.changes, group.children, at, at, typing, skip);
      }
      uses.add(key);
      return;
    }
    // Different components, or inline on one side: compare the contents here.
    const at = hName ? `/components/schemas/${escapeSegment(hName)}` : pointer;
    const baseAt = bName ? `/components/schemas/${escapeSegment(bName)}` : basePointer;
    this.schemaBody(this.inline(this.base, b), this.inline(this.head, h), direction, where, out, uses, at, baseAt, typing, skip);
  }

  private inline(doc: Doc, node: unknown): Json {
    if (node === true || node === undefined) return {};
    if (node === false) return { not: {} };
    return resolve(doc, node) ?? {};
  }

  private schemaBody(base: Json, head: Json, direction: Direction, where: string, out: Change[], uses: Set<string>, pointer: string, basePointer: string, typing: Typing, skip: string[]): void {
    let b = base;
    let h = head;
    if (skip.length) {
      b = Object.fromEntries(Object.entries(b).filter(([k]) => !skip.includes(k)));
      h = Object.fromEntries(Object.entries(h).filter(([k]) => !skip.includes(k)));
    }
    const at = where || '(the schema)';
    const scope: SchemaScope = {
      base: b,
      head: h,
      baseDoc: this.base,
      headDoc: this.head,
      direction,
      where,
      pointer,
      basePointer,
      typing,
      out,
      add: (check, message, keyword) => emit(out, `${direction}-${check}`, at, message, keyword === undefined ? pointer : keywordPointer(pointer, keyword)),
      addRemoved: (check, message, keyword) => emit(out, `${direction}-${check}`, at, message, keywordPointer(basePointer, keyword), 'base'),
      compare: (bSub, hSub, subWhere, subPointer, subBase, subTyping) => this.schema(bSub, hSub, direction, subWhere, out, uses, subPointer, subBase, subTyping ?? typing),
    };
    // Wrapping in (or unwrapping from) `oneOf: [{type: null}, X]` is a change of nullability around X.
    const bWrapped = nullableWrapped(b);
    const hWrapped = nullableWrapped(h);
    if (!bWrapped !== !hWrapped) {
      if (hWrapped) {
        scope.add('became-nullable', request(direction) ? 'now also accepts `null`' : 'may now be `null`: clients reading it must handle it', hWrapped.keyword);
        this.schema(isObject(b.$ref) ? b : base, hWrapped.inner, direction, where, out, uses, keywordPointer(pointer, [hWrapped.keyword, String(hWrapped.index)]), basePointer, typing);
      } else {
        scope.add('became-not-nullable', request(direction) ? 'no longer accepts `null`' : 'is no longer `null`');
        this.schema(bWrapped!.inner, head, direction, where, out, uses, pointer, keywordPointer(basePointer, [bWrapped!.keyword, String(bWrapped!.index)]), typing);
      }
      return;
    }
    schemaTypes(scope);
    schemaConstraints(scope);
    schemaObjects(scope);
    schemaComposition(scope);
    schemaAnnotations(scope, examinedKeywords);
  }
}

const request = (direction: Direction) => direction === 'request';

function compareOperation(cmp: Comparison, b: LocatedOperation, h: LocatedOperation, out: Change[], uses: Set<string>): void {
  const add = (id: string, where: string, message: string, pointer = h.pointer) => emit(out, id, where, message, pointer);
  if (b.ref.method !== h.ref.method || templateOf(b.ref.path) !== templateOf(h.ref.path)) {
    add('api-moved', 'operation', `moved from \`${b.ref.method} ${b.ref.path}\` to \`${h.ref.method} ${h.ref.path}\``);
  }
  const op = (o: LocatedOperation, field: string) => (o.operation[field] === undefined ? o.pointer : `${o.pointer}/${field}`);
  if (!same(b.operation.summary, h.operation.summary)) add('api-summary-changed', 'summary', `summary changed to ${quote(h.operation.summary ?? '')}`, op(h, 'summary'));
  if (!same(b.operation.description, h.operation.description)) add('api-description-changed', 'description', `description changed: ${quote(h.operation.description)}`, op(h, 'description'));
  const bTags = (b.operation.tags ?? []) as string[];
  const hTags = (h.operation.tags ?? []) as string[];
  for (const tag of hTags) if (!bTags.includes(tag)) add('api-tag-added', 'tags', `tag \`${tag}\` added`, op(h, 'tags'));
  for (const tag of bTags) if (!hTags.includes(tag)) add('api-tag-removed', 'tags', `tag \`${tag}\` removed`, op(h, 'tags'));
  compareLifecycle(b.operation, h.operation, out, h.pointer);
  compareOperationSecurity(cmp.base, cmp.head, b.operation, h.operation, out, h.pointer);
  compareExtensions(b.operation, h.operation, out, h.pointer);
  for (const field of new Set([...Object.keys(b.operation), ...Object.keys(h.operation)])) {
    if (examinedOperationFields.has(field) || same(b.operation[field], h.operation[field])) continue;
    add('api-operation-changed', field, h.operation[field] === undefined ? 'removed' : b.operation[field] === undefined ? 'added' : 'changed', op(h, field));
  }
  compareParameters(cmp, b, h, out, uses);
  compareRequestBody(cmp, b, h, out, uses);
  compareResponses(cmp, b, h, out, uses);
}

export interface CompareOptions {
  /**
   * Re-levels checks by id (`{ 'api-operation-id-renamed': 'breaking' }`). The defaults are oasdiff's
   * levels; an API whose clients see operation ids or schema names re-levels those checks up.
   */
  levels?: Record<string, Severity>;
}

export function compareSpecs(baseDocument: object, headDocument: object, options: CompareOptions = {}): Review {
  const levels = options.levels ?? {};
  for (const id of Object.keys(levels)) checkOf(id); // an unknown id in `levels` is a mistake worth an error
  const base = baseDocument as Doc;
  const head = headDocument as Doc;
  const level = (change: Change): Change => (levels[change.id] ? { ...change, severity: levels[change.id]! } : change);
  const cmp = new Comparison(base, head);
  const bOps = operationsOf(base);
  const hOps = operationsOf(head);

  // An operation whose id changed and nothing else of its method and path: the rename is reported, and the operation is still compared.
  const renamedTo = new Map<LocatedOperation, LocatedOperation>();
  const baseOfRenamed = new Map<LocatedOperation, LocatedOperation>();
  for (const [key, b] of bOps) {
    if (hOps.has(key)) continue;
    const h = [...hOps].find(([headKey, candidate]) => !bOps.has(headKey) && !baseOfRenamed.has(candidate) && candidate.ref.method === b.ref.method && templateOf(candidate.ref.path) === templateOf(b.ref.path))?.[1];
    if (!h) continue;
    renamedTo.set(b, h);
    baseOfRenamed.set(h, b);
  }
  const added = [...hOps.entries()].filter(([key, h]) => !bOps.has(key) && !baseOfRenamed.has(h)).map(([, o]) => o.ref);
  const removedOps = [...bOps.entries()].filter(([key]) => !hOps.has(key)).map(([, o]) => o);
  const removed = removedOps.map((o) => o.ref);

  const removals = removedOps.map((b) => {
    const h = renamedTo.get(b);
    const out: Change[] = [];
    if (h) emit(out, 'api-operation-id-renamed', `\`${b.ref.method} ${b.ref.path}\``, `operation id renamed to \`${h.ref.operationId}\` (client methods, CLI commands and MCP tools change name)`, `${h.pointer}${h.operation.operationId === undefined ? '' : '/operationId'}`);
    else {
      const { id, message } = removalCheck(b.operation);
      emit(out, id, `\`${b.ref.method} ${b.ref.path}\``, message, b.pointer, 'base');
    }
    return { ...level(out[0]!), operation: b.ref };
  });

  const perOperation: { ref: OperationRef; changes: Change[]; uses: Set<string> }[] = [];
  for (const [id, h] of hOps) {
    const b = bOps.get(id) ?? baseOfRenamed.get(h);
    if (!b) continue;
    const changes: Change[] = [];
    const uses = new Set<string>();
    compareOperation(cmp, b, h, changes, uses);
    perOperation.push({ ref: h.ref, changes: changes.map(level), uses });
  }

  const reached = perOperation.map((o) => ({ ...o, uses: cmp.closure(o.uses) }));
  const sharedEntries = [...cmp.sharedGroups.entries()]
    .filter(([, g]) => g.changes.length > 0)
    .map(([key, g]): [string, SharedSchemaChange] => [key, { schema: g.schema, direction: g.direction, changes: g.changes.map(level), operations: reached.filter((o) => o.uses.has(key)).map((o) => o.ref.operationId) }]);
  const sharedOf = new Map(sharedEntries);
  const sharedSchemas = sharedEntries.map(([, s]) => s).sort((x, y) => rank[worst(y.changes.map((c) => c.severity))] - rank[worst(x.changes.map((c) => c.severity))]);

  const changed: OperationChange[] = reached
    .map(({ ref, changes, uses }) => {
      const shared = [...new Set([...uses].map((key) => sharedOf.get(key)).filter((s): s is SharedSchemaChange => s !== undefined))].map((s) => ({ schema: s.schema, direction: s.direction, severity: worst(s.changes.map((c) => c.severity)) }));
      return { operation: ref, changes, sharedSchemas: shared, severity: worst([...changes.map((c) => c.severity), ...shared.map((s) => s.severity)]) };
    })
    .filter((o) => o.changes.length > 0 || o.sharedSchemas.length > 0);

  const document: Change[] = [];
  compareDocument(base, head, document);
  compareSecuritySchemes(base, head, document);
  compareErrorCatalog(base, head, document);
  const leveledDocument = document.map(level);

  const toBreaking = (c: Change, operations: string[], where = c.where): BreakingChange => ({ id: c.id, operations, where, message: c.message, pointer: c.pointer, ...(c.side ? { side: c.side } : {}) });
  const breaking: BreakingChange[] = [
    ...removals.filter((r) => r.severity === 'breaking').map((r) => toBreaking(r, [r.operation.operationId])),
    ...changed.flatMap((o) => o.changes.filter((c) => c.severity === 'breaking').map((c) => toBreaking(c, [o.operation.operationId]))),
    ...sharedSchemas.flatMap((s) => s.changes.filter((c) => c.severity === 'breaking').map((c) => toBreaking(c, s.operations, sharedWhere(s, c)))),
    ...leveledDocument.filter((c) => c.severity === 'breaking').map((c) => toBreaking(c, [])),
  ];
  return { added, removed, changed, sharedSchemas, document: leveledDocument, removals, breaking };
}

export function sharedWhere(s: SharedSchemaChange, c: Change): string {
  return `schema \`${s.schema}\` (${s.direction})${c.where === '(the schema)' ? '' : ` ${c.where}`}`;
}
