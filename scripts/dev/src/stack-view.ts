/**
 * The contract as the running stack reads it, to tell whether a saved edit can change what the
 * stack does. The stack validates with the schemas, serves GET /v1/openapi.json from operations'
 * summaries and descriptions, the catalog from ErrorCode's entries, and reads consts, enums,
 * defaults and extensions; it never reads an example (unless a scaffolded handler answers one) or
 * the description or title of a component schema other than ErrorCode. An edit to only those is not
 * worth a restart of the stack: the mock and the docs show it, and the stack would serve the same.
 */

/** Keys that hold names, not keywords: under them a key called `description` is a property. */
const nameMaps = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependentRequired']);

function withoutKeys(node: unknown, dropped: ReadonlySet<string>, namesHere = false): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutKeys(item, dropped));
  if (node === null || typeof node !== 'object') return node;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!namesHere && dropped.has(key)) continue;
    kept[key] = withoutKeys(value, dropped, !namesHere && nameMaps.has(key));
  }
  return kept;
}

export interface StackViewOptions {
  /** Whether the stack answers examples (a scaffolded handler does, through specExample). */
  examplesMatter: boolean;
}

export function stackView(document: object, options: StackViewOptions): unknown {
  const examples = new Set(options.examplesMatter ? [] : ['examples', 'example']);
  const annotations = new Set([...examples, 'description', 'title']);
  const { components, ...rest } = document as { components?: Record<string, unknown> };
  const view: Record<string, unknown> = withoutKeys(rest, examples) as Record<string, unknown>;
  if (components) {
    const { schemas, examples: namedExamples, ...otherComponents } = components as { schemas?: Record<string, unknown>; examples?: unknown };
    view.components = {
      ...(withoutKeys(otherComponents, examples) as object),
      ...(options.examplesMatter ? { examples: namedExamples } : {}),
      schemas: Object.fromEntries(Object.entries(schemas ?? {}).map(([name, schema]) => [name, name === 'ErrorCode' ? withoutKeys(schema, examples) : withoutKeys(schema, annotations)])),
    };
  }
  return view;
}
