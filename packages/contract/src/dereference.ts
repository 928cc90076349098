import type { OpenApiDocument } from './document-types.js';
import { escapeSegment, lookupRef } from './json-pointer.js';

/**
 * Deletes, in place, the components that the document's paths do not reach through `$ref`,
 * directly or through other components: a validator given part of the paths then prepares only
 * what they use. Security schemes stay (operations name them without a `$ref`).
 */
export function pruneUnreachableComponents(document: OpenApiDocument): void {
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key !== '$ref') visit(value);
      else if (typeof value === 'string' && !reached.has(value)) {
        reached.add(value);
        visit(lookupRef(document, value));
      }
    }
  };
  visit(document.paths);
  for (const [kind, entries] of Object.entries((document.components ?? {}) as Record<string, Record<string, unknown>>)) {
    if (kind === 'securitySchemes') continue;
    for (const name of Object.keys(entries)) if (!reached.has(`#/components/${kind}/${escapeSegment(name)}`)) delete entries[name];
  }
}

/**
 * Resolves every internal `$ref` (`#/components/...`) of a document, in memory.
 * Each component is resolved once and shared, so the result stays as small as
 * the input (a textual dereference of this spec is ~13 MB: the error catalog
 * repeats in every error response). Do not JSON.stringify the result; use it
 * to read schemas. Browser-safe.
 */
export function dereference<T extends object = OpenApiDocument>(document: T): T {
  const resolved = new Map<string, unknown>();

  const lookup = (ref: string) => lookupRef(document, ref);

  function walk(node: unknown): unknown {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const { $ref: ref, ...siblings } = node as { $ref?: unknown };
    if (typeof ref === 'string') {
      if (!resolved.has(ref)) {
        const placeholder: Record<string, unknown> = {};
        resolved.set(ref, placeholder); // cycles resolve to the same object
        Object.assign(placeholder, walk(lookup(ref)));
      }
      // OpenAPI 3.1 allows keywords beside a $ref (description, default): they win over the target's.
      if (Object.keys(siblings).length === 0) return resolved.get(ref);
      return { ...(resolved.get(ref) as object), ...(walk(siblings) as object) };
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value)]));
  }

  return walk(document) as T;
}
