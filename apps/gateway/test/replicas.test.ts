/**
 * Several replicas of a service behind one gateway (MINDS_URL as a list; spec/DECISIONS.md,
 * "Several replicas of a service"): requests spread over the replicas that answer their health
 * probe, a replica down leaves the rotation and comes back, a request refused before it was sent
 * goes to another replica, and one that was sent is never sent again (interface, Minds lifecycle
 * rule 2: "The service never retries automatically.").
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/index.js';
import { UpstreamRegistry } from '../src/routing/upstreams.js';
import { send, startHarness, UpstreamDouble, type Harness } from './support/harness.js';

const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';
const mindJson = { schema_version: 'minds.controller.v1', mind_id: mindId };
const answerMind = (_call: unknown, res: import('node:http').ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(mindJson));

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends reads until `done` holds, for at most `attempts` rounds: the health probe runs on its own clock. */
async function readUntil(read: () => Promise<unknown>, done: () => boolean, attempts = 200): Promise<boolean> {
  for (let i = 0; i < attempts && !done(); i++) {
    await read();
    if (!done()) await sleep(25);
  }
  return done();
}

describe('MINDS_URL lists several replicas', () => {
  it('is read as a comma-separated list of http(s) URLs; one URL is a list of one', () => {
    const urlsOf = (value: string) => loadConfig({ MINDS_URL: value }).upstreams.find((u) => u.name === 'minds')!.urls;
    expect(urlsOf('http://127.0.0.1:8090/')).toEqual(['http://127.0.0.1:8090']);
    expect(urlsOf(' http://10.0.0.1:8090, http://10.0.0.2:8090/ ,')).toEqual(['http://10.0.0.1:8090', 'http://10.0.0.2:8090']);
    expect(() => urlsOf('http://10.0.0.1:8090,10.0.0.2:8090')).toThrow(/MINDS_URL/);
    expect(() => urlsOf('http://10.0.0.1:8090,http://10.0.0.1:8090')).toThrow(/names one URL twice/);
    expect(loadConfig({}).upstreams.find((u) => u.name === 'minds')!.healthIntervalMs).toBe(2000);
  });

  it('an in-process service takes one URL: its connector reaches the one service in this process', () => {
    const [minds] = loadConfig({ MINDS_URL: 'http://10.0.0.1:8090,http://10.0.0.2:8090' }).upstreams;
    expect(() => new UpstreamRegistry([{ ...minds!, connect: () => undefined as never }])).toThrow(/in this process, so it has one URL/);
  });
});

describe('two replicas, probed often', () => {
  const a = new UpstreamDouble();
  const b = new UpstreamDouble();
  let h: Harness;
  let token: string;
  const read = () => send(h.gateway.url, 'GET', `/v1/minds/services/${mindId}`, { headers: bearer(token) });

  beforeAll(async () => {
    await Promise.all([a.start(), b.start()]);
    h = await startHarness({ env: { MINDS_URL: `${a.url},${b.url}`, UPSTREAM_HEALTH_INTERVAL_MS: '50' } });
    token = (await h.issue('bridge_session')).token;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await Promise.all([a.stop(), b.stop()]);
  });
  beforeEach(() => {
    for (const replica of [a, b]) {
      replica.calls = [];
      replica.behaviour = answerMind;
      replica.healthStatus = 200;
    }
  });

  it('spreads requests over both replicas', async () => {
    for (let i = 0; i < 10; i++) expect((await read()).status).toBe(200);
    // In turn while both are idle: 5 and 5, unless a probe under load missed its deadline for a moment.
    expect(a.calls.length + b.calls.length).toBe(10);
    expect(Math.min(a.calls.length, b.calls.length)).toBeGreaterThan(0);
  });

  it('a replica whose health route fails leaves the rotation, and rejoins when it answers again', async () => {
    b.healthStatus = 503;
    // Until the probe sees it, b still gets its turn (every other request); afterwards none.
    let passedOver = false;
    for (let round = 0; round < 200 && !passedOver; round++) {
      b.calls = [];
      for (let i = 0; i < 4; i++) await read();
      passedOver = b.calls.length === 0;
    }
    expect(passedOver).toBe(true);
    for (let i = 0; i < 10; i++) expect((await read()).status).toBe(200);
    expect(b.calls).toHaveLength(0);
    b.healthStatus = 200;
    expect(await readUntil(read, () => b.calls.length > 0)).toBe(true);
  });

  it('one replica stopped: every call is answered by the other, and the stopped one is back once it returns', async () => {
    const port = b.port;
    await b.stop();
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push((await read()).status);
    expect(answers).toEqual(Array(20).fill(200));
    expect(a.calls).toHaveLength(20);
    await b.start(port);
    expect(await readUntil(read, () => b.calls.length > 0)).toBe(true);
  });

  it('the status route reports the service up while one replica answers, down when none does', async () => {
    const minds = async () => {
      h.gateway.probe.invalidate();
      return (await send(h.gateway.url, 'GET', '/v1/status')).body.services.find((s: { service: string }) => s.service === 'minds');
    };
    const [portA, portB] = [a.port, b.port];
    await b.stop();
    expect(await minds()).toMatchObject({ state: 'up', http_status: 200 });
    await a.stop();
    expect(await minds()).toMatchObject({ state: 'down', http_status: 502 });
    // All replicas down: answered as a single one down always was.
    const response = await read();
    expect({ status: response.status, code: response.body.error.code, reason: response.body.error.reason }).toEqual({ status: 502, code: 'UPSTREAM_UNREACHABLE', reason: 'connection_refused' });
    await Promise.all([a.start(portA), b.start(portB)]);
    expect((await read()).status).toBe(200);
    expect(await minds()).toMatchObject({ state: 'up' });
  });

  // DECISIONS "Relay failures"; interface Errors: "Retry rules: `UPSTREAM_TIMEOUT` on a read is safe to retry;
  // after a mutation the outcome is unknown", and Minds lifecycle rule 2: "The service never retries automatically."
  it('a connection cut after the replica read the request → 504 UPSTREAM_TIMEOUT connection_lost_after_send, sent exactly once', async () => {
    for (const replica of [a, b]) replica.behaviour = (_call, res) => res.socket!.destroy();
    const response = await send(h.gateway.url, 'POST', '/v1/minds/services', {
      headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f', 'x-platform-minds-creation-context': 'a'.repeat(64) },
      body: '{"name":"Cut","plan":"pro"}',
    });
    expect({ status: response.status, code: response.body.error.code, reason: response.body.error.reason, layer: response.body.error.layer }).toEqual({
      status: 504,
      code: 'UPSTREAM_TIMEOUT',
      reason: 'connection_lost_after_send',
      layer: 'minds',
    });
    expect(a.calls.length + b.calls.length).toBe(1);
  });
});

describe('two replicas, probed once', () => {
  const a = new UpstreamDouble();
  const b = new UpstreamDouble();
  let h: Harness;

  beforeAll(async () => {
    await Promise.all([a.start(), b.start()]);
    // The probe runs at start and not again during the test: a replica stopped later is still in the rotation.
    h = await startHarness({ env: { MINDS_URL: `${a.url},${b.url}`, UPSTREAM_HEALTH_INTERVAL_MS: '600000' } });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await Promise.all([a.stop(), b.stop()]);
  });

  it('a request refused by a replica before it was sent goes to the other replica', async () => {
    const { token } = await h.issue('bridge_session');
    const read = () => send(h.gateway.url, 'GET', `/v1/minds/services/${mindId}`, { headers: bearer(token) });
    for (const replica of [a, b]) replica.behaviour = answerMind;
    // Both in the rotation: requests alternate between them.
    for (let i = 0; i < 2; i++) expect((await read()).status).toBe(200);
    expect({ a: a.calls.length, b: b.calls.length }).toEqual({ a: 1, b: 1 });
    await b.stop();
    // The next request goes to b in its turn, is refused, and is answered by a.
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await read()).status);
    expect(answers).toEqual([200, 200, 200, 200]);
    expect(a.calls).toHaveLength(5);
  });
});
