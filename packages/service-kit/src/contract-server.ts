/**
 * The HTTP listener every contract service uses (the gateway and the services behind it, since a
 * forwarded request carries the same path and query):
 *
 * - a header block large enough for the longest path and query the interface allows plus ordinary
 *   headers (`info.x-gateway-limits.maxHeaderBlockBytes`; Node's default 16 KiB cannot hold them);
 * - a deadline for receiving a whole request, headers and body (`requestReadTimeoutMs`), so a body
 *   that trickles is cut instead of holding its connection for Node's default five minutes;
 * - no `100 Continue` for a body declared over the body limit: it is refused without being read;
 * - the error envelope, not Node's bare status line, where Node itself refuses a request (a header
 *   block over the limit, a read deadline passed, bytes that are not HTTP).
 *
 * spec/DECISIONS.md, "What Node itself refuses".
 */
import { createServer, STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { gatewayLimits } from '@gateway-minds/contract';
import { ServiceError, envelopeOf, errorHeaders, refused } from './errors.js';
import { serverClassesFor } from './express-prototypes.js';
import type { Logger } from './logger.js';
import { newRequestId } from './request-id.js';

export const MAX_HEADER_BLOCK_BYTES = gatewayLimits.maxHeaderBlockBytes;
export const REQUEST_READ_TIMEOUT_MS = gatewayLimits.requestReadTimeoutMs;

/** Connections answered here: the request they carried is over, whatever its handler is still waiting for. */
export const answeredByListener = new WeakSet<Duplex>();

/** How often Node looks for requests past their read deadline: the cut comes at most this late. */
const DEADLINE_CHECK_INTERVAL_MS = 1000;

export interface ContractServerOptions {
  logger: Logger;
  /** As the service app's: the base of every docs_url, or a function giving it when it is known only once listening. */
  docsBaseUrl: string | (() => string);
  /** The Express app that answers most requests: requests and responses are born with its prototypes (express-prototypes.ts). */
  app?: Express;
}

type ClientError = Error & { code?: string; rawPacket?: Buffer };

/** The catalog error for a request Node refused before any handler saw it. */
export function clientErrorOf(error: ClientError): ServiceError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'HPE_HEADERS_TIMEOUT') {
    return refused('request-read-timeout');
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // The request line, when it arrived in the refused packet, tells whether the path or the query is over its own limit.
    const line = /^[A-Z]+ ([^ \r\n]*)/.exec(error.rawPacket?.toString('latin1', 0, Math.min(error.rawPacket.length, MAX_HEADER_BLOCK_BYTES * 2)) ?? '');
    const target = line?.[1] ?? '';
    const queryAt = target.indexOf('?');
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    const query = queryAt === -1 ? '' : target.slice(queryAt + 1);
    if (path.length > gatewayLimits.maxPathLength) return refused('path-too-long');
    if (query.length > gatewayLimits.maxQueryLength) return refused('query-too-long');
    return refused('header-block-too-large');
  }
  return refused('malformed-http');
}

export function createContractServer(handler: RequestListener, options: ContractServerOptions): Server {
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BLOCK_BYTES,
      requestTimeout: REQUEST_READ_TIMEOUT_MS,
      headersTimeout: REQUEST_READ_TIMEOUT_MS,
      connectionsCheckingInterval: DEADLINE_CHECK_INTERVAL_MS,
      ...(options.app ? serverClassesFor(options.app) : {}),
    },
    handler,
  );
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    // A body declared over the limit is refused (PAYLOAD_TOO_LARGE) without asking the client to send it.
    if (!(Number(req.headers['content-length']) > gatewayLimits.maxBodyBytes)) res.writeContinue();
    handler(req, res);
  });
  server.on('clientError', (error: ClientError, socket: Duplex) => {
    // A client that went away (reset, or closed its side mid-request) needs no answer. A request
    // already handed to the app is logged there, as a client abort, when its body read fails.
    if (error.code === 'ECONNRESET' || error.code === 'HPE_INVALID_EOF_STATE' || !socket.writable) return socket.destroy();
    // Answer only where nothing of a response has been written on this connection yet.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (inFlight?.headersSent) return socket.destroy();
    const apiError = clientErrorOf(error);
    answeredByListener.add(socket);
    const requestId = newRequestId();
    options.logger.info({ requestId, code: error.code, answer: apiError.code, reason: apiError.details.reason }, 'request refused before routing');
    const body = JSON.stringify(envelopeOf(apiError, requestId, typeof options.docsBaseUrl === 'function' ? options.docsBaseUrl() : options.docsBaseUrl));
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Request-Id': requestId,
      Connection: 'close',
      ...errorHeaders(apiError),
    };
    const head = `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
    socket.end(head + body);
    socket.once('finish', () => socket.destroy());
  });
  return server;
}
