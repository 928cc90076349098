/**
 * Rotating the assertion key under traffic (spec/DECISIONS.md, "Assertion keys and their
 * rotation"): two gateways and one Minds service, each on its own listener, calls spread over
 * the gateways as a load balancer would, draining a gateway before it stops. The deployer's
 * steps: add the new public key to the service's key file, restart each gateway in turn with
 * the new signing key, remove the old public key. No call may be refused on the way.
 *
 * Then a gateway left behind with the old key: it says so in its log and in GET /v1/status, and
 * answers FLOCKS_SIGNING_KEY_MISSING instead of relaying the service's 401.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { JWK } from 'jose';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { operationPath, type Schemas } from '@gateway-minds/contract';
import { configFromEnv, createMindsService, type MindsService } from '@gateway-minds/minds';
import {
  ASSERTION_HEADER,
  ASSERTION_KEY_IDS_PATH,
  generateAssertionKeys,
  readAssertionSigningKey,
  signAssertion,
  type AssertionKeyPair,
  type AssertionSigningKey,
} from '@gateway-minds/service-kit';
import { startStack, type Stack } from '@gateway-minds/testkit';

const listMinds = `${operationPath('minds_listMinds')}?limit=1`;
const dir = mkdtempSync(join(tmpdir(), 'assertion-key-rotation-'));
const keyFile = join(dir, 'assertion.public.jwks.json');
let minds: MindsService;
let mindsUrl: string;
const stacks = new Set<Stack>();

/** Written whole and renamed into place, as a deployer (or a mounted secret) replaces a file. */
function trust(keys: JWK[]): void {
  writeFileSync(`${keyFile}.next`, JSON.stringify({ keys }));
  renameSync(`${keyFile}.next`, keyFile);
}

async function signingKeyOf(pair: AssertionKeyPair): Promise<AssertionSigningKey> {
  return (await readAssertionSigningKey({ jwk: JSON.stringify(pair.privateJwk) }))!;
}

interface LiveGateway {
  stack: Stack;
  token: string;
  inFlight: number;
  answered: number;
}

/** A gateway in front of the one Minds service, signing with `pair` given as ASSERTION_PRIVATE_KEY. */
async function startGatewayWith(pair: AssertionKeyPair, log?: Record<string, unknown>[], env: Record<string, string> = {}): Promise<LiveGateway> {
  const stack = await startStack({
    topology: 'processes',
    minds: false,
    gatewayEnv: { MINDS_URL: mindsUrl, ASSERTION_PRIVATE_KEY: JSON.stringify(pair.privateJwk), ...env },
    ...(log ? { loggers: { gateway: capturedLogger(log) } } : {}),
  });
  stacks.add(stack);
  return { stack, token: (await stack.issue('bridge_session')).token, inFlight: 0, answered: 0 };
}

function capturedLogger(lines: Record<string, unknown>[]) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level: 'info' }, sink);
}

async function stopGateway(gateway: LiveGateway): Promise<void> {
  stacks.delete(gateway.stack);
  await gateway.stack.close();
}

async function statusOf(gateway: LiveGateway): Promise<Schemas['GatewayStatus']> {
  return (await (await fetch(gateway.stack.url + operationPath('gateway_getStatus'))).json()) as Schemas['GatewayStatus'];
}

async function trustedKids(): Promise<string[]> {
  return ((await (await fetch(mindsUrl + ASSERTION_KEY_IDS_PATH)).json()) as { kids: string[] }).kids;
}

/** Resolves once `condition` holds, looking every 20 ms: the steps wait on what happened, never on a clock. */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

beforeAll(async () => {
  const { service } = configFromEnv({
    DATA_DIR: dir,
    ASSERTION_PUBLIC_KEYS_FILE: keyFile,
    // The listing reads no agent; nothing answers here.
    IAM_INTERNAL_URL: 'http://127.0.0.1:9',
    DOCS_BASE_URL: 'http://127.0.0.1:8080/docs',
  });
  old = await generateAssertionKeys();
  next = await generateAssertionKeys();
  trust([old.publicJwk]);
  minds = await createMindsService(service);
  mindsUrl = (await minds.listen(0, '127.0.0.1')).url;
});
afterAll(async () => {
  await Promise.all([...stacks].map((stack) => stack.close()));
  await minds?.close();
  rmSync(dir, { recursive: true, force: true });
});

let old: AssertionKeyPair;
let next: AssertionKeyPair;
const principal = { credentialId: 'cred_x', kind: 'bridge_session' as const, principal: 'usr_x', org: 'org_x', project: 'prj_x', workspace: null, sandbox: 'sbx_x', scopes: [], originalSession: true, agentId: null };

it('a rotation (trust the new key, restart each gateway with it, drop the old key) refuses no call made through the gateways meanwhile', async () => {
  const [oldKid, nextKid] = [(await signingKeyOf(old)).kid, (await signingKeyOf(next)).kid];
  let live: LiveGateway[] = [await startGatewayWith(old), await startGatewayWith(old)];
  const statuses = new Map<number, number>();
  let calls = 0;
  let stopping = false;
  let turn = 0;
  // Four callers at once, each call to the next live gateway in turn, as a load balancer sends them.
  const caller = async () => {
    while (!stopping) {
      const gateway = live[turn++ % live.length]!;
      gateway.inFlight++;
      try {
        const response = await fetch(gateway.stack.url + listMinds, { headers: { authorization: `Bearer ${gateway.token}` } });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        gateway.answered++;
        calls++;
      } finally {
        gateway.inFlight--;
      }
    }
  };
  const callers = Array.from({ length: 4 }, caller);
  /** The load balancer's rolling restart: the new gateway joins, the old one leaves the pool, drains, stops. */
  const replace = async (leaving: LiveGateway) => {
    const joining = await startGatewayWith(next);
    live = [...live.filter((g) => g !== leaving), joining];
    await until(() => leaving.inFlight === 0);
    await stopGateway(leaving);
    await until(() => joining.answered >= 20);
  };

  try {
    await until(() => live.every((g) => g.answered >= 20));
    // 1. The service trusts both keys. Nothing waits for it to notice: an assertion with a kid it
    //    lacks makes it read the file again.
    trust([old.publicJwk, next.publicJwk]);
    // 2. Each gateway in turn signs with the new key.
    for (const gateway of [...live]) await replace(gateway);
    // 3. The old key leaves the service's set, while the calls go on.
    trust([next.publicJwk]);
    await until(async () => (await trustedKids()).join() === nextKid);
    const after = calls;
    await until(() => calls >= after + 40);
  } finally {
    stopping = true;
    await Promise.all(callers);
  }

  expect(calls).toBeGreaterThan(100);
  expect(Object.fromEntries(statuses)).toEqual({ 200: calls });
  // The service really dropped the old key: an assertion signed with it is refused.
  const stale = await signAssertion((await signingKeyOf(old)).key, principal, { audience: 'minds', requestId: 'req_stale', kid: oldKid });
  expect((await fetch(mindsUrl + listMinds, { headers: { [ASSERTION_HEADER]: stale } })).status).toBe(401);
});

it('a gateway whose signing key the service does not trust logs it at start, reports the service degraded in /v1/status, and answers FLOCKS_SIGNING_KEY_MISSING, not 401', async () => {
  // After the rotation above the service trusts only the new key; this gateway was left with the old one.
  trust([next.publicJwk]);
  await until(async () => (await trustedKids()).join() === (await signingKeyOf(next)).kid);
  const log: Record<string, unknown>[] = [];
  const left = await startGatewayWith(old, log);
  const oldKid = (await signingKeyOf(old)).kid;

  const forwarded = await fetch(left.stack.url + listMinds, { headers: { authorization: `Bearer ${left.token}` } });
  expect(forwarded.status).toBe(503);
  expect(((await forwarded.json()) as Schemas['ErrorEnvelope']).error).toMatchObject({ code: 'FLOCKS_SIGNING_KEY_MISSING', reason: 'signing_key_untrusted' });

  const status = await statusOf(left);
  expect(status.services.find((s) => s.service === 'minds')).toMatchObject({ state: 'degraded', http_status: 503, reason: 'signing_key_untrusted' });
  const said = log.filter((line) => line.level === 50 && String(line.msg).includes('does not trust'));
  expect(said).toHaveLength(1);
  expect(said[0]).toMatchObject({ service: 'minds', kid: oldKid });

  // Put right (the service trusts its key again), it forwards without a restart.
  trust([old.publicJwk, next.publicJwk]);
  await until(async () => (await fetch(left.stack.url + listMinds, { headers: { authorization: `Bearer ${left.token}` } })).status === 200);
  left.stack.gateway.probe.invalidate();
  const healed = (await statusOf(left)).services.find((s) => s.service === 'minds');
  expect(healed).toMatchObject({ state: 'up', http_status: 200 });
  expect(healed).not.toHaveProperty('reason');
});

it('while the gateways sign with different keys, a gateway\'s internal agent lookup accepts assertions signed with any key of ASSERTION_PUBLIC_KEYS_FILE', async () => {
  // The Minds service may ask any gateway about an agent, with the assertion another gateway signed.
  trust([old.publicJwk, next.publicJwk]);
  const stranger = await generateAssertionKeys();
  const lookupWith = async (gateway: LiveGateway, pair: AssertionKeyPair) => {
    const agent = await gateway.stack.createAgent();
    const { organization_id } = (await (await fetch(`${gateway.stack.adminUrl}/admin/defaults`, { headers: { authorization: `Bearer ${gateway.stack.gateway.adminToken}` } })).json()) as { organization_id: string };
    const assertion = await signAssertion((await signingKeyOf(pair)).key, { ...principal, org: organization_id }, { audience: 'minds', requestId: 'req_lookup', kid: (await signingKeyOf(pair)).kid });
    return (await fetch(`${gateway.stack.adminUrl}/internal/iam/agents/${agent.id}`, { headers: { [ASSERTION_HEADER]: assertion } })).status;
  };
  const sharing = await startGatewayWith(old, undefined, { ASSERTION_PUBLIC_KEYS_FILE: keyFile });
  expect(await lookupWith(sharing, old)).toBe(200);
  expect(await lookupWith(sharing, next)).toBe(200);
  expect(await lookupWith(sharing, stranger)).toBe(401);
  // Without the setting it trusts its own key only.
  const alone = await startGatewayWith(old);
  expect(await lookupWith(alone, old)).toBe(200);
  expect(await lookupWith(alone, next)).toBe(401);
});
