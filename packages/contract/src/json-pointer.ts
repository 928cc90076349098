/**
 * JSON pointers (RFC 6901) and the internal `$ref`s written with them, read in one place: every
 * package that walks an OpenAPI document or a validator's instance path uses these. Browser-safe.
 *
 * No npm library fits as is: `jsonpointer` and `json-pointer` take only the plain form (`/a/b`),
 * not the URI-fragment form a `$ref` uses (`#/a%20b`, RFC 6901 §6), and this package has no
 * runtime dependencies to keep it small in browsers.
 */

/**
 * A pointer's reference tokens, unescaped: `/paths/~1minds/get` is `['paths', '/minds', 'get']`.
 * The URI-fragment form (`#/components/schemas/a~1b`, `#/a%25b`) is percent-decoded first
 * (RFC 6901 §6); `~1` is undone before `~0`, so `~01` is `~1` (RFC 6901 §4). `''` and `#` point
 * at the whole document.
 */
export function pointerSegments(pointer: string): string[] {
  const plain = pointer.startsWith('#') ? decodeURIComponent(pointer.slice(1)) : pointer;
  if (plain === '') return [];
  if (!plain.startsWith('/')) throw new Error(`not a JSON pointer: ${pointer}`);
  return plain.slice(1).split('/').map(unescapeSegment);
}

/** One reference token as a pointer writes it: `~` as `~0`, `/` as `~1`. */
export function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One reference token as it names a key: `~1` as `/`, then `~0` as `~`. */
export function unescapeSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** A pointer from reference tokens (`['paths', '/minds']` is `/paths/~1minds`). */
export function pointerOf(segments: readonly string[]): string {
  return segments.map((segment) => `/${escapeSegment(segment)}`).join('');
}

/**
 * A pointer in its URI-fragment form, as a `$ref` writes it (`['paths', '/minds/{id}']` is
 * `#/paths/~1minds~1%7Bid%7D`): each token escaped, then percent-encoded (RFC 6901 §6).
 */
export function uriFragmentOf(segments: readonly string[]): string {
  return `#${segments.map((segment) => `/${encodeURIComponent(escapeSegment(segment))}`).join('')}`;
}

/** The node `pointer` names in `document`, or undefined when there is none (own keys only). */
export function atPointer(document: unknown, pointer: string | readonly string[]): unknown {
  let node = document;
  for (const key of typeof pointer === 'string' ? pointerSegments(pointer) : pointer) {
    if (!node || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The node an internal `$ref` (`#/components/schemas/Mind`) points at in `document`; throws when there is none. */
export function lookupRef(document: object, ref: string): unknown {
  if (!ref.startsWith('#/') && ref !== '#') throw new Error(`only internal refs are supported: ${ref}`);
  const node = atPointer(document, ref);
  if (node === undefined) throw new Error(`unresolved ref ${ref}`);
  return node;
}

/**
 * Follows a chain of `$ref`s (a response, a parameter, an example that is a `$ref` to another) to
 * the object it ends at; sibling keywords of a `$ref` are not kept. Stops after `maxDepth` steps.
 */
export function followRefs<T>(document: object, node: T, maxDepth = 20): T {
  return followRefsFrom(document, [], node, maxDepth).node as T;
}

/**
 * As followRefs, and also where the chain ends: the reference tokens of the node it ends at, or
 * `segments` (where `node` is) when `node` is no `$ref`.
 */
export function followRefsFrom(document: object, segments: readonly string[], node: unknown, maxDepth = 20): { segments: readonly string[]; node: unknown } {
  let current = { segments, node };
  for (let depth = 0; depth < maxDepth; depth++) {
    const ref = (current.node as { $ref?: unknown } | null | undefined)?.$ref;
    if (typeof ref !== 'string') break;
    current = { segments: pointerSegments(ref), node: lookupRef(document, ref) };
  }
  return current;
}

/**
 * A deep copy of `node` with every internal `$ref` replaced by a copy of its target, sibling
 * keywords (description, default) winning over the target's. A cycle stops at the `$ref` that
 * closes it (its siblings kept), so the copy is finite and can be serialised; `dereference`
 * instead shares one object per component.
 */
export function inlineRefs<T = unknown>(document: object, node: unknown, seen: readonly string[] = []): T {
  if (Array.isArray(node)) return node.map((n) => inlineRefs(document, n, seen)) as T;
  if (!node || typeof node !== 'object') return node as T;
  const { $ref, ...rest } = node as Record<string, unknown>;
  const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inlineRefs(document, v, seen)]));
  if (typeof $ref !== 'string') return own as T;
  if (seen.includes($ref)) return own as T;
  return { ...inlineRefs<Record<string, unknown>>(document, lookupRef(document, $ref), [...seen, $ref]), ...own } as T;
}
