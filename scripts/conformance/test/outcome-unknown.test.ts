/**
 * Outcome unknown is said, not hidden: a real fault on PostgreSQL during a request, through the
 * gateway on the real stack. The service's own connections (named by schema, see
 * `applicationName`) are terminated with pg_terminate_backend while the request's statement waits
 * on a table lock this test holds, so the fault lands mid-request every time; or between requests.
 *
 * Interface, "Errors": `MINDS_UNAVAILABLE` "Minds unavailable; outcome may be unknown",
 * `AUTH_UNAVAILABLE` "credential verification temporarily unavailable", `USAGE_UNAVAILABLE` "usage
 * reads unavailable", and the retry rules:
 * "Errors that say outcome may be unknown call for re-reading state, or for retry with the same
 * `Idempotency-Key`". After each fault the test does that reconciliation and shows the true state.
 * spec/DECISIONS.md, "A database lost during a request".
 *
 * PostgreSQL only (TEST_DATABASE_URL; CI sets it): PGlite runs inside the service's process and
 * has no connection to lose.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalog } from '@gateway-minds/contract';
import { applicationName } from '@gateway-minds/db';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { caller, newKey, readyMind, type Answer, type Call } from '../src/http.js';

const databaseUrl = process.env.TEST_DATABASE_URL;

/** A session of this test's own on the server. */
async function session(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return client;
}

/**
 * Runs `request` while `table` of `schema` is locked in `mode` by this test; whenever a backend of
 * the service (application_name) waits on the lock with a statement matching `statement`, every
 * backend of the service is terminated, until the request has answered; then the lock is released
 * and the answer returned.
 */
async function faultDuring(schema: string, table: string, mode: string, statement: RegExp, request: () => Promise<Answer>): Promise<{ answer: Answer; terminated: number }> {
  const locker = await session();
  const admin = await session();
  try {
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE "${schema}"."${table}" IN ${mode} MODE`);
    let settled = false;
    const pending = request().finally(() => {
      settled = true;
    });
    let terminated = 0;
    for (let attempt = 0; attempt < 400 && !settled; attempt++) {
      const { rows } = await admin.query<{ query: string }>(`SELECT query FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [applicationName(schema)]);
      if (rows.some((row) => statement.test(row.query))) {
        const killed = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName(schema)]);
        terminated += killed.rowCount ?? 0;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await locker.query('ROLLBACK');
    if (terminated === 0) throw new Error(`no ${statement} of ${schema} waited on the lock`);
    return { answer: await pending, terminated };
  } finally {
    await locker.end();
    await admin.end();
  }
}

/**
 * After recovery: the service's pool drops the terminated connections as it reads their notices,
 * so a request may still meet one and answer the unavailability code again. Repeats a read until
 * it answers something else (at most 20 times), and refuses anything but that code meanwhile.
 */
type UnavailableCode = 'MINDS_UNAVAILABLE' | 'AUTH_UNAVAILABLE' | 'USAGE_UNAVAILABLE';

async function afterRecovery(code: UnavailableCode, read: () => Promise<Answer>): Promise<Answer> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const answer = await read();
    if (answer.status !== 503) return answer;
    expect(answer.body.error.code).toBe(code);
  }
  throw new Error(`still ${code} after 20 reads`);
}

function expectUnavailable(answer: Answer, code: UnavailableCode) {
  expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status: 503, code });
  expect(answer.body.error.type).toBe('service_unavailable');
}

describe.runIf(databaseUrl)('a database lost during a request (PostgreSQL)', () => {
  let stack: Stack;
  let call: Call;
  let schemas: { gateway: string; minds: string };
  beforeAll(async () => {
    // Every request reads the credential store: no cached credential hides a lost one.
    stack = await startStack({ gatewayEnv: { CREDENTIAL_CACHE_MS: '0' } });
    schemas = stack.schemas!;
    call = caller(stack.url, (await stack.issue('bridge_session')).token);
  });
  afterAll(() => stack?.close());

  it('createMind: MINDS_UNAVAILABLE says the outcome is unknown; re-reading shows it was not applied, and the same Idempotency-Key then creates exactly one', async () => {
    expect(errorCatalog.MINDS_UNAVAILABLE.outcomeUnknown).toBe(true);
    const context = (await call('GET', '/v1/minds/services')).body.context_sha256;
    const name = `Sandbox ${randomUUID()}`;
    const key = newKey();
    const create = () => call('POST', '/v1/minds/services', { body: { name }, headers: { 'idempotency-key': key, 'x-platform-minds-creation-context': context } });

    const { answer } = await faultDuring(schemas.minds, 'minds', 'EXCLUSIVE', /INSERT INTO minds/, create);
    expectUnavailable(answer, 'MINDS_UNAVAILABLE');
    expect(answer.body.error.reason).toBe('database_unavailable');
    expect(answer.body.error.message).toMatch(/outcome is unknown/);
    expect(answer.body.error.message).toMatch(/same Idempotency-Key/);

    // Re-read: the true state. The statement was terminated before COMMIT, so no Mind exists.
    const listed = await afterRecovery('MINDS_UNAVAILABLE', () => call('GET', '/v1/minds/services?limit=100'));
    expect(listed.status).toBe(200);
    expect(listed.body.items.filter((m: { name: string }) => m.name === name)).toEqual([]);

    // Retry with the same key: applied once; a further retry replays it.
    const retried = await create();
    expect(retried.status).toBe(202);
    const replayed = await create();
    expect(replayed.body).toEqual(retried.body);
    const after = await call('GET', '/v1/minds/services?limit=100');
    expect(after.body.items.filter((m: { name: string }) => m.name === name).map((m: { mind_id: string }) => m.mind_id)).toEqual([retried.body.mind_id]);
  });

  it('getMind: MINDS_UNAVAILABLE tells to retry the read, and the retried read shows the Mind unchanged', async () => {
    const mind = await readyMind(call, 'Sandbox read fault');
    const { answer } = await faultDuring(schemas.minds, 'minds', 'ACCESS EXCLUSIVE', /FROM minds WHERE mind_id = \$1 AND organization_id/, () => call('GET', `/v1/minds/services/${mind.mind_id}`));
    expectUnavailable(answer, 'MINDS_UNAVAILABLE');
    expect(answer.body.error.message).toMatch(/Retry the read/);
    const reread = await afterRecovery('MINDS_UNAVAILABLE', () => call('GET', `/v1/minds/services/${mind.mind_id}`));
    expect(reread.status).toBe(200);
    expect({ ...reread.body, last_activity_at: undefined, updated_at: undefined }).toEqual({ ...mind, last_activity_at: undefined, updated_at: undefined });
  });

  it('memory insert: MINDS_UNAVAILABLE says to re-read before inserting again; a search shows the true state', async () => {
    const mind = await readyMind(call, 'Sandbox memory fault');
    const word = `zephyr${randomUUID().slice(0, 8)}`;
    const event = { id: randomUUID(), content: `Remember ${word}`, timestamp: '2026-11-21T12:00:00Z' };
    const insert = () => call('POST', `/v1/minds/memory/episodic?mind=${mind.mind_id}`, { body: { event } });
    const search = () => call('POST', `/v1/minds/search?mind=${mind.mind_id}`, { body: { text: word } });

    const { answer } = await faultDuring(schemas.minds, 'memory_events', 'EXCLUSIVE', /INSERT INTO memory_events/, insert);
    expectUnavailable(answer, 'MINDS_UNAVAILABLE');
    expect(answer.body.error.message).toMatch(/outcome is unknown/);
    expect(answer.body.error.message).toMatch(/not replayed/);

    const found = await afterRecovery('MINDS_UNAVAILABLE', search);
    expect(found.status).toBe(200);
    expect(found.body.items).toEqual([]);
    const inserted = await insert();
    expect(inserted.status).toBe(200);
    expect((await search()).body.items.map((item: { id: string }) => item.id)).toEqual([event.id]);
  });

  it('attach: MINDS_UNAVAILABLE says to re-read or retry with the same operationId; the list shows the true state', async () => {
    const mind = await readyMind(call, 'Sandbox attach fault');
    const agent = await stack.createAgent();
    const body = { operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId: agent.id }, permissions: ['minds.agent_data.read'], expiresAt: Date.now() + 86_400_000 };
    const attach = () => call('POST', `/v1/minds/${mind.mind_id}/attachments`, { body });
    const list = () => call('GET', `/v1/minds/${mind.mind_id}/attachments`);

    const { answer } = await faultDuring(schemas.minds, 'mind_attachments', 'EXCLUSIVE', /mind_attachments/, attach);
    expectUnavailable(answer, 'MINDS_UNAVAILABLE');
    expect(answer.body.error.message).toMatch(/same operationId/);

    const listed = await afterRecovery('MINDS_UNAVAILABLE', list);
    expect(listed.status).toBe(200);
    expect(listed.body.attachments).toEqual([]);
    const retried = await attach();
    expect(retried.status).toBe(200);
    expect((await attach()).body).toEqual(retried.body);
    expect((await list()).body.attachments).toEqual([retried.body]);
  });

  it('backends terminated between requests: reads answer 200 or MINDS_UNAVAILABLE, never INTERNAL_ERROR, and recover', async () => {
    const mind = await readyMind(call, 'Sandbox idle fault');
    const admin = await session();
    try {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName(schemas.minds)]);
    } finally {
      await admin.end();
    }
    const reread = await afterRecovery('MINDS_UNAVAILABLE', () => call('GET', `/v1/minds/services/${mind.mind_id}`));
    expect(reread.status).toBe(200);
    expect(reread.body.mind_id).toBe(mind.mind_id);
  });

  it('the credential store lost during authentication: AUTH_UNAVAILABLE (503) on gateway and Minds routes, nothing forwarded; then the credential works', async () => {
    const context = (await call('GET', '/v1/minds/services')).body.context_sha256;
    const name = `Sandbox ${randomUUID()}`;
    const create = () => call('POST', '/v1/minds/services', { body: { name }, headers: { 'idempotency-key': newKey(), 'x-platform-minds-creation-context': context } });

    const lookup = /FROM credentials WHERE token_hash/i;
    const { answer: whoami } = await faultDuring(schemas.gateway, 'credentials', 'ACCESS EXCLUSIVE', lookup, () => call('GET', '/v1/whoami'));
    expectUnavailable(whoami, 'AUTH_UNAVAILABLE');
    expect((await afterRecovery('AUTH_UNAVAILABLE', () => call('GET', '/v1/whoami'))).status).toBe(200);

    const { answer: created } = await faultDuring(schemas.gateway, 'credentials', 'ACCESS EXCLUSIVE', lookup, create);
    expectUnavailable(created, 'AUTH_UNAVAILABLE');
    expect((await afterRecovery('AUTH_UNAVAILABLE', () => call('GET', '/v1/whoami'))).status).toBe(200);
    // Nothing was forwarded: no Mind of that name.
    const listed = await call('GET', '/v1/minds/services?limit=100');
    expect(listed.body.items.filter((m: { name: string }) => m.name === name)).toEqual([]);
  });

  it("the gateway's usage counts lost during GET /v1/usage: USAGE_UNAVAILABLE (503); counting goes on and the read then answers", async () => {
    const usage = () => call('GET', '/v1/usage?days=7');
    const { answer } = await faultDuring(schemas.gateway, 'request_counts', 'ACCESS EXCLUSIVE', /request_counts/, usage);
    expectUnavailable(answer, 'USAGE_UNAVAILABLE');
    expect(answer.body.error.message).toMatch(/Retry the read/);

    const before = await afterRecovery('USAGE_UNAVAILABLE', usage);
    expect(before.status).toBe(200);
    const minds = (body: { services: { service: string; requests: number }[] }) => body.services.find((s) => s.service === 'minds')?.requests ?? 0;
    expect((await call('GET', '/v1/minds/services')).status).toBe(200);
    // The recorder survived the lost writes: the request just made is counted.
    expect(minds((await usage()).body)).toBe(minds(before.body) + 1);
  });
});
