/**
 * Build step, from the contract:
 *
 * - src/generated/runtime-table.ts: the operation table slimmed to what the
 *   client does at run time (method, path, readOnly, whether a credential is
 *   sent, the Idempotency-Key header, x-dpop-htm, cursor pagination), and the
 *   error codes with their outcome-unknown flag. The contract's full table
 *   carries every summary and description (≈60 kB minified); the browser
 *   bundle needs none of it.
 * - src/generated/request-defaults.ts: which top-level request body
 *   properties have a `default`. openapi-typescript types a property with a
 *   default as required (it is always present in a response); in a request it
 *   may be omitted, so the client's input types make exactly these optional.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openapiDocument } from '@gateway-minds/contract/document';
import { errorCatalog, httpMethods, operationTable, type JsonSchema, type OperationFacts } from '@gateway-minds/contract';

const generated = join(dirname(fileURLToPath(import.meta.url)), '../src/generated');
const out = join(generated, 'request-defaults.ts');

function resolve(node: JsonSchema | undefined): JsonSchema | undefined {
  let current = node;
  const seen = new Set<string>();
  while (current && typeof current.$ref === 'string' && !seen.has(current.$ref)) {
    seen.add(current.$ref);
    let target: unknown = openapiDocument;
    for (const segment of current.$ref.slice(2).split('/')) target = (target as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
    const { $ref: _ref, ...siblings } = current;
    current = { ...(target as JsonSchema), ...siblings };
  }
  return current;
}

const defaults: Record<string, string[]> = {};
for (const item of Object.values(openapiDocument.paths)) {
  for (const method of httpMethods) {
    const operation = item[method];
    const body = resolve(operation?.requestBody?.content?.['application/json']?.schema);
    if (!operation || !body) continue;
    const properties = (body.properties ?? {}) as Record<string, JsonSchema>;
    const names = Object.entries(properties)
      .filter(([, schema]) => schema && ('default' in schema || 'default' in (resolve(schema) ?? {})))
      .map(([name]) => name);
    if (names.length) defaults[operation.operationId] = names;
  }
}

mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  `// Generated from the contract by packages/client/scripts/generate.ts. Do not edit.
/** Per operation id: top-level request body properties that have a default (optional in a request). */
export type RequestBodyDefaults = {
${Object.entries(defaults).map(([id, names]) => `  ${id}: ${names.map((n) => JSON.stringify(n)).join(' | ')};`).join('\n')}
};
`,
);
console.log(`request-defaults.ts: ${Object.keys(defaults).length} operations with defaulted body properties`);

const runtime = Object.fromEntries(
  (Object.values(operationTable) as OperationFacts[]).map((o) => [
    o.operationId,
    {
      method: o.method,
      path: o.path,
      readOnly: o.readOnly,
      credential: o.security.length > 0,
      idempotencyHeader: o.parameters.find((p) => p.in === 'header' && p.missingCode === 'IDEMPOTENCY_KEY_REQUIRED')?.name ?? null,
      dpopHtm: o.dpopHtm,
      paginated: o.parameters.some((p) => p.in === 'query' && p.name === 'after'),
    },
  ]),
);
const codes = Object.fromEntries(Object.entries(errorCatalog).map(([code, facts]) => [code, facts.outcomeUnknown ? 1 : 0]));
writeFileSync(
  join(generated, 'runtime-table.ts'),
  `// Generated from the contract by packages/client/scripts/generate.ts. Do not edit.
import type { ErrorCode, OperationId } from '@gateway-minds/contract';
import type { RuntimeFacts } from '../operations.js';

/** Per operation id, what the client needs at run time. */
export const runtimeTable: Record<OperationId, RuntimeFacts> = ${JSON.stringify(runtime, null, 2)};

/** Every catalog code; 1 where the catalog marks a mutation's outcome unknown (x-outcome-unknown). */
export const errorCodeOutcomeUnknown: Record<ErrorCode, 0 | 1> = ${JSON.stringify(codes)};
`,
);
console.log(`runtime-table.ts: ${Object.keys(runtime).length} operations, ${Object.keys(codes).length} error codes`);
