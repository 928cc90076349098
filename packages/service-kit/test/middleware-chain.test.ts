import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { middlewareChain } from '../src/middleware-chain.js';

/** Each step appends its name to res.locals.trail; the final route answers with the trail. */
const step = (name: string, behaviour: 'next' | 'error' | 'throw' | 'reject' | 'async-next' = 'next'): RequestHandler =>
  (_req, res, next) => {
    (res.locals.trail as string[]).push(name);
    if (behaviour === 'error') return next(new Error(`${name} refused`));
    if (behaviour === 'throw') throw new Error(`${name} threw`);
    if (behaviour === 'reject') return Promise.reject(new Error(`${name} rejected`));
    if (behaviour === 'async-next') return Promise.resolve().then(() => next());
    return next();
  };

let base = '';
let server: ReturnType<express.Express['listen']>;

beforeAll(async () => {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.trail = [];
    next();
  });
  const chains: Record<string, RequestHandler> = {
    '/in-order': middlewareChain(step('a'), undefined, step('b', 'async-next'), step('c')),
    '/next-error': middlewareChain(step('a'), step('b', 'error'), step('c')),
    '/thrown': middlewareChain(step('a', 'throw'), step('b')),
    '/rejected': middlewareChain(step('a'), step('b', 'reject'), step('c')),
  };
  for (const [path, chain] of Object.entries(chains)) app.get(path, chain, (_req, res) => res.json({ trail: res.locals.trail }));
  const onError: ErrorRequestHandler = (error: Error, _req, res, _next) => {
    res.status(500).json({ trail: res.locals.trail, error: error.message });
  };
  app.use(onError);
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function get(path: string) {
  const response = await fetch(base + path);
  return { status: response.status, body: (await response.json()) as { trail: string[]; error?: string } };
}

describe('middlewareChain', () => {
  it('runs its steps in order, skipping absent ones, then hands on to the next layer', async () => {
    expect(await get('/in-order')).toEqual({ status: 200, body: { trail: ['a', 'b', 'c'] } });
  });

  it('leaves for the error handler on next(error), a thrown error or a rejected promise, running no later step', async () => {
    expect(await get('/next-error')).toEqual({ status: 500, body: { trail: ['a', 'b'], error: 'b refused' } });
    expect(await get('/thrown')).toEqual({ status: 500, body: { trail: ['a'], error: 'a threw' } });
    expect(await get('/rejected')).toEqual({ status: 500, body: { trail: ['a', 'b'], error: 'b rejected' } });
  });
});
