/**
 * Request bodies read up to the contract's limit and refused at it (DECISIONS.md "Limits not
 * shown": a body sent without a length "is refused when it passes the limit").
 *
 * body-parser (express.json, express.raw) stops counting at the limit but then reads the rest of
 * the request before it passes the error on, so a chunked body over the limit was answered 413
 * only when the upload ended, and one never terminated only when the read deadline cut it. Here
 * the error is passed on as soon as the limit is passed: the answer is sent while the client is
 * still sending, and the connection is closed after it (the error handler's `Connection: close`)
 * rather than drained. Otherwise the readers do what body-parser did: raw-body counts the bytes
 * (the library body-parser uses), a `Content-Encoding` of gzip, deflate, br (or zstd where Node
 * has it) is inflated and the inflated bytes are what the limit counts, and the errors carry
 * body-parser's `type`s (`entity.too.large`, `entity.parse.failed`, `entity.verify.failed`,
 * `encoding.unsupported`, `request.aborted`), which the error handler maps to the catalog.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import * as zlib from 'node:zlib';
import type { RequestHandler } from 'express';
import getRawBody from 'raw-body';

/** Whether the request carries a body at all (type-is's rule, which body-parser follows: a Transfer-Encoding, or any Content-Length). */
export function carriesBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number.parseInt(req.headers['content-length'] ?? '', 10));
}

function bodyError(message: string, status: number, type: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { status, statusCode: status, type, expose: true, ...extra });
}

const decompressors: Record<string, () => Transform> = {
  deflate: () => zlib.createInflate(),
  gzip: () => zlib.createGunzip(),
  br: () => zlib.createBrotliDecompress(),
  ...('createZstdDecompress' in zlib ? { zstd: () => (zlib as unknown as { createZstdDecompress(): Transform }).createZstdDecompress() } : {}),
};

/** The body's bytes, inflated, at most `limit` of them; rejects with `entity.too.large` the moment there are more. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  let inflate: Transform | undefined;
  let length: string | undefined;
  if (encoding === 'identity') {
    length = req.headers['content-length'];
  } else {
    const decompress = decompressors[encoding];
    if (!decompress) return Promise.reject(bodyError(`unsupported content encoding "${encoding}"`, 415, 'encoding.unsupported', { encoding }));
    inflate = decompress();
    req.pipe(inflate);
  }
  const stream: Readable = inflate ?? req;
  return getRawBody(stream, { limit, length }).catch((error: unknown) => {
    if (inflate) {
      // Stop feeding the inflater; the request itself is left unread (the connection closes after the answer).
      req.unpipe(inflate);
      inflate.destroy();
    }
    throw error;
  });
}

/** Sets `req.body` to the raw body (a Buffer) when there is one. */
export function rawBodyReader(limit: number): RequestHandler {
  return (req, _res, next) => {
    if (!carriesBody(req)) return next();
    readBody(req, limit).then((body) => {
      req.body = body;
      next();
    }, next);
  };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const firstCharacter = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d])/;

/**
 * Sets `req.body` to the parsed JSON body when there is one: UTF-8 only (bytes that are not would
 * be decoded to U+FFFD and stored altered), a leading byte-order mark dropped, an object or an
 * array at the top (body-parser's `strict`), an empty body read as `{}` (as body-parser reads it).
 */
export function jsonBodyReader(limit: number): RequestHandler {
  return (req, _res, next) => {
    if (!carriesBody(req)) return next();
    readBody(req, limit)
      .then(parseJson)
      .then((body) => {
        req.body = body;
        next();
      }, next);
  };
}

function parseJson(raw: Buffer): unknown {
  let text: string;
  try {
    text = strictUtf8.decode(raw);
  } catch (error) {
    throw bodyError('the body is not valid UTF-8', 403, 'entity.verify.failed', { cause: error });
  }
  if (text.length === 0) return {};
  const first = firstCharacter.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw bodyError('the body is not a JSON object or array', 400, 'entity.parse.failed');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw bodyError((error as Error).message, 400, 'entity.parse.failed');
  }
}
