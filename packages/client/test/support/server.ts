/** A small real HTTP server whose answers a test scripts exactly (node:http). */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Call {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** Raw header names as sent (to count repeated headers). */
  rawHeaderNames: string[];
  body: string;
  json: any;
}

export type Handler = (call: Call, res: ServerResponse, index: number) => void;

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

/** An error envelope as the gateway sends it. */
export function envelope(code: string, status: number, type: string, extra: Record<string, unknown> = {}) {
  return {
    error: {
      code,
      type,
      message: `${code} happened`,
      docs_url: `http://127.0.0.1:8080/docs/errors.html#${code}`,
      request_id: 'req_01JD3M8Q4Z9X7V6T5S4R3P2N1M',
      ...extra,
    },
    status,
  };
}

export const sendError = (res: ServerResponse, code: string, status: number, type: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
  const { error } = envelope(code, status, type, extra);
  json(res, status, { error }, { 'x-request-id': error.request_id, ...headers });
};

export class TestServer {
  calls: Call[] = [];
  handler: Handler = (_call, res) => json(res, 200, {});
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const url = new URL(req.url!, 'http://x');
        let parsed: unknown;
        try {
          parsed = body ? JSON.parse(body) : undefined;
        } catch {
          parsed = undefined;
        }
        const call: Call = {
          method: req.method!,
          url: req.url!,
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          rawHeaderNames: req.rawHeaders.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase()),
          body,
          json: parsed,
        };
        this.calls.push(call);
        this.handler(call, res, this.calls.length - 1);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  reset(handler: Handler): void {
    this.calls = [];
    this.handler = handler;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/** A Mind as the contract shapes it (only the fields a test reads matter to the client). */
export function mindJson(overrides: Record<string, unknown> = {}) {
  return {
    schema_version: 'minds.controller.v1',
    mind_id: '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b',
    status: 'provisioning',
    desired_generation: 1,
    error_code: null,
    ...overrides,
  };
}
