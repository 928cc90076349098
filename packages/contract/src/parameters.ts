import type { OpenApiOperation, OpenApiParameter, OpenApiPathItem } from './document-types.js';

/**
 * An operation's parameters: the path item's that the operation does not redefine, then its own.
 * OpenAPI 3.1, Path Item Object, `parameters`: "A list of parameters that are applicable for all
 * the operations described under this path. These parameters can be overridden at the operation
 * level" (a parameter is identified by its name and location). `resolve` turns a `$ref` into its
 * parameter for a document that is not dereferenced; the identity for one that is.
 */
export function operationParameters(
  item: OpenApiPathItem,
  operation: OpenApiOperation,
  resolve: (parameter: OpenApiParameter) => OpenApiParameter = (parameter) => parameter,
): OpenApiParameter[] {
  const own = (operation.parameters ?? []).map(resolve);
  const inherited = (item.parameters ?? []).map(resolve).filter((p) => !own.some((o) => o.name === p.name && o.in === p.in));
  return [...inherited, ...own];
}
