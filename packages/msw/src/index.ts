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
import { errorCatalog, errorDocsUrl, type ErrorCode, type OperationId, type paths } from '@gateway-minds/contract';
import type { HttpHandler } from 'msw';
import { createOpenApiHttp } from 'openapi-msw';
import { ulid } from 'ulid';
import { exampleTable, generatedHandlers } from './generated/handlers.js';
import { defaultDocsBaseUrl, exampleDocsBaseUrl, requestContract } from './generated/request-contract.js';
import { refusalOf, type Refusal } from './request-validation.js';
import { chooseExample, NoSuchExampleError, selectionRefusal, type ExampleChoice } from './selection.js';

export { exampleTable, defaultDocsBaseUrl, exampleDocsBaseUrl };
export { chooseExample, parsePrefer, selectionRefusal, NoSuchExampleError, type ExampleChoice, type OperationExamples } from './selection.js';
export { refusalOf, type Refusal, type RequestContract } from './request-validation.js';

export interface HandlerOptions {
  /** Where the app sends its requests, e.g. http://127.0.0.1:8080 or the page's origin; prepended to every contract path. Default: any origin. */
  baseUrl?: string;
  /** Per operation, the example answered when a request carries no Prefer header. One that names no example throws here. */
  prefer?: Partial<Record<OperationId, ExampleChoice>>;
  /**
   * Refuse a request the contract refuses, as the real stack does (Prism's mock does too), instead
   * of answering the selected example: the catalog code spec/DECISIONS.md names for the place it
   * breaks, with `errors[]` locations. Off by default, so handlers keep answering requests built
   * with placeholder ids.
   */
  validateRequests?: boolean;
  /**
   * The docs site every `docs_url` points into, the examples' and the refusals' alike
   * (`<docsBaseUrl>/errors.html#<CODE>`). Default: defaultDocsBaseUrl, the published docs site in the
   * published package (DOCS_BASE_URL when it was built).
   */
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

/**
 * The answer to a request whose selection (its `Prefer` header, else the operation's `prefer` option)
 * names no example of the operation, or undefined when it names one: the same envelope the Prism mock
 * (`npm run mock`) answers, listing every selection the operation has (selectionRefusal).
 */
export function misusedSelectionResponse(operationId: OperationId, request: Request, options: Pick<HandlerOptions, 'prefer' | 'docsBaseUrl'> = {}): Response | undefined {
  try {
    chooseExample(operationId, exampleTable[operationId], request, options.prefer?.[operationId]);
    return undefined;
  } catch (error) {
    if (!(error instanceof NoSuchExampleError)) throw error;
    return refusalResponse(selectionRefusal(error), options.docsBaseUrl ?? defaultDocsBaseUrl);
  }
}

/** One handler per operation of the contract, in spec order. */
export function createHandlers(options: HandlerOptions = {}): HttpHandler[] {
  const http = createOpenApiHttp<paths>({ baseUrl: options.baseUrl ?? '*' });
  const docsBaseUrl = (options.docsBaseUrl ?? defaultDocsBaseUrl).replace(/\/+$/, '');
  // A `prefer` that names no example is the app's own mistake: say so now, not on its first request.
  for (const [operationId, choice] of Object.entries(options.prefer ?? {}) as [OperationId, ExampleChoice][]) {
    chooseExample(operationId, exampleTable[operationId], new Request('http://mock.invalid/', { headers: { authorization: 'Bearer any' } }), choice);
  }
  return generatedHandlers(
    http,
    (request, operationId) => chooseExample(operationId, exampleTable[operationId], request, options.prefer?.[operationId as OperationId]),
    async (request, operationId, params) => {
      const misused = misusedSelectionResponse(operationId as OperationId, request, { prefer: options.prefer, docsBaseUrl });
      if (misused) return misused;
      if (!options.validateRequests) return undefined;
      // The credential comes first (DECISIONS, "Order of checks"): without one, the 401 example answers.
      if (exampleTable[operationId].credential && !request.headers.has('authorization')) return undefined;
      const refusal = await refusalOf(operationId, requestContract[operationId]!, request, params);
      return refusal ? refusalResponse(refusal, docsBaseUrl) : undefined;
    },
    (code) => errorDocsUrl(docsBaseUrl, code as ErrorCode),
  );
}
