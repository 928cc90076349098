/**
 * MSW handlers for every /v1 operation, built from the spec's named examples
 * (src/generated/handlers.ts, type-checked against the contract's `paths`
 * through openapi-msw). Use them where no server runs: `setupServer` from
 * msw/node in vitest, `setupWorker` from msw/browser in the app or Storybook.
 * Each answers the same example selection as the Prism mock, so a team can
 * switch between the two: `Prefer: code=401, example=CREDENTIAL_INVALID` on a
 * request, or the `prefer` option per operation for requests it cannot add a
 * header to. With `validateRequests`, a request the contract refuses gets the
 * real stack's refusal instead (src/request-validation.ts).
 */
import { errorCatalog, errorDocsUrl, type OperationId, type paths } from '@gateway-minds/contract';
import type { HttpHandler } from 'msw';
import { createOpenApiHttp } from 'openapi-msw';
import { ulid } from 'ulid';
import { exampleTable, generatedHandlers } from './generated/handlers.js';
import { exampleDocsBaseUrl, requestContract } from './generated/request-contract.js';
import { refusalOf, type Refusal } from './request-validation.js';
import { chooseExample, type ExampleChoice } from './selection.js';

export { exampleTable };
export { chooseExample, parsePrefer, NoSuchExampleError, type ExampleChoice, type OperationExamples } from './selection.js';
export { refusalOf, type Refusal, type RequestContract } from './request-validation.js';

export interface HandlerOptions {
  /** Where the app sends its requests, e.g. http://127.0.0.1:8080 or the page's origin; prepended to every contract path. Default: any origin. */
  baseUrl?: string;
  /** Per operation, the example answered when a request carries no Prefer header. */
  prefer?: Partial<Record<OperationId, ExampleChoice>>;
  /**
   * Refuse a request the contract refuses, as the real stack does (Prism's mock does too), instead
   * of answering the selected example: the catalog code spec/DECISIONS.md names for the place it
   * breaks, with `errors[]` locations. Off by default, so handlers keep answering requests built
   * with placeholder ids.
   */
  validateRequests?: boolean;
  /** The docs site every refusal's `docs_url` points into. Default: the one the spec's examples name. */
  docsBaseUrl?: string;
}

/** The error envelope the servers send for a refusal (DECISIONS, "The envelope"). */
function refusalResponse(refusal: Refusal, docsBaseUrl: string): Response {
  const facts = errorCatalog[refusal.code];
  // A request id as the servers make one (service-kit's newRequestId): `req_` and a ULID.
  const id = `req_${ulid()}`;
  const error = { code: refusal.code, type: facts.type, message: refusal.message, docs_url: errorDocsUrl(docsBaseUrl, refusal.code), request_id: id, ...(refusal.errors?.length ? { errors: refusal.errors } : {}) };
  return new Response(JSON.stringify({ error }), { status: facts.status, headers: { 'content-type': 'application/json', 'x-request-id': id } });
}

/** One handler per operation of the contract, in spec order. */
export function createHandlers(options: HandlerOptions = {}): HttpHandler[] {
  const http = createOpenApiHttp<paths>({ baseUrl: options.baseUrl ?? '*' });
  const docsBaseUrl = options.docsBaseUrl ?? exampleDocsBaseUrl;
  return generatedHandlers(
    http,
    (request, operationId) => chooseExample(operationId, exampleTable[operationId], request, options.prefer?.[operationId as OperationId]),
    async (request, operationId, params) => {
      if (!options.validateRequests) return undefined;
      // The credential comes first (DECISIONS, "Order of checks"): without one, the 401 example answers.
      if (exampleTable[operationId].credential && !request.headers.has('authorization')) return undefined;
      const refusal = await refusalOf(operationId, requestContract[operationId]!, request, params);
      return refusal ? refusalResponse(refusal, docsBaseUrl) : undefined;
    },
  );
}
