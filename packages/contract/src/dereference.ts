import type { OpenApiDocument } from './document-types.js';

/**
 * Resolves every internal `$ref` (`#/components/...`) of a document, in memory.
 * Each component is resolved once and shared, so the result stays as small as
 * the input (a textual dereference of this spec is ~13 MB: the error catalog
 * repeats in every error response). Do not JSON.stringify the result; use it
 * to read schemas. Browser-safe.
 */
export function dereference<T extends object = OpenApiDocument>(document: T): T {
  const resolved = new Map<string, unknown>();

  function lookup(ref: string): unknown {
    if (!ref.startsWith('#/')) throw new Error(`only internal refs are supported: ${ref}`);
    let node: unknown = document;
    for (const segment of ref.slice(2).split('/')) {
      const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      node = (node as Record<string, unknown> | undefined)?.[key];
    }
    if (node === undefined) throw new Error(`unresolved ref ${ref}`);
    return node;
  }

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
