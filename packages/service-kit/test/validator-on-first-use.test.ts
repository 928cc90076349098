/**
 * express-openapi-validator is built on the first request that needs it (validator-on-first-use.ts):
 * not at start, not for a request the compiled validators accept (whether or not its answer is
 * checked), and then it answers as it always did; apps of one process built from the same document
 * and options share it.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { operationPath, operationTable, type OperationFacts } from '@gateway-minds/contract';
import { createLogger, createServiceApp, type OperationHandler } from '../src/index.js';

const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';
/** Not a Mind: only a response check refuses it. */
const reached: OperationHandler = (_req, res) => void res.json({ not: 'a mind' });

const servers: Server[] = [];
afterEach(() => Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve)))));

async function serve(validateResponses: boolean, operations: OperationFacts[] = [operationTable.minds_getMind]) {
  const app = createServiceApp({
    operations,
    handlers: Object.fromEntries(operations.map((operation) => [operation.operationId, reached])),
    validateResponses,
    docsBaseUrl: 'http://docs.test',
    logger: createLogger('test'),
  });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { validator: app.locals.validator as { built: boolean; shared: boolean }, get: (id: string) => fetch(base + operationPath('minds_getMind', { mind_id: id })) };
}

describe('express-openapi-validator, built on first use', () => {
  it('responses not validated: unbuilt through accepted requests, built by the first refused one, which it answers', async () => {
    const { validator, get } = await serve(false);
    expect(validator.built).toBe(false);
    expect((await get(mindId)).status).toBe(200);
    expect(validator.built).toBe(false);
    const refused = await get('not-a-uuid');
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('INVALID_IDENTIFIER');
    expect(validator.built).toBe(true);
  });

  it('responses validated: unbuilt through an accepted request, whose answer is still checked', async () => {
    const { validator, get } = await serve(true);
    const answer = await get(mindId);
    expect(answer.status).toBe(500);
    expect(((await answer.json()) as { error: { reason: string } }).error.reason).toBe('response_contract_violation');
    expect(validator.built).toBe(false);
  });

  it('a second app of the process with the same document and options takes the validator the first built, and answers as it did; checking answers or not changes nothing of it', async () => {
    // Two operations no other test serves together: no earlier app of this worker built this document's validator.
    const operations = [operationTable.minds_getMind, operationTable.minds_listMinds];
    const first = await serve(false, operations);
    const second = await serve(false, operations);
    const validating = await serve(true, operations);
    for (const app of [first, second, validating]) {
      const refused = await app.get('not-a-uuid');
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('INVALID_IDENTIFIER');
    }
    expect([first.validator.shared, second.validator.shared, validating.validator.shared]).toEqual([false, true, true]);
  });
});
