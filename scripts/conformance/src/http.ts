/** Plain HTTP against the stack, so that a test sees exactly what a caller sees: status, headers, body. */
import { randomUUID } from 'node:crypto';
import { call as callOnce, type Answer, type CallOptions as OnceOptions } from '@gateway-minds/testkit';

export type { Answer };

export interface CallOptions extends OnceOptions {
  /** This request's bearer instead of the caller's (null: none). */
  token?: string | null;
}

export function caller(baseUrl: string, token: string | null) {
  return (method: string, path: string, options: CallOptions = {}): Promise<Answer> => callOnce(baseUrl, options.token === undefined ? token : options.token, method, path, options);
}

export type Call = ReturnType<typeof caller>;

export const newKey = () => randomUUID();

/** Creates a Mind through the gateway and waits for it to be ready. */
export async function readyMind(call: Call, name = 'Sandbox conformance'): Promise<any> {
  const list = await call('GET', '/v1/minds/services');
  const created = await call('POST', '/v1/minds/services', {
    body: { name },
    headers: { 'idempotency-key': newKey(), 'x-platform-minds-creation-context': list.body.context_sha256 },
  });
  if (created.status !== 202) throw new Error(`createMind: ${created.status} ${JSON.stringify(created.body)}`);
  for (let i = 0; i < 200; i++) {
    const mind = await call('GET', `/v1/minds/services/${created.body.mind_id}`);
    if (mind.body.status === 'ready') return mind.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('Mind not ready in time');
}

export async function waitForStatus(call: Call, mindId: string, status: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const mind = await call('GET', `/v1/minds/services/${mindId}`);
    if (mind.body.status === status) return mind.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Mind not ${status} in time`);
}

/** Raw node:http, for what fetch will not send: repeated headers, a body on GET. */
export async function rawSend(baseUrl: string, method: string, path: string, headers: Record<string, string | string[]>, body?: string): Promise<Answer> {
  const { request } = await import('node:http');
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const all = { ...headers, ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}) };
    const req = request({ host: hostname, port, method, path, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = text;
        }
        resolve({ status: res.statusCode!, headers: responseHeaders, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
