/**
 * CORS for browsers calling the gateway from another origin, as the Fetch standard's CORS protocol
 * defines it, done by the `cors` package and configured from the contract, never from a hand list:
 *
 * - the methods are those the operations use (HEAD beside GET, which the gateway answers wherever GET is);
 * - the request headers are every header an operation takes: `Authorization` for its bearer
 *   security schemes, `Content-Type` where it takes a JSON body, and its header parameters;
 * - the exposed headers are every response header the document declares (X-Request-Id,
 *   Retry-After, WWW-Authenticate, dpop-nonce);
 * - the preflight's max age is `info.x-cors.maxAgeSeconds`.
 *
 * It wraps the gateway's whole listener, so every answer to an allowed origin carries the headers,
 * the error envelope included. A foreign origin gets none, and its request is answered as one
 * without `Origin`. Credentials are Bearer tokens only (ambient authority is refused), so no
 * answer allows credentials. spec/DECISIONS.md, "Browsers: CORS".
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors, { type CorsRequest } from 'cors';
import { dereference, httpMethods, operationTable, type OpenApiDocument, type OperationFacts } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';

/** What the contract says a browser may send and read. */
export interface CorsPolicy {
  methods: string[];
  allowedHeaders: string[];
  exposedHeaders: string[];
  maxAgeSeconds: number;
}

/** The policy, derived from the operation table and the bundled document. */
export function corsPolicyOf(document: OpenApiDocument = openapiDocument, operations: readonly OperationFacts[] = Object.values(operationTable) as OperationFacts[]): CorsPolicy {
  const methods = new Set<string>();
  const allowedHeaders = new Set<string>();
  const schemes = document.components?.securitySchemes ?? {};
  for (const operation of operations) {
    methods.add(operation.method.toUpperCase());
    if (operation.method === 'get') methods.add('HEAD');
    if (operation.hasRequestBody) allowedHeaders.add('Content-Type');
    for (const parameter of operation.parameters) if (parameter.in === 'header') allowedHeaders.add(parameter.name);
    for (const { scheme } of operation.security) {
      const facts = schemes[scheme] as { type?: string; in?: string; name?: string } | undefined;
      if (!facts) throw new Error(`${operation.operationId}: security scheme ${scheme} is not in the document`);
      if (facts.type === 'apiKey') {
        if (facts.in === 'header' && facts.name) allowedHeaders.add(facts.name);
      } else {
        allowedHeaders.add('Authorization'); // http, oauth2 and openIdConnect credentials travel in Authorization
      }
    }
  }
  const exposedHeaders = new Set<string>();
  const resolved = dereference(structuredClone(document));
  for (const item of Object.values(resolved.paths)) {
    for (const method of httpMethods) {
      for (const response of Object.values(item[method]?.responses ?? {})) for (const name of Object.keys(response.headers ?? {})) exposedHeaders.add(name);
    }
  }
  const maxAgeSeconds = (document.info['x-cors'] as { maxAgeSeconds?: unknown } | undefined)?.maxAgeSeconds;
  if (!Number.isInteger(maxAgeSeconds) || (maxAgeSeconds as number) < 0) throw new Error('info.x-cors.maxAgeSeconds must be a whole number of seconds');
  return { methods: [...methods], allowedHeaders: [...allowedHeaders], exposedHeaders: [...exposedHeaders], maxAgeSeconds: maxAgeSeconds as number };
}

/**
 * The allowed origins when CORS_ALLOWED_ORIGINS is not set: a local stack (`npm start`, tests) is
 * called by pages a developer serves on any port of this machine; a production deployment
 * (NODE_ENV=production) allows none until it is told which.
 */
export const DEVELOPMENT_ORIGINS = ['http://localhost:*', 'http://127.0.0.1:*'] as const;

/**
 * CORS_ALLOWED_ORIGINS: a comma-separated list of origins (`https://app.example.com`), each
 * optionally with `*` for the port (`http://localhost:*`) or as the leftmost host label
 * (`https://*.example.com`); `none` allows none. Unset or empty, the default above.
 */
export function allowedOriginsSetting(env: Record<string, string | undefined>): string[] {
  const value = env.CORS_ALLOWED_ORIGINS?.trim();
  if (!value) return env.NODE_ENV === 'production' ? [] : [...DEVELOPMENT_ORIGINS];
  if (value.toLowerCase() === 'none') return [];
  const origins = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const origin of origins) originPattern(origin); // a mistake stops the start, not the first browser
  return origins;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One entry of the setting as a pattern matching serialized origins (scheme://host[:port], as browsers send `Origin`). */
export function originPattern(entry: string): RegExp {
  const match = /^(https?):\/\/(\*\.)?([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\*|\d{1,5}))?$/i.exec(entry);
  if (!match) throw new Error(`CORS_ALLOWED_ORIGINS: ${JSON.stringify(entry)} is not an origin (scheme://host[:port], with * only as the port or the first host label)`);
  const [, scheme, anySubdomain, host, port] = match;
  const defaultPort = scheme!.toLowerCase() === 'https' ? '443' : '80';
  // Browsers leave a default port out of `Origin`; `:*` also allows it left out.
  const portPart = port === '*' ? '(?::\\d{1,5})?' : port === undefined || port === defaultPort ? '' : `:${port}`;
  return new RegExp(`^${escape(scheme!.toLowerCase())}://${anySubdomain ? '[a-z0-9-]+(?:\\.[a-z0-9-]+)*\\.' : ''}${escape(host!.toLowerCase())}${portPart}$`);
}

/** Whether a request's `Origin` is one the setting allows. */
export function originAllowed(origins: readonly string[]): (origin: string | undefined) => boolean {
  const patterns = origins.map(originPattern);
  return (origin) => origin !== undefined && origin !== 'null' && patterns.some((pattern) => pattern.test(origin));
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Wraps the gateway's listener with CORS for the allowed origins (none: the listener itself). */
export function withCors(listener: Listener, origins: readonly string[], policy: CorsPolicy = corsPolicyOf()): Listener {
  if (origins.length === 0) return listener;
  const allowed = originAllowed(origins);
  const handle = cors({
    origin: (origin, callback) => callback(null, allowed(origin)),
    methods: policy.methods,
    allowedHeaders: policy.allowedHeaders,
    exposedHeaders: policy.exposedHeaders,
    maxAge: policy.maxAgeSeconds,
    credentials: false,
    preflightContinue: false,
    optionsSuccessStatus: 204,
  });
  return (req, res) => {
    // The answer depends on Origin for every request, so caches must key on it, as the Fetch standard
    // advises. Nothing has set Vary yet: this is the first handler of the request.
    res.setHeader('Vary', 'Origin');
    // Most requests (servers, the CLI) carry no Origin, and a foreign one is answered as if it had
    // none: only an allowed origin goes through the package.
    const origin = req.headers.origin;
    if (origin === undefined || !allowed(origin)) return listener(req, res);
    // The package treats every OPTIONS as a preflight; one without Access-Control-Request-Method is
    // not (Fetch, "CORS-preflight request"), so it goes on as an ordinary request, as it does today.
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    const seen: CorsRequest = preflight ? req : { headers: req.headers };
    handle(seen, res, (error?: unknown) => {
      if (error) throw error; // the origin callback never fails
      listener(req, res);
    });
  };
}
