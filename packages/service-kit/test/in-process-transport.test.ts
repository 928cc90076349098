/**
 * The in-process transport is a socket as far as both HTTP sides can tell: undici's pool and Node's
 * server speak HTTP/1.1 over it with keep-alive, large bodies in both directions under
 * backpressure, the pool's response size limit, and the failures a relay maps (a service gone:
 * refused; a connection dropped mid-answer: a socket error).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool, errors } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessUpstream } from '../src/in-process-transport.js';

const pools: Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.destroy()));
});

function serve(handler: (req: IncomingMessage, res: ServerResponse) => void, poolOptions: ConstructorParameters<typeof Pool>[1] = {}) {
  const server = createServer(handler);
  const upstream = new InProcessUpstream(server);
  const connections: unknown[] = [];
  server.on('connection', (socket) => connections.push(socket));
  const pool = new Pool('http://service.in-process', { connect: upstream.connect, ...poolOptions });
  pools.push(pool);
  return { upstream, pool, connections };
}

describe('the in-process transport', () => {
  it('carries requests and answers, keeping the connection alive between them', async () => {
    const { pool, connections } = serve((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, url: req.url, host: req.headers.host }));
    });
    for (const path of ['/a', '/b?x=1', '/c']) {
      const answer = await pool.request({ path, method: 'GET' });
      expect(answer.statusCode).toBe(200);
      expect(await answer.body.json()).toEqual({ method: 'GET', url: path, host: 'service.in-process' });
      // The pool marks a connection free on the next tick (over TCP too): ask after it has.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(connections).toHaveLength(1);
  });

  it('moves bodies larger than any stream buffer both ways, under backpressure', async () => {
    const { pool } = serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        res.end(Buffer.concat([body, body]));
      });
    });
    const sent = Buffer.alloc(3 * 1024 * 1024, 'x');
    const answer = await pool.request({ path: '/echo', method: 'POST', body: sent });
    expect((await answer.body.arrayBuffer()).byteLength).toBe(2 * sent.length);
  });

  it("keeps the pool's limit on an answer's size", async () => {
    const { pool } = serve((_req, res) => res.end(Buffer.alloc(64 * 1024)), { maxResponseSize: 1024 });
    await expect(pool.request({ path: '/', method: 'GET' }).then((answer) => answer.body.arrayBuffer())).rejects.toBeInstanceOf(errors.ResponseExceededMaxSizeError);
  });

  it('refuses a connection once the service is closed, as a closed port does', async () => {
    const { pool, upstream } = serve((_req, res) => res.end('ok'));
    expect((await pool.request({ path: '/', method: 'GET' })).statusCode).toBe(200);
    upstream.close();
    await expect(pool.request({ path: '/', method: 'GET' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('fails a request whose connection is dropped mid-answer with a socket error', async () => {
    const { pool, upstream } = serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => upstream.close(), 10);
    });
    await expect(pool.request({ path: '/', method: 'GET' }).then((answer) => answer.body.text())).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
  });
});
