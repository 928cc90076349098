/**
 * A raw HTTP/1.1 client over keep-alive sockets. fetch cannot send what a
 * hostile caller sends (a body on a GET, a chunked body, a repeated header,
 * bytes that are not UTF-8), so requests go through node:http as written.
 */
import { Agent, request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';

export interface RawRequest {
  method: string;
  /** Path and query exactly as they go on the request line. */
  path: string;
  /** A header given as an array is sent once per value. */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of a Content-Length. */
  chunked?: boolean;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body, or undefined when it is empty or not JSON. */
  json: any;
  ms: number;
}

export class HttpClient {
  readonly #agent: Agent;
  readonly #host: string;
  readonly #port: number;

  constructor(baseUrl: string, maxSockets = 8) {
    const url = new URL(baseUrl);
    if (url.hostname !== '127.0.0.1') throw new Error(`refusing to send to ${url.hostname}: only 127.0.0.1`);
    this.#host = url.hostname;
    this.#port = Number(url.port);
    this.#agent = new Agent({ keepAlive: true, maxSockets });
  }

  send(req: RawRequest): Promise<RawAnswer> {
    const started = performance.now();
    const headers: OutgoingHttpHeaders = { ...req.headers };
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    if (body !== undefined) {
      if (req.chunked) headers['transfer-encoding'] = 'chunked';
      else headers['content-length'] = String(body.length);
    }
    return new Promise((resolve, reject) => {
      let answered = false;
      const outgoing = request({ host: this.#host, port: this.#port, method: req.method, path: req.path, headers, agent: this.#agent }, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, ms: performance.now() - started });
        });
      });
      // A server may answer (413) before it has read the body and close the socket: that answer counts.
      outgoing.on('error', (error) => {
        if (!answered) reject(error);
      });
      if (body === undefined) {
        outgoing.end();
      } else if (req.chunked) {
        for (let at = 0; at < body.length; at += 16 * 1024) outgoing.write(body.subarray(at, at + 16 * 1024));
        outgoing.end();
      } else {
        outgoing.end(body);
      }
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

/** Runs `work` over `items` with at most `concurrency` in flight; results keep the items' order. */
export async function pool<T, R>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
}
