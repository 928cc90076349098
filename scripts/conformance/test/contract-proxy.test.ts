/**
 * Contract conformance from outside: the every-operation scenario runs through
 * a Prism validation proxy (`prism proxy --errors` on the bundled spec) in
 * front of the real gateway, and must finish with zero request or response
 * violations. A deliberately wrong answer from a stand-in upstream is caught
 * by the same proxy, so the check can fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationIds, type OperationId } from '@gateway-minds/contract';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { contractProblems } from '../src/contract-check.js';
import { caller, type Answer } from '../src/http.js';
import { everyOperation } from '../src/scenario.js';

const require = createRequire(import.meta.url);
const prismBin = join(dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist/index.js');
const specPath = fileURLToPath(import.meta.resolve('@gateway-minds/contract/openapi.json'));

async function startProxy(upstream: string): Promise<{ url: string; process: ChildProcess }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const child = spawn(process.execPath, [prismBin, 'proxy', specPath, upstream, '--errors', '--port', String(port), '--host', '127.0.0.1'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      await fetch(`${url}/v1/status`);
      return { url, process: child };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('prism proxy did not start');
}

describe('through a Prism validation proxy', () => {
  let stack: Stack;
  let proxy: { url: string; process: ChildProcess };
  beforeAll(async () => {
    stack = await startStack();
    proxy = await startProxy(stack.url);
  });
  afterAll(async () => {
    proxy?.process.kill();
    await stack?.close();
  });

  it('every operation finishes with zero request or response violations', async () => {
    const violations: string[] = [];
    const exercised = new Set<OperationId>();
    const token = (await stack.issue('bridge_session')).token;
    const agent = await stack.createAgent();
    const op = async (operationId: OperationId, send: () => Promise<Answer>, status: number) => {
      const answer = await send();
      const header = answer.headers.get('sl-violations');
      if (header) violations.push(`${operationId}: ${header}`);
      if (answer.status !== status) violations.push(`${operationId}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
      violations.push(...contractProblems(operationId, answer));
      exercised.add(operationId);
      return answer;
    };
    await everyOperation({
      call: caller(proxy.url, token),
      agentCall: caller(proxy.url, (await stack.issue('agent_credential', { agent_id: agent.id })).token),
      agent,
      apiKeyToken: (await stack.issue('api_key')).token,
      op,
    });
    expect(violations).toEqual([]);
    expect([...exercised].sort()).toEqual([...operationIds].sort());
  }, 120_000);

  // Prism checks the required WWW-Authenticate header the spec declares on every 401 (RFC 9110 §15.5.2).
  it('refusals with 401 carry the headers the contract declares', async () => {
    // A sender-constrained token (bound to a real key's RFC 7638 thumbprint, as the admin API requires).
    const { publicKey } = await generateKeyPair('ES256');
    const agentToken = (await stack.issue('agent_token', { dpop_jkt: await calculateJwkThumbprint(await exportJWK(publicKey)) })).token;
    // Prism answers a request without credentials itself; these carry one, so the gateway answers.
    const refusals = [
      await caller(proxy.url, 'ak_neverIssued000000000000000000')('GET', '/v1/whoami'),
      await caller(proxy.url, 'bs_neverIssued000000000000000000')('GET', '/v1/minds/services'),
      await caller(proxy.url, agentToken)('GET', `/v1/minds/agent/memory/episodic/${randomUUID()}?mind=${randomUUID()}`),
    ];
    expect(refusals.map((a) => [a.status, a.body.error.code, a.headers.get('sl-violations')])).toEqual([
      [401, 'CREDENTIAL_INVALID', null],
      [401, 'CREDENTIAL_INVALID', null],
      [401, 'DPOP_REQUIRED', null],
    ]);
  }, 60_000);
});

describe('the proxy can fail', () => {
  let double: Server;
  let proxy: { url: string; process: ChildProcess };
  beforeAll(async () => {
    double = createServer((req, res) => {
      // A 401 without the WWW-Authenticate the contract requires.
      if (req.url === '/v1/whoami') {
        const error = { code: 'BEARER_REQUIRED', type: 'unauthorized', message: 'No bearer.', docs_url: 'http://x/errors.html#BEARER_REQUIRED', request_id: 'req_01JD3M8Q4Z9X7V6T5S4R3P2N1M' };
        return res.writeHead(401, { 'content-type': 'application/json', 'x-request-id': error.request_id }).end(JSON.stringify({ error }));
      }
      // A Mind missing most required fields, with a status field outside its enum.
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ schema_version: 'minds.controller.v1', status: 'exploded' }));
    });
    await new Promise<void>((resolve) => double.listen(0, '127.0.0.1', resolve));
    proxy = await startProxy(`http://127.0.0.1:${(double.address() as AddressInfo).port}`);
  });
  afterAll(() => {
    proxy?.process.kill();
    double?.close();
  });

  it('flags a response that breaks the contract', async () => {
    const answer = await caller(proxy.url, 'bs_anything')('GET', '/v1/minds/services/3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b');
    const flagged = answer.status >= 500 || answer.headers.get('sl-violations') !== null;
    expect(flagged, `${answer.status} ${JSON.stringify(answer.body)}`).toBe(true);
  });

  it('flags a 401 without WWW-Authenticate', async () => {
    const answer = await caller(proxy.url, 'ak_anything')('GET', '/v1/whoami');
    const flagged = answer.status >= 500 || answer.headers.get('sl-violations') !== null;
    expect(flagged, `${answer.status} ${answer.headers.get('sl-violations')}`).toBe(true);
  });
});
