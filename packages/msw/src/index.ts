/**
 * MSW handlers for every /v1 operation, built from the spec's named examples
 * (src/generated/handlers.ts, type-checked against the contract's `paths`
 * through openapi-msw). Use them where no server runs: `setupServer` from
 * msw/node in vitest, `setupWorker` from msw/browser in the app or Storybook.
 * Each answers the same example selection as the Prism mock, so a team can
 * switch between the two: `Prefer: code=401, example=CREDENTIAL_INVALID` on a
 * request, or the `prefer` option per operation for requests it cannot add a
 * header to.
 */
import type { OperationId, paths } from '@gateway-minds/contract';
import type { HttpHandler } from 'msw';
import { createOpenApiHttp } from 'openapi-msw';
import { exampleTable, generatedHandlers } from './generated/handlers.js';
import { chooseExample, type ExampleChoice } from './selection.js';

export { exampleTable };
export { chooseExample, parsePrefer, NoSuchExampleError, type ExampleChoice, type OperationExamples } from './selection.js';

export interface HandlerOptions {
  /** Where the app sends its requests, e.g. http://127.0.0.1:8080 or the page's origin; prepended to every contract path. Default: any origin. */
  baseUrl?: string;
  /** Per operation, the example answered when a request carries no Prefer header. */
  prefer?: Partial<Record<OperationId, ExampleChoice>>;
}

/** One handler per operation of the contract, in spec order. */
export function createHandlers(options: HandlerOptions = {}): HttpHandler[] {
  const http = createOpenApiHttp<paths>({ baseUrl: options.baseUrl ?? '*' });
  return generatedHandlers(http, (request, operationId) => chooseExample(operationId, exampleTable[operationId], request, options.prefer?.[operationId as OperationId]));
}
