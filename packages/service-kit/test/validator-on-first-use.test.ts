/**
 * express-openapi-validator is built on the first request that needs it (validator-on-first-use.ts):
 * not at start, not for a request the compiled validators accept while responses are not
 * validated, and then it answers as it always did.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { operationPath, operationTable } from '@gateway-minds/contract';
import { createLogger, createServiceApp, type OperationHandler } from '../src/index.js';

const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';
/** Not a Mind: only a response check refuses it. */
const reached: OperationHandler = (_req, res) => void res.json({ not: 'a mind' });

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(validateResponses: boolean) {
  const app = createServiceApp({
    operations: [operationTable.minds_getMind],
    handlers: { minds_getMind: reached },
    validateResponses,
    docsBaseUrl: 'http://docs.test',
    logger: createLogger('test'),
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server!.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { validator: app.locals.validator as { built: boolean }, get: (id: string) => fetch(base + operationPath('minds_getMind', { mind_id: id })) };
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

  it('responses validated: built by the first request, whose answer it checks', async () => {
    const { validator, get } = await serve(true);
    expect(validator.built).toBe(false);
    const answer = await get(mindId);
    expect(validator.built).toBe(true);
    expect(answer.status).toBe(500);
  });
});
