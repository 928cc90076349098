/**
 * Gateways of one deployment share their DPoP state through the store RATE_LIMIT_STORE names
 * (PostgreSQL or Redis), and every call to that store has a deadline: spec/DECISIONS.md, "Gateways
 * sharing one store" and "A shared store that does not answer". PostgreSQL cases run with
 * TEST_DATABASE_URL, Redis cases with TEST_REDIS_URL (.ci/run and CI set both).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { Redis } from 'ioredis';
import pg from 'pg';
import { pino } from 'pino';
import type { Logger } from '@gateway-minds/service-kit';
import { send, startHarness, UpstreamDouble, type Harness } from './support/harness.js';
import { TcpProxy } from './support/tcp-proxy.js';

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';
const path = `/v1/minds/agent/memory/episodic/${mindId}`;
// Both gateways sit behind one public address, as behind a load balancer: a proof's htu names it.
const publicBaseUrl = 'http://gateway.test';

const upstream = new UpstreamDouble();
const opened: Harness[] = [];
const schemas: string[] = [];
const redisPrefixes: string[] = [];

beforeAll(() => upstream.start());
afterAll(async () => {
  for (const h of opened) await h.close(); // before the schemas and keys they use go
  await upstream.stop();
  if (schemas.length > 0) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    for (const schema of schemas) await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
  if (redisPrefixes.length > 0) {
    const redis = new Redis(redisUrl!);
    for (const prefix of redisPrefixes) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    await redis.quit();
  }
});

async function gateway(env: Record<string, string>, logger?: Logger): Promise<Harness> {
  const h = await startHarness({ upstream, env, logger });
  opened.push(h);
  return h;
}

/** A key, an agent token bound to it, and proofs for the agent memory read. */
async function dpopCaller(issuer: Harness) {
  const keys = await generateKeyPair('ES256');
  const publicJwk: JWK = await exportJWK(keys.publicKey);
  const { token } = await issuer.issue('agent_token', { dpop_jkt: await calculateJwkThumbprint(publicJwk) });
  const sign = (nonce?: string) =>
    new SignJWT({ htm: 'GET', htu: `${publicBaseUrl}${path}`, jti: randomUUID(), ath: createHash('sha256').update(token).digest('base64url'), ...(nonce ? { nonce } : {}) })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk })
      .setIssuedAt()
      .sign(keys.privateKey);
  const call = async (at: Harness, proof: string) => {
    const answer = await send(at.gateway.url, 'GET', `${path}?mind=${mindId}`, { headers: { authorization: `Bearer ${token}`, dpop: proof } });
    return { status: answer.status, code: (answer.body?.error?.code as string | undefined) ?? 'forwarded', reason: answer.body?.error?.reason as string | undefined, nonce: answer.headers['dpop-nonce'] as string | undefined };
  };
  return { sign, call };
}

/**
 * The rules both shared stores must keep. Interface, "Agent memory": a proof is signed for one
 * request ("a caller-signed proof ... a nonce is never retried automatically"; on
 * `DPOP_NONCE_REQUIRED` "the nonce arrives in the dpop-nonce header"); spec/DECISIONS.md,
 * "Gateways sharing one store": a proof used at one gateway is refused at every other, and a
 * nonce one gateway issues is accepted by all.
 */
async function expectDpopSharedBetween(a: Harness, b: Harness): Promise<void> {
  const { sign, call } = await dpopCaller(a);

  const challenge = await call(a, await sign());
  expect({ status: challenge.status, code: challenge.code }).toEqual({ status: 401, code: 'DPOP_NONCE_REQUIRED' });
  const nonce = challenge.nonce!;
  expect(await call(b, await sign(nonce))).toMatchObject({ status: 200, code: 'forwarded' });
  // And the other way round: b's nonce (the same one, from the same shared secret) at a.
  const fromB = await call(b, await sign());
  expect(fromB.nonce).toBe(nonce);
  expect(await call(a, await sign(fromB.nonce))).toMatchObject({ status: 200, code: 'forwarded' });

  for (let round = 0; round < 3; round++) {
    const proof = await sign(nonce);
    const answers = await Promise.all([a, b, a, b, a, b].map((at) => call(at, proof)));
    expect(answers.map((answer) => answer.code).sort()).toEqual(['INVALID_DPOP', 'INVALID_DPOP', 'INVALID_DPOP', 'INVALID_DPOP', 'INVALID_DPOP', 'forwarded']);
  }
}

/** A whoami with `token` through `h`'s gateway: its status and error code. */
async function whoamiOf(h: Harness, token: string): Promise<{ status: number; code: string | undefined }> {
  const answer = await send(h.gateway.url, 'GET', '/v1/whoami', { headers: { authorization: `Bearer ${token}` } });
  return { status: answer.status, code: answer.body?.error?.code as string | undefined };
}

/** `stores` of a fresh (not cached) GET /v1/status of `h`'s gateway. */
async function storesInStatusOf(h: Harness): Promise<unknown> {
  h.gateway.probe.invalidate();
  return (await send(h.gateway.url, 'GET', '/v1/status')).body.stores;
}

describe.runIf(databaseUrl)('two gateways on one PostgreSQL (RATE_LIMIT_STORE=postgres)', () => {
  const schema = `gateway_dpop_${randomBytes(4).toString('hex')}`;
  schemas.push(schema);
  // REDIS_URL points nowhere: with RATE_LIMIT_STORE=postgres Redis plays no part in DPoP either.
  const env = { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema, RATE_LIMIT_STORE: 'postgres', REDIS_URL: 'redis://127.0.0.1:1', PUBLIC_BASE_URL: publicBaseUrl, DPOP_REQUIRE_NONCE: '1' };
  let a: Harness;
  let b: Harness;

  beforeAll(async () => {
    [a, b] = await Promise.all([gateway(env), gateway(env)]);
  }, 60_000);

  it('refuse at one gateway a proof used at the other, even sent to both at once, and accept each other\'s nonces', async () => {
    await expectDpopSharedBetween(a, b);
  }, 60_000);

  it('answer 503 AUTH_UNAVAILABLE (replay_store_unavailable), never 500 or a hang, while the table of used proofs does not answer', async () => {
    // spec/DECISIONS.md, "A shared store that does not answer"; the catalog's AUTH_UNAVAILABLE, "credential verification temporarily unavailable".
    const { sign, call } = await dpopCaller(a);
    const nonce = (await call(a, await sign())).nonce!;
    const locker = new pg.Client({ connectionString: databaseUrl });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query(`lock table ${schema}.dpop_proofs in access exclusive mode`);
      const started = Date.now();
      expect(await call(a, await sign(nonce))).toMatchObject({ status: 503, code: 'AUTH_UNAVAILABLE', reason: 'replay_store_unavailable' });
      expect(Date.now() - started).toBeLessThan(10_000); // loosely: the deadline (1 s), not the lock, ended the wait
      await locker.query('rollback');
    } finally {
      await locker.end();
    }
    expect(await call(a, await sign(nonce))).toMatchObject({ status: 200, code: 'forwarded' });
  }, 60_000);

  it('delete used proofs past their expiry (spec/DECISIONS.md, "Gateways sharing one store": at most once a minute per gateway)', async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(`insert into ${schema}.dpop_proofs (proof_key, expires_at) values ('expired-proof', now() - interval '1 minute'), ('live-proof', now() + interval '1 minute')`);
      const c = await gateway(env); // a fresh gateway cleans up after its first claim
      const { sign, call } = await dpopCaller(c);
      const nonce = (await call(c, await sign())).nonce!;
      expect(await call(c, await sign(nonce))).toMatchObject({ status: 200, code: 'forwarded' });
      const left = async () => (await client.query(`select proof_key from ${schema}.dpop_proofs where proof_key in ('expired-proof', 'live-proof') order by proof_key`)).rows.map((r) => r.proof_key);
      for (let attempt = 0; attempt < 50 && (await left()).length > 1; attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await left()).toEqual(['live-proof']);
    } finally {
      await client.end();
    }
  }, 60_000);

  it('report PostgreSQL, and only PostgreSQL, among the shared stores of /v1/status, and are ready', async () => {
    const status = await send(a.gateway.url, 'GET', '/v1/status');
    expect(status.body.stores).toEqual([{ store: 'postgres', state: 'up', latency_ms: expect.any(Number) }]);
    expect((await send(a.gateway.url, 'GET', '/healthz')).status).toBe(200);
  });
});

describe.runIf(databaseUrl && redisUrl)('two gateways on one Redis (RATE_LIMIT_STORE=redis)', () => {
  const schema = `gateway_dpop_${randomBytes(4).toString('hex')}`;
  schemas.push(schema);
  const prefix = `test-${randomBytes(4).toString('hex')}:`;
  redisPrefixes.push(prefix);

  it('refuse at one gateway a proof used at the other, even sent to both at once, and accept each other\'s nonces', async () => {
    const env = { DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema, RATE_LIMIT_STORE: 'redis', REDIS_URL: redisUrl!, REDIS_KEY_PREFIX: prefix, PUBLIC_BASE_URL: publicBaseUrl, DPOP_REQUIRE_NONCE: '1' };
    const [a, b] = await Promise.all([gateway(env), gateway(env)]);
    await expectDpopSharedBetween(a, b);
    // Every key the gateways wrote carries the prefix (REDIS_KEY_PREFIX), so deployments can share one Redis.
    const redis = new Redis(redisUrl!);
    try {
      expect(await redis.exists(`${prefix}dpop:nonce-secret`)).toBe(1);
    } finally {
      await redis.quit();
    }
  }, 90_000);
});

describe.runIf(redisUrl)('a gateway whose Redis stalls or goes away', () => {
  const target = new URL(redisUrl ?? 'redis://127.0.0.1:6379');
  const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  const prefix = `test-${randomBytes(4).toString('hex')}:`;
  redisPrefixes.push(prefix);
  const logLines: Array<{ msg: string; store?: string }> = [];
  const logger = pino({ level: 'info' }, new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  }));
  const consoleError = vi.spyOn(console, 'error');
  let h: Harness;
  let token: string;
  const whoami = () => whoamiOf(h, token);
  const storesInStatus = () => storesInStatusOf(h);
  const untilReady = async () => {
    for (let attempt = 0; attempt < 100; attempt++) {
      if ((await send(h.gateway.url, 'GET', '/healthz')).status === 200) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error('the gateway never became ready again');
  };
  const redisLines = (pattern: RegExp) => logLines.filter((line) => line.store === 'redis' && pattern.test(line.msg));

  afterAll(async () => {
    consoleError.mockRestore();
    await proxy.refuse();
  });

  it('listens only once Redis answers, and then serves at once (spec/DECISIONS.md, "A shared store that does not answer")', async () => {
    await proxy.forward();
    await proxy.refuse(); // the port is known, nothing listens on it yet
    const starting = gateway({ RATE_LIMIT_STORE: 'redis', REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_KEY_PREFIX: prefix }, logger);
    let listening = false;
    void starting.then(() => (listening = true));
    // The gateway has opened its database and tried Redis once it logs that Redis does not answer.
    for (let attempt = 0; attempt < 300 && redisLines(/unavailable/).length === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(redisLines(/unavailable/)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(listening).toBe(false);
    await proxy.forward();
    h = await starting;
    token = (await h.issue('api_key')).token;
    expect(await whoami()).toEqual({ status: 200, code: undefined });
    expect((await send(h.gateway.url, 'GET', '/healthz')).status).toBe(200);
    expect(await storesInStatus()).toEqual([{ store: 'redis', state: 'up', latency_ms: expect.any(Number) }]);
  }, 60_000);

  it('stalled: answers 503 RATE_LIMIT_UNAVAILABLE within about the deadline, never 500, reports Redis down, and recovers', async () => {
    proxy.stall();
    const started = Date.now();
    for (let i = 0; i < 3; i++) expect(await whoami()).toEqual({ status: 503, code: 'RATE_LIMIT_UNAVAILABLE' });
    expect(Date.now() - started).toBeLessThan(10_000); // loosely: each call ended at its deadline (1 s), not with the stall
    expect(await storesInStatus()).toEqual([{ store: 'redis', state: 'down', latency_ms: expect.any(Number) }]);
    expect((await send(h.gateway.url, 'GET', '/healthz')).status).toBe(503);
    await proxy.forward();
    await untilReady();
    expect(await whoami()).toEqual({ status: 200, code: undefined });
  }, 60_000);

  it('closed: answers 503 RATE_LIMIT_UNAVAILABLE at once, logs the outage in one line and its end in another, no unhandled error event', async () => {
    const before = { down: redisLines(/unavailable/).length, up: redisLines(/available again/).length };
    await proxy.refuse();
    for (let i = 0; i < 5; i++) {
      expect(await whoami()).toEqual({ status: 503, code: 'RATE_LIMIT_UNAVAILABLE' });
      await new Promise((resolve) => setTimeout(resolve, 300)); // Redis retries the connection meanwhile, failing each time
    }
    expect(await storesInStatus()).toEqual([{ store: 'redis', state: 'down', latency_ms: expect.any(Number) }]);
    expect((await send(h.gateway.url, 'GET', '/healthz')).status).toBe(503);
    expect(redisLines(/unavailable/).length - before.down).toBe(1);
    await proxy.forward();
    await untilReady();
    expect(await whoami()).toEqual({ status: 200, code: undefined });
    expect(redisLines(/available again/).length - before.up).toBe(1);
    expect(consoleError.mock.calls.filter((args) => String(args[0]).includes('[ioredis]'))).toEqual([]);
  }, 60_000);
});

describe.runIf(databaseUrl)('a gateway whose PostgreSQL store stalls or goes away (RATE_LIMIT_STORE=postgres)', () => {
  const target = new URL(databaseUrl ?? 'postgres://127.0.0.1:5432');
  const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const schema = `gateway_down_${randomBytes(4).toString('hex')}`;
  schemas.push(schema);
  let h: Harness;
  let token: string;
  const whoami = () => whoamiOf(h, token);
  const storesInStatus = () => storesInStatusOf(h);

  beforeAll(async () => {
    await proxy.forward();
    const viaProxy = new URL(databaseUrl!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    // The credential stays cached, so what is left to fail is the rate limit in the shared store.
    h = await gateway({ DATABASE_URL: viaProxy.href, DATABASE_SCHEMA: schema, RATE_LIMIT_STORE: 'postgres', CREDENTIAL_CACHE_MS: '600000' });
    token = (await h.issue('api_key')).token;
    expect(await whoami()).toEqual({ status: 200, code: undefined });
  }, 60_000);
  // The gateway closes with its database back (closing writes the usage counts it holds).
  afterAll(async () => {
    await proxy.forward();
    opened.splice(opened.indexOf(h), 1);
    await h.close();
    await proxy.refuse();
  });

  it('stalled: answers 503 RATE_LIMIT_UNAVAILABLE within about the deadline, never 500, and reports PostgreSQL down (spec/DECISIONS.md, "A shared store that does not answer")', async () => {
    proxy.stall();
    const started = Date.now();
    for (let i = 0; i < 3; i++) expect(await whoami()).toEqual({ status: 503, code: 'RATE_LIMIT_UNAVAILABLE' });
    expect(Date.now() - started).toBeLessThan(10_000); // loosely: each call ended at its deadline (1 s), not with the stall
    expect(await storesInStatus()).toEqual([{ store: 'postgres', state: 'down', latency_ms: expect.any(Number) }]);
    expect((await send(h.gateway.url, 'GET', '/healthz')).status).toBe(503);
  }, 60_000);

  it('closed: answers 503 RATE_LIMIT_UNAVAILABLE, never 500', async () => {
    await proxy.refuse();
    for (let i = 0; i < 3; i++) expect(await whoami()).toEqual({ status: 503, code: 'RATE_LIMIT_UNAVAILABLE' });
    expect(await storesInStatus()).toEqual([{ store: 'postgres', state: 'down', latency_ms: expect.any(Number) }]);
  }, 60_000);
});
