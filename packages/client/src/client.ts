/**
 * The client: openapi-fetch's path-style calls (`client.GET('/v1/...')`) and
 * one method per operation id (`client.minds_getMind(...)`), generated at
 * construction from the contract's operation table, never listed by hand.
 */
import type { components, OperationId, paths } from '@gateway-minds/contract';
import createFetchClient, { type Client as FetchClient } from 'openapi-fetch';
import { APIError, PaginationLoopError, WaitFailedError, WaitTimeoutError, APIUserAbortError } from './errors.js';
import { factsOf, operationIds, type IdempotentOperationId, type InputOptional, type OperationInput, type OperationResult, type OperationRuntime } from './operations.js';
import { Transport, type RequestOptions, type SendContext, type TransportOptions } from './transport.js';
import type { OperationMethods } from './generated/operation-methods.js';

/** What `createClient` takes: the transport's options (the gateway's base URL, the credential, deadlines, retries, DPoP). */
export type ClientOptions = TransportOptions;

/** The result with what came with it. */
export interface WithResponse<T> {
  data: T;
  response: Response;
  /** X-Request-Id of the answer. */
  requestId: string | undefined;
  /** The Idempotency-Key the request carried (lifecycle mutations). */
  idempotencyKey: string | undefined;
}

/** A call's options: `idempotencyKey` only where the operation takes an Idempotency-Key, so a key passed elsewhere does not compile instead of being dropped. */
export type CallOptions<K extends OperationId> = K extends IdempotentOperationId ? RequestOptions : Omit<RequestOptions, 'idempotencyKey'>;

type Args<K extends OperationId> = InputOptional<K> extends true
  ? [input?: OperationInput<K>, options?: CallOptions<K>]
  : [input: OperationInput<K>, options?: CallOptions<K>];

export interface OperationMethod<K extends OperationId> {
  (...args: Args<K>): Promise<OperationResult<K>>;
  /** The same call, resolving to the data with the response, request id and Idempotency-Key. */
  withResponse(...args: Args<K>): Promise<WithResponse<OperationResult<K>>>;
  readonly operationId: K;
  readonly facts: OperationRuntime;
}

type ItemOf<K extends OperationId> = OperationResult<K> extends { items: readonly (infer I)[] } ? I : never;

/** Cursor-paginated operations (an `after` query parameter, `items` and `next_cursor` in the result) also iterate. */
export interface PaginatedMethod<K extends OperationId> extends OperationMethod<K> {
  /** Every item of every page, fetching the next page as the loop reaches it. */
  iterate(...args: Args<K>): AsyncGenerator<ItemOf<K>, void, undefined>;
  /** Every page. */
  pages(...args: Args<K>): AsyncGenerator<OperationResult<K>, void, undefined>;
}

/** The method for an operation: paginated where its result is a page (`items`, `next_cursor`). */
export type MethodOf<K extends OperationId> = OperationResult<K> extends { next_cursor: unknown; items: readonly unknown[] } ? PaginatedMethod<K> : OperationMethod<K>;

/** Every operation's method, each documented with its operation's summary and description (generated from the spec). */
export type { OperationMethods } from './generated/operation-methods.js';

export type Mind = components['schemas']['Mind'];
export type MindStatus = Mind['status'];

export interface WaitOptions<T> {
  /** Give up after this long (ms). Default 120 000. */
  timeoutMs?: number | undefined;
  /** Time between reads (ms). Default 1 000. */
  intervalMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Called with every value read. */
  onProgress?: ((value: T, elapsedMs: number) => void) | undefined;
  /** Options for each read (retries, deadline). */
  request?: RequestOptions | undefined;
}

export interface WaitForMindOptions extends WaitOptions<Mind> {
  /** Statuses that end the wait with WaitFailedError. Default `failed` (unless it is the target). */
  failOn?: readonly MindStatus[] | undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError('aborted', { cause: signal.reason }));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new APIUserAbortError('aborted', { cause: signal.reason }));
    }, { once: true });
  });
}

/**
 * Polls `read` until `done(value)` holds. Throws WaitTimeoutError after
 * `timeoutMs`, WaitFailedError when `failed(value)` holds, APIUserAbortError
 * on abort; errors of `read` propagate.
 */
export async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, options: WaitOptions<T> & { failed?: (value: T) => string | undefined } = {}): Promise<T> {
  const { timeoutMs = 120_000, intervalMs = 1_000, signal, onProgress, failed } = options;
  const started = Date.now();
  let last: T | undefined;
  for (;;) {
    last = await read();
    const elapsed = Date.now() - started;
    onProgress?.(last, elapsed);
    if (done(last)) return last;
    const failure = failed?.(last);
    if (failure) throw new WaitFailedError(failure, last);
    if (elapsed + intervalMs > timeoutMs) throw new WaitTimeoutError(`Not done after ${timeoutMs} ms.`, last);
    await sleep(intervalMs, signal);
  }
}

export interface GatewayMindsClient extends OperationMethods {}

export class GatewayMindsClient {
  /** openapi-fetch with the contract's paths: `client.raw.GET('/v1/minds/services/{mind_id}', { params })`. */
  readonly raw: FetchClient<paths, 'application/json'>;
  readonly transport: Transport;
  readonly GET: FetchClient<paths, 'application/json'>['GET'];
  readonly POST: FetchClient<paths, 'application/json'>['POST'];
  readonly PUT: FetchClient<paths, 'application/json'>['PUT'];
  readonly DELETE: FetchClient<paths, 'application/json'>['DELETE'];

  constructor(readonly options: ClientOptions) {
    this.transport = new Transport(options);
    this.raw = createFetchClient<paths, 'application/json'>({ baseUrl: this.transport.baseUrl, fetch: (request) => this.transport.send(request) });
    this.GET = this.raw.GET;
    this.POST = this.raw.POST;
    this.PUT = this.raw.PUT;
    this.DELETE = this.raw.DELETE;
    for (const operationId of operationIds) {
      Object.defineProperty(this, operationId, { value: this.method(operationId), enumerable: true });
    }
  }

  /** Operation ids this client has a method for (all of the contract's). */
  get operationIds(): readonly OperationId[] {
    return operationIds;
  }

  private method(operationId: OperationId) {
    const facts = factsOf(operationId);
    const withResponse = async (input: Record<string, unknown> = {}, options: RequestOptions = {}) => {
      const context: SendContext = { ...options, operation: facts };
      const { data, error, response } = await this.raw.request(facts.method, facts.path as never, {
        ...input,
        ...(options.signal ? { signal: options.signal } : {}),
        fetch: (request: Request) => this.transport.send(request, context),
      } as never);
      const meta = { operationId, mutation: !facts.readOnly, idempotencyKey: context.usedIdempotencyKey };
      if (!response.ok) throw APIError.from(response.status, error, response.headers, meta);
      return { data, response, requestId: response.headers.get('x-request-id') ?? undefined, idempotencyKey: context.usedIdempotencyKey };
    };
    const call = async (input?: Record<string, unknown>, options?: RequestOptions) => (await withResponse(input, options)).data;
    const extras: Record<string, unknown> = { withResponse, operationId, facts };
    if (facts.paginated) {
      const pages = async function* (input: { params?: { query?: Record<string, unknown> } } = {}, options?: RequestOptions) {
        let after = input.params?.query?.after;
        // Every cursor this walk has asked with: a repeat would read the same pages forever.
        const followed = new Set<unknown>(after ? [after] : []);
        for (let pagesRead = 1; ; pagesRead++) {
          const page = (await call({ ...input, params: { ...input.params, query: { ...input.params?.query, ...(after ? { after } : {}) } } }, options)) as unknown as { items: unknown[]; next_cursor: string | null };
          yield page;
          if (!page.next_cursor || page.items.length === 0) return;
          if (followed.has(page.next_cursor)) throw new PaginationLoopError(operationId, page.next_cursor, pagesRead);
          followed.add(page.next_cursor);
          after = page.next_cursor;
        }
      };
      extras.pages = pages;
      extras.iterate = async function* (input?: Record<string, unknown>, options?: RequestOptions) {
        for await (const page of pages(input, options)) yield* page.items;
      };
    }
    return Object.assign(call, extras);
  }

  /**
   * Polls minds_getMind until the Mind reaches `status` (one or several).
   * `onProgress` sees every read; a `failed` Mind ends the wait early.
   */
  async waitForMind(mindId: string, status: MindStatus | readonly MindStatus[], options: WaitForMindOptions = {}): Promise<Mind> {
    const wanted: readonly MindStatus[] = typeof status === 'string' ? [status] : status;
    const failOn = (options.failOn ?? (['failed'] as const)).filter((s) => !wanted.includes(s));
    return poll(
      () => this.minds_getMind({ params: { path: { mind_id: mindId } } }, { ...options.request, ...(options.signal ? { signal: options.signal } : {}) }),
      (mind) => wanted.includes(mind.status),
      {
        ...options,
        failed: (mind) => (failOn.includes(mind.status) ? `Mind ${mind.mind_id} is ${mind.status}${mind.error_code ? ` (${mind.error_code})` : ''}, not ${wanted.join(' or ')}.` : undefined),
      },
    );
  }
}

/** A client for the gateway: `createClient({ baseUrl, token })`. */
export function createClient(options: ClientOptions): GatewayMindsClient {
  return new GatewayMindsClient(options);
}
