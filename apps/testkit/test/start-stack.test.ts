/**
 * Ports are picked free and bound seconds later, by the stack or by a spawned
 * program; a port taken in between must cost a retry, not a failed suite.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { operationPath } from '@gateway-minds/contract';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStack, withFreePorts, type Stack } from '../src/index.js';

const squatter = createServer();
let stack: Stack | undefined;
let taken: number;
beforeAll(async () => {
  squatter.listen(0, '127.0.0.1');
  await once(squatter, 'listening');
  taken = (squatter.address() as AddressInfo).port;
});
afterAll(async () => {
  await stack?.close();
  squatter.close();
});

it('starts on another port when the Minds port is taken by the time Minds binds it, and forwards to it', async () => {
  stack = await startStack({ topology: 'processes', mindsPort: taken });

  const { token } = await stack.issue('bridge_session');
  const response = await fetch(`${stack.url}${operationPath('minds_listMinds')}?limit=1`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status, await response.clone().text()).toBe(200);
  expect(await response.json()).toHaveProperty('items');
});

it('withFreePorts starts a spawned program again on new ports when its first port is taken, and does not retry any other failure', async () => {
  /** A program that listens on the port it is given, as the stack's do: it exits with listen's error when it cannot. */
  const listenOn = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${port}, '127.0.0.1', () => process.exit(0))`], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('exit', (code) => (code === 0 ? resolve(port) : reject(new Error(`exited with ${code}:\n${stderr}`))));
    });
  const tried: number[][] = [];
  const bound = await withFreePorts(2, async (ports) => (tried.push(ports), listenOn(ports[0]!)), [taken, 0]);
  expect(tried).toHaveLength(2);
  expect(tried[1]![0]).not.toBe(taken);
  expect(tried[1]![0]).not.toBe(tried[1]![1]);
  expect(bound).toBe(tried[1]![0]);

  let calls = 0;
  await expect(withFreePorts(1, async () => (calls++, Promise.reject(new Error('the program crashed'))))).rejects.toThrow('the program crashed');
  expect(calls).toBe(1);
});
