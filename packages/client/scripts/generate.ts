/**
 * Build step, from the contract: src/generated/runtime-table.ts, the operation
 * table slimmed to what the client does at run time (method, path, readOnly,
 * whether it may retry by itself (x-automatic-retry),
 * whether a credential is sent, the Idempotency-Key header, x-dpop-htm, cursor
 * pagination), and the error codes with their status and outcome-unknown flag. The
 * contract's full table carries every summary and description (≈60 kB
 * minified); the browser bundle needs none of it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorCatalog, operationTable, type OperationFacts } from '@gateway-minds/contract';

const generated = join(dirname(fileURLToPath(import.meta.url)), '../src/generated');

mkdirSync(generated, { recursive: true });
const runtime = Object.fromEntries(
  (Object.values(operationTable) as OperationFacts[]).map((o) => [
    o.operationId,
    {
      method: o.method,
      path: o.path,
      readOnly: o.readOnly,
      automaticRetry: o.automaticRetry,
      credential: o.security.length > 0,
      idempotencyHeader: o.parameters.find((p) => p.in === 'header' && p.missingCode === 'IDEMPOTENCY_KEY_REQUIRED')?.name ?? null,
      dpopHtm: o.dpopHtm,
      paginated: o.parameters.some((p) => p.in === 'query' && p.name === 'after'),
    },
  ]),
);
const codes = Object.fromEntries(Object.entries(errorCatalog).map(([code, facts]) => [code, [facts.status, facts.outcomeUnknown ? 1 : 0]]));
writeFileSync(
  join(generated, 'runtime-table.ts'),
  `// Generated from the contract by packages/client/scripts/generate.ts. Do not edit.
import type { ErrorCode, OperationId } from '@gateway-minds/contract';
import type { RuntimeFacts } from '../operations.js';

/** Per operation id, what the client needs at run time. */
export const runtimeTable: Record<OperationId, RuntimeFacts> = ${JSON.stringify(runtime, null, 2)};

/** Every catalog code: its HTTP status, and 1 where the catalog marks a mutation's outcome unknown (x-outcome-unknown). */
export const errorCodeFacts: Record<ErrorCode, readonly [status: number, outcomeUnknown: 0 | 1]> = ${JSON.stringify(codes)};
`,
);
console.log(`runtime-table.ts: ${Object.keys(runtime).length} operations, ${Object.keys(codes).length} error codes`);

/** Text for a TSDoc block: a `*\/` would end the comment early. */
const commentText = (text: string) => text.replace(/\*\//g, '*\\/');
const docBlock = (o: OperationFacts) =>
  [
    commentText(o.summary.endsWith('.') ? o.summary : `${o.summary}.`),
    '',
    ...commentText(o.description.trim()).split('\n'),
    '',
    `\`${o.method.toUpperCase()} ${o.path}\` (operation \`${o.operationId}\`${o.readOnly ? ', read-only' : ''}${o.automaticRetry ? '' : ', never retried automatically'}).`,
  ]
    .map((line) => `   *${line ? ` ${line}` : ''}`)
    .join('\n');
// The methods are made at run time from the operation table (client.ts); this interface gives each its
// type and its documentation from the spec, so an editor shows the operation's summary on hover.
writeFileSync(
  join(generated, 'operation-methods.ts'),
  `// Generated from the contract by packages/client/scripts/generate.ts. Do not edit.
import type { MethodOf } from '../client.js';

/** One method per operation id of the contract, documented from the spec's summary and description. */
export interface OperationMethods {
${(Object.values(operationTable) as OperationFacts[]).map((o) => `  /**\n${docBlock(o)}\n   */\n  readonly ${o.operationId}: MethodOf<${JSON.stringify(o.operationId)}>;`).join('\n')}
}
`,
);
console.log(`operation-methods.ts: ${Object.keys(runtime).length} documented methods`);
