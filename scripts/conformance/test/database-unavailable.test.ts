/**
 * A database that is unavailable in any way PostgreSQL can be, through the gateway on the real
 * stack: the answer is the catalog's unavailability code with its outcome wording, never 500
 * `INTERNAL_ERROR`, and nothing changes.
 *
 * Interface, "Errors": `AUTH_UNAVAILABLE` "credential verification temporarily unavailable",
 * `MINDS_UNAVAILABLE` "Minds unavailable; outcome may be unknown", `USAGE_UNAVAILABLE` "usage reads
 * unavailable"; spec/DECISIONS.md, "A database lost during a request" (which names the classes).
 *
 * Each test runs the stack on a database of its own (throwawayDatabase: its own owner role too,
 * since superusers are exempt from connection limits), changes that database's state as an
 * administrator would, and drops it after; the shared database is never touched. The classes a
 * test can cause here: refusing connections (`ALLOW_CONNECTIONS false`, SQLSTATE 55000), read-only
 * (25006 on a write), too many connections (53300). A database lost during a request (57P01) is
 * outcome-unknown.test.ts; one shutting down (57P03), which only a stopping server sends, and a cut
 * TCP path are packages/db's availability.test.ts.
 *
 * PostgreSQL only (TEST_DATABASE_URL): PGlite runs inside the service's process.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { throwawayDatabase, type ThrowawayDatabase } from '@gateway-minds/db/testing';
import { startStack, type AdminRequestError, type Stack } from '@gateway-minds/testkit';
import { caller, newKey, readyMind, type Answer, type Call } from '../src/http.js';

const databaseUrl = process.env.TEST_DATABASE_URL;

type Code = 'AUTH_UNAVAILABLE' | 'MINDS_UNAVAILABLE' | 'USAGE_UNAVAILABLE';

/** The unavailability code, its catalog type and a message that says what to do (the outcome wording). */
function expectUnavailable(answer: Answer, code: Code): void {
  expect({ status: answer.status, code: answer.body?.error?.code, type: answer.body?.error?.type }, JSON.stringify(answer.body)).toEqual({ status: 503, code, type: 'service_unavailable' });
  if (code === 'MINDS_UNAVAILABLE') {
    expect(answer.body.error.reason).toBe('database_unavailable');
    expect(answer.body.error.message).toMatch(/outcome is unknown|Retry the read/);
  }
  if (code === 'AUTH_UNAVAILABLE') expect(answer.body.error.message).toMatch(/nothing was done/);
}

/**
 * A read that is expected to answer 200 while the database serves reads: it may first meet a
 * pooled connection the fault cut (the service's unavailability code, never a 500), so it is tried
 * a few times.
 */
async function expectServed(read: () => Promise<Answer>): Promise<Answer> {
  let answer: Answer | undefined;
  for (let attempt = 0; attempt < 10; attempt++) {
    answer = await read();
    if (answer.status === 200) return answer;
    expect(answer.status, JSON.stringify(answer.body)).toBe(503);
  }
  throw new Error(`never 200: ${JSON.stringify(answer?.body)}`);
}

describe.runIf(databaseUrl)('a database unavailable in each way PostgreSQL can be (a database of its own)', () => {
  let place: ThrowawayDatabase;
  let stack: Stack;
  let call: Call;
  let fresh: string;
  let mindId: string;
  let context: string;
  let restore = '';

  beforeEach(async () => {
    place = await throwawayDatabase(databaseUrl!, 'gm_conf_unavailable');
    // A long credential cache: the session, once looked up, reaches the Minds service while the
    // gateway cannot read its store, so both services' answers are seen; `fresh` was never
    // looked up, so its lookup meets the database.
    stack = await startStack({ databaseUrl: place.url, gatewayEnv: { CREDENTIAL_CACHE_MS: '600000' } });
    call = caller(stack.url, (await stack.issue('bridge_session')).token);
    fresh = (await stack.issue('bridge_session')).token;
    mindId = (await readyMind(call, 'Sandbox before the fault')).mind_id;
    context = (await call('GET', '/v1/minds/services')).body.context_sha256;
  });
  afterEach(async () => {
    // The database is made usable again before the services close (the gateway writes its last usage counts).
    if (restore) await place.admin(restore);
    restore = '';
    await stack?.close();
    await place?.drop();
  });

  /** Makes the database `state` (an ALTER DATABASE clause) and cuts its sessions, so that every connection is a new one. */
  async function breakDatabase(state: string, undo: string): Promise<void> {
    restore = `ALTER DATABASE "${place.name}" ${undo}`;
    await place.admin(`ALTER DATABASE "${place.name}" ${state}`);
    await place.terminateSessions();
  }

  const requests = () => {
    const names = { mind: `Sandbox ${randomUUID()}`, group: `group ${randomUUID()}`, word: `zephyr${randomUUID().slice(0, 8)}` };
    return {
      names,
      whoamiFresh: () => call('GET', '/v1/whoami', { token: fresh }),
      verify: () => call('POST', '/v1/iam/credentials/verify', { token: null, body: { credential: fresh } }),
      createMind: () => call('POST', '/v1/minds/services', { body: { name: names.mind }, headers: { 'idempotency-key': newKey(), 'x-platform-minds-creation-context': context } }),
      insertMemory: () => call('POST', `/v1/minds/memory/episodic?mind=${mindId}`, { body: { event: { id: randomUUID(), content: `Remember ${names.word}`, timestamp: '2026-11-21T12:00:00Z' } } }),
      createAgentGroup: () => call('POST', '/v1/minds/agent-groups', { body: { operationId: randomUUID(), name: names.group } }),
      getMind: () => call('GET', `/v1/minds/services/${mindId}`),
      gatewayUsage: () => call('GET', '/v1/usage?days=7'),
      mindsUsage: () => call('GET', `/v1/minds/usage?from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date().toISOString()}`),
    };
  };

  /** After the database is back: nothing the refused requests sent was stored. */
  async function expectNothingChanged(names: { mind: string; group: string; word: string }): Promise<void> {
    const minds = await expectServed(() => call('GET', '/v1/minds/services?limit=100'));
    expect(minds.body.items.filter((m: { name: string }) => m.name === names.mind)).toEqual([]);
    const groups = await expectServed(() => call('GET', '/v1/minds/agent-groups'));
    expect(groups.body.groups.filter((g: { name: string }) => g.name === names.group)).toEqual([]);
    const found = await expectServed(() => call('POST', `/v1/minds/search?mind=${mindId}`, { body: { text: names.word } }));
    expect(found.body.items).toEqual([]);
  }

  it('refusing connections (ALLOW_CONNECTIONS false, 55000): AUTH_UNAVAILABLE, MINDS_UNAVAILABLE and USAGE_UNAVAILABLE, each with its wording; nothing changed', async () => {
    const r = requests();
    await breakDatabase('ALLOW_CONNECTIONS false', 'ALLOW_CONNECTIONS true');
    expectUnavailable(await r.whoamiFresh(), 'AUTH_UNAVAILABLE');
    expectUnavailable(await r.verify(), 'AUTH_UNAVAILABLE');
    expectUnavailable(await r.createMind(), 'MINDS_UNAVAILABLE');
    expectUnavailable(await r.insertMemory(), 'MINDS_UNAVAILABLE');
    expectUnavailable(await r.createAgentGroup(), 'MINDS_UNAVAILABLE');
    expectUnavailable(await r.getMind(), 'MINDS_UNAVAILABLE');
    expectUnavailable(await r.gatewayUsage(), 'USAGE_UNAVAILABLE');
    expectUnavailable(await r.mindsUsage(), 'MINDS_UNAVAILABLE');
    // DECISIONS, "Identity and administration": the admin API answers 503 while the database does not answer.
    const refused = await stack.issue('bridge_session').then(() => undefined, (error: unknown) => error as AdminRequestError);
    expect({ status: refused?.status, retryAfter: refused?.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '1' });

    await place.admin(restore);
    restore = '';
    expect((await expectServed(r.whoamiFresh)).body.object).toBe('principal');
    await expectNothingChanged(r.names);
  });

  it('too many connections (CONNECTION LIMIT 0, 53300): the same codes; nothing changed', async () => {
    const r = requests();
    await breakDatabase('CONNECTION LIMIT 0', 'CONNECTION LIMIT -1');
    expectUnavailable(await r.whoamiFresh(), 'AUTH_UNAVAILABLE');
    expectUnavailable(await r.verify(), 'AUTH_UNAVAILABLE');
    expectUnavailable(await r.createMind(), 'MINDS_UNAVAILABLE');
    expectUnavailable(await r.insertMemory(), 'MINDS_UNAVAILABLE');
    expectUnavailable(await r.createAgentGroup(), 'MINDS_UNAVAILABLE');
    expectUnavailable(await r.gatewayUsage(), 'USAGE_UNAVAILABLE');
    expectUnavailable(await r.mindsUsage(), 'MINDS_UNAVAILABLE');

    await place.admin(restore);
    restore = '';
    await expectNothingChanged(r.names);
  });

  it('read-only (default_transaction_read_only, 25006): every write is MINDS_UNAVAILABLE and changes nothing; reads are served', async () => {
    const r = requests();
    await breakDatabase('SET default_transaction_read_only = on', 'RESET default_transaction_read_only');
    // Reads: the credential store, a Mind, the Minds usage.
    expect((await expectServed(r.whoamiFresh)).body.object).toBe('principal');
    expect((await expectServed(r.verify)).body.active).toBe(true);
    expect((await expectServed(r.getMind)).body.mind_id).toBe(mindId);
    expect((await expectServed(r.mindsUsage)).body.schema_version).toBe('minds.controller.v1');
    // Writes.
    expectUnavailable(await r.createMind(), 'MINDS_UNAVAILABLE');
    expectUnavailable(await r.insertMemory(), 'MINDS_UNAVAILABLE');
    expectUnavailable(await r.createAgentGroup(), 'MINDS_UNAVAILABLE');
    // The gateway usage read writes the counts it holds first (DECISIONS.md "Usage counting"): unavailable.
    expectUnavailable(await r.gatewayUsage(), 'USAGE_UNAVAILABLE');
    const created = await r.createMind();
    expect(created.body.error.message).toMatch(/same Idempotency-Key/);

    await place.admin(restore);
    restore = '';
    await expectNothingChanged(r.names);
  });
});
