/**
 * Requests and responses are born with the contract app's prototypes, so that Express's per-request
 * setPrototypeOf changes nothing (express-prototypes.ts; the CPU it saves is bench/RESULTS.md's,
 * not asserted here). Over real HTTP: what the listener hands over, and that Express still answers.
 */
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createContractServer, createLogger } from '../src/index.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(withApp: boolean) {
  const app = express();
  app.get('/probe', (req, res) => {
    res.json({ query: req.query, path: req.path, isIncomingMessage: req instanceof IncomingMessage, isServerResponse: res instanceof ServerResponse });
  });
  const seen: { request: object | null; response: object | null }[] = [];
  server = createContractServer(
    (req, res) => {
      seen.push({ request: Object.getPrototypeOf(req), response: Object.getPrototypeOf(res) });
      app(req, res);
    },
    { logger: createLogger('test'), docsBaseUrl: 'http://docs.test', ...(withApp ? { app } : {}) },
  ).listen(0, '127.0.0.1');
  await new Promise((resolve) => server!.once('listening', resolve));
  const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/probe?a=1`);
  return { app, seen, answer: await answer.json() };
}

describe('the contract server builds requests and responses with the app prototypes', () => {
  it('given the app: the prototypes are the app request and response before Express sees them, and Express answers as usual', async () => {
    const { app, seen, answer } = await serve(true);
    expect(seen).toEqual([{ request: app.request, response: app.response }]);
    expect(answer).toEqual({ query: { a: '1' }, path: '/probe', isIncomingMessage: true, isServerResponse: true });
  });

  it("without it: Node's own prototypes, which Express replaces per request (the slower way)", async () => {
    const { seen, answer } = await serve(false);
    expect(seen).toEqual([{ request: IncomingMessage.prototype, response: ServerResponse.prototype }]);
    expect(answer).toEqual({ query: { a: '1' }, path: '/probe', isIncomingMessage: true, isServerResponse: true });
  });
});
