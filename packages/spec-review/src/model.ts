/**
 * The shapes a review is made of (changes, operations, shared schemas) and the small helpers every
 * check family uses to walk a bundled document: `$ref` resolution, JSON pointers, value display.
 */
import { atPointer, pointerSegments } from '@gateway-minds/contract/json-pointer';

export type Severity = 'breaking' | 'warning' | 'info';
export type Direction = 'request' | 'response';

export interface Change {
  /** The check that found it: registered in registry.ts with its default level; usable in `levels` to re-level it. */
  id: string;
  /** Its level: `breaking` blocks a merge unless acknowledged, `warning` asks a reviewer to look, `info` is recorded. */
  severity: Severity;
  /** Where in the operation or shared schema: `request body .name`, `query parameter \`limit\``, `response 200 body .items[].id`. */
  where: string;
  message: string;
  /** JSON pointer to the changed node in the head document (in the base one when it was removed; see `side`). */
  pointer: string;
  /** Which document `pointer` points into: `base` for something that no longer exists in the head. */
  side?: 'base' | 'head';
}

export interface OperationRef {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  /** JSON pointer to the operation object in its document (the head one for an added operation, the base one for a removed one). */
  pointer?: string;
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
  /** Document-level changes: security schemes, the error catalog, servers, info, tags, webhooks. */
  document: Change[];
  /** The removal of each operation in `removed` (its check id, level and pointer into the base document). */
  removals: (Change & { operation: OperationRef })[];
  /** Every breaking change, flattened, with the operation(s) it concerns. */
  breaking: BreakingChange[];
}

export interface BreakingChange {
  id: string;
  operations: string[];
  where: string;
  message: string;
  pointer: string;
  side?: 'base' | 'head';
}

export type Json = Record<string, unknown>;
export type Doc = Json & { paths?: Record<string, Json>; components?: Record<string, Record<string, unknown>>; webhooks?: Record<string, Json> };

export const rank: Record<Severity, number> = { info: 0, warning: 1, breaking: 2 };

export function worst(severities: Severity[]): Severity {
  return severities.reduce<Severity>((a, b) => (rank[b] > rank[a] ? b : a), 'info');
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function show(value: unknown): string {
  return typeof value === 'string' ? `\`${value}\`` : `\`${JSON.stringify(value)}\``;
}

export function list(values: unknown[]): string {
  return values.map(show).join(', ');
}

export function plural(n: number, word: string): string {
  return `${word}${n > 1 ? 's' : ''}`;
}

/** Prose as the review quotes it: one line, shortened. */
export function quote(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = text.replace(/\s+/g, ' ').trim();
  return `“${line.length > 80 ? `${line.slice(0, 77)}…` : line}”`;
}

export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The node an internal `$ref` names, or undefined when the document has none there. */
export function refTarget(doc: Doc, ref: string): unknown {
  if (!ref.startsWith('#')) throw new Error(`only internal $refs are supported after bundling: ${ref}`);
  return atPointer(doc, ref);
}

/** Follows `$ref`s (parameters, responses, request bodies, headers, examples, schemas) to the object. */
export function resolve(doc: Doc, node: unknown): Json | undefined {
  let current = node;
  for (let depth = 0; depth < 20 && isObject(current) && typeof current.$ref === 'string'; depth++) {
    current = refTarget(doc, current.$ref);
  }
  return isObject(current) ? current : undefined;
}

export function schemaRefName(node: unknown): string | undefined {
  if (!isObject(node) || typeof node.$ref !== 'string') return undefined;
  if (!node.$ref.startsWith('#/')) return undefined;
  const [group, kind, name, ...rest] = pointerSegments(node.$ref);
  return group === 'components' && kind === 'schemas' && name !== undefined && rest.length === 0 ? name : undefined;
}

/** A path with its parameter names left out: what routing matches on. */
export function templateOf(path: string): string {
  return path.replace(/\{[^}]*\}/g, '{}');
}
