/**
 * startStack picks the Minds port before the gateway starts and binds it a few
 * seconds later; a port taken in between must cost a retry, not a failed suite.
 */
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { startStack, type Stack } from '../src/index.js';

const squatter = createServer();
let stack: Stack | undefined;
afterAll(async () => {
  await stack?.close();
  squatter.close();
});

it('starts on another port when the Minds port is taken by the time Minds binds it, and forwards to it', async () => {
  squatter.listen(0, '127.0.0.1');
  await once(squatter, 'listening');
  const taken = (squatter.address() as AddressInfo).port;

  stack = await startStack({ mindsPort: taken });

  const { token } = await stack.issue('bridge_session');
  const response = await fetch(`${stack.url}/v1/minds/services?limit=1`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status, await response.clone().text()).toBe(200);
  expect(await response.json()).toHaveProperty('items');
});
