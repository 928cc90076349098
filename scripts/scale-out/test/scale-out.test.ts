/**
 * Two gateways and two Minds processes on one PostgreSQL database (src/deployment.ts), started once
 * for every test here: what the interface and spec/DECISIONS.md promise a caller must hold whichever
 * replica answers, while replicas are killed and while their database connections are cut.
 *
 * Each test uses sessions of its own (src/http.ts Session): the deployment's per-credential rate
 * limit is small so that one test can reach it, and the others stay under it.
 *
 * PostgreSQL only (TEST_DATABASE_URL): replicas share nothing but the database.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDpopProof, dpopThumbprint, generateDpopKey } from '@gateway-minds/client';
import { operationPath, type ErrorCode, type ErrorReason } from '@gateway-minds/contract';
import { adminCommand, startDeployment, type Deployment } from '../src/deployment.js';
import { call, createMind, creationContext, newKey, readyMind, Session, waitForStatus, type Answer } from '../src/http.js';

const databaseUrl = process.env.TEST_DATABASE_URL;

/** RATE_LIMIT_POINTS of every gateway: small, so that the rate-limit test reaches it in a few requests. */
const RATE_LIMIT_POINTS = 100;
/** Calls a test's session makes with one credential: under RATE_LIMIT_POINTS. */
const SESSION_BUDGET = 80;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `condition` every 50 ms until it holds; fails naming `what` after `ms`. */
async function until(what: string, condition: () => boolean, ms = 30_000): Promise<void> {
  for (let waited = 0; !condition(); waited += 50) {
    if (waited >= ms) throw new Error(`not within ${ms / 1000} s: ${what}`);
    await sleep(50);
  }
}

interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The admin command (what `npm run admin` runs), with only the environment given. */
function runAdmin(args: string[], env: Record<string, string>): Promise<AdminRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [adminCommand, ...args], { env: { PATH: process.env.PATH ?? '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe.runIf(databaseUrl)('two gateways and two Minds processes on one PostgreSQL database', () => {
  let deployment: Deployment;
  /** The gateways' public URLs: A, B. */
  let gateways: string[];
  const sessionOf = (issueOptions?: Record<string, unknown>) => new Session(deployment.admin, SESSION_BUDGET, issueOptions);
  const session = () => sessionOf();
  /** Every process of the deployment still runs; one that exited is named with the last of its output. */
  const expectAllRunning = () => expect(deployment.gateways.concat(deployment.minds).filter((p) => !p.running).map((p) => `${p.name}: ${p.output()}`)).toEqual([]);
  const count = async (query: string, values?: unknown[]) => Number((await deployment.sql<{ count: string }>(query, values))[0]!.count);

  beforeAll(async () => {
    deployment = await startDeployment(databaseUrl!, {
      gatewayEnv: {
        RATE_LIMIT_POINTS: String(RATE_LIMIT_POINTS),
        // A busy machine stalls a process for seconds at times; a request that hangs (on a cut connection) still fails a test.
        MINDS_TIMEOUT_MS: '30000',
      },
    });
    gateways = deployment.gateways.map((g) => g.url);
  }, 120_000);
  afterAll(async () => {
    await deployment?.close();
  });

  it('the admin command against gateway A and against gateway B with the one deployment token: what one creates, the other sees (DECISIONS "Administration of several gateways": one admin token per deployment, --url names the gateway)', async () => {
    const [adminA, adminB] = deployment.gatewayAdminUrls as [string, string];
    const token = { ADMIN_TOKEN: deployment.adminToken };
    // Gateway A found from its data directory (the admin-url it wrote), gateway B named.
    const atA = { ...token, DATA_DIR: deployment.gateways[0]!.env.DATA_DIR! };
    const org = await runAdmin(['org', 'create', '--name', 'Scale-out'], atA);
    expect(org.code, org.stderr).toBe(0);
    const { organization_id: organizationId, project_id: projectId } = JSON.parse(org.stdout) as { organization_id: string; project_id: string };

    const [agent, issuedAtB] = await Promise.all([
      runAdmin(['agent', 'create', '--org', organizationId, '--url', adminB], token),
      runAdmin(['issue', '--kind', 'bridge_session', '--org', organizationId, '--project', projectId], { ...token, ADMIN_URL: adminB }),
    ]);
    expect(agent.code, agent.stderr).toBe(0);
    expect(issuedAtB.code, issuedAtB.stderr).toBe(0);
    const agentId = (JSON.parse(agent.stdout) as { id: string }).id;
    const credential = JSON.parse(issuedAtB.stdout) as { id: string; token: string };

    // Issued through B, used through A; the agent B made is found by Minds A through gateway A's lookup.
    const principal = await call(gateways[0]!, credential.token, 'GET', '/v1/whoami');
    expect({ status: principal.status, org: principal.body.org }).toEqual({ status: 200, org: organizationId });
    const group = await call(gateways[0]!, credential.token, 'POST', '/v1/minds/agent-groups', { body: { operationId: randomUUID(), name: 'across gateways' } });
    expect(group.status, JSON.stringify(group.body)).toBe(200);
    const member = await call(gateways[0]!, credential.token, 'POST', `/v1/minds/agent-groups/${group.body.id}/members`, {
      body: { operationId: randomUUID(), expectedVersion: 0, agentId },
    });
    expect(member.status, JSON.stringify(member.body)).toBe(200);

    // Revoked through A: gateway B, which never looked the credential up, refuses it. Any other token is refused by both.
    const otherToken = { ADMIN_TOKEN: `adm_${'x'.repeat(32)}` };
    const [revoked, ...refused] = await Promise.all([
      runAdmin(['revoke', credential.id, '--url', adminA], token),
      runAdmin(['org', 'create', '--url', adminA], otherToken),
      runAdmin(['org', 'create', '--url', adminB], otherToken),
    ]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await call(gateways[1]!, credential.token, 'GET', '/v1/whoami')).status).toBe(401);
    for (const run of refused) expect({ code: run.code, says401: run.stderr.includes('401') }, run.stderr).toEqual({ code: 1, says401: true });
  });

  it('20 concurrent creates with one Idempotency-Key, half through each gateway: one Mind, identical answers (interface "Minds lifecycle": createMind\'s Idempotency-Key; DECISIONS "Replays": "A concurrent duplicate waits for the first and replays its stored answer byte for byte")', async () => {
    const s = session();
    const context = await creationContext(s, gateways[0]!);
    const key = newKey();
    const name = `Sandbox idempotent ${key}`;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => createMind(s, gateways[i % 2]!, name, key, context)));
    expect(new Set(answers.map((a) => a.status)), JSON.stringify(answers.find((a) => a.status !== 202)?.body)).toEqual(new Set([202]));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(await count(`SELECT count(*) FROM "${deployment.schemas.minds}".minds WHERE name = $1`, [name])).toBe(1);
    const listed = await s.call(gateways[1]!, 'GET', '/v1/minds/services?limit=100');
    expect(listed.body.items.filter((m: { name: string }) => m.name === name).map((m: { mind_id: string }) => m.mind_id)).toEqual([answers[0]!.body.mind_id]);
  });

  it('stop, then resume, racing with one expected_generation through both gateways: exactly one accepted each time (interface "States and transitions": stop and resume "accepted with matching expected_generation"; rules 1 and 3)', async () => {
    const s = session();
    const mind = await readyMind(s, gateways[0]!, 'Sandbox generation race');
    const generation = mind.desired_generation as number;
    const mismatch = { status: 409, code: 'MIND_NOT_READY' satisfies ErrorCode, reason: 'generation_mismatch' satisfies ErrorReason<'MIND_NOT_READY'> };
    const race = (action: 'stop' | 'resume', body: Record<string, unknown>) =>
      Promise.all(Array.from({ length: 10 }, (_, i) => s.call(gateways[i % 2]!, 'POST', `/v1/minds/services/${mind.mind_id}/${action}`, { body, headers: { 'idempotency-key': newKey() } })));
    const expectOneWinner = (answers: Answer[]) => {
      expect(answers.filter((a) => a.status === 202), JSON.stringify(answers.map((a) => a.body))).toHaveLength(1);
      for (const refused of answers.filter((a) => a.status !== 202)) expect({ status: refused.status, code: refused.body.error.code, reason: refused.body.error.reason }).toEqual(mismatch);
    };

    expectOneWinner(await race('stop', { expected_generation: generation }));
    const stopped = await waitForStatus(s, gateways[1]!, mind.mind_id, 'stopped');
    expect(stopped.desired_generation).toBe(generation + 1);
    expectOneWinner(await race('resume', { expected_generation: generation + 1, wake_reason: 'manual' }));
    const resumed = await waitForStatus(s, gateways[0]!, mind.mind_id, 'ready');
    expect(resumed.desired_generation).toBe(generation + 2);
  });

  it('the per-credential rate limit is one across the gateways (DECISIONS "Rate limits": RATE_LIMIT_STORE=postgres, "then shared by every replica")', async () => {
    const { token } = await deployment.admin.issue('bridge_session');
    const whoami = (i: number) => call(gateways[i % 2]!, token, 'GET', '/v1/whoami');
    const allowed: Answer[] = [];
    for (let sent = 0; sent < RATE_LIMIT_POINTS; sent += 10) allowed.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => whoami(sent + i)))));
    expect(allowed.filter((a) => a.status !== 200).map((a) => a.body)).toEqual([]);
    // Half of them went through each gateway: each refuses the next.
    for (const refused of await Promise.all([whoami(0), whoami(1)])) {
      expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 429, code: 'RATE_LIMITED' satisfies ErrorCode });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('a DPoP proof sent to both gateways at once is accepted once, whichever takes it first (DECISIONS "Gateways sharing one store": "a proof accepted by one gateway is refused by every other (`INVALID_DPOP`), even when sent to several at once")', async () => {
    const agent = await deployment.admin.createAgent();
    const key = await generateDpopKey('ES256');
    const { token } = await deployment.admin.issue('agent_token', { agent_id: agent.id, dpop_jkt: await dpopThumbprint(key) });
    // An agent operation (an agent token is refused elsewhere); its proof names GET (x-dpop-htm) and
    // the deployment's one public address, whichever gateway takes it.
    const path = operationPath('minds_agentSearchMemory');
    const proofFor = () => createDpopProof({ key, htm: 'GET', url: `${gateways[0]}${path}`, accessToken: token });
    const send = (gateway: string, proof: string) => call(gateway, token, 'POST', `${path}?mind=${randomUUID()}`, { headers: { dpop: proof }, body: { text: 'replayed' } });
    // Past the gateway, the Minds service answers (agent memory is not admitted here: NOT_FOUND).
    const verdict = (a: Answer) => (a.body?.error?.code === 'INVALID_DPOP' ? 'INVALID_DPOP' : a.status === 401 ? `401 ${a.body?.error?.code}` : 'accepted');
    for (const gateway of gateways) {
      const fresh = await send(gateway, await proofFor());
      expect(verdict(fresh), JSON.stringify(fresh.body)).toBe('accepted');
    }
    for (let trial = 0; trial < 3; trial++) {
      const proof = await proofFor();
      const answers = await Promise.all([0, 1, 0, 1, 0, 1].map((g) => send(gateways[g]!, proof)));
      expect(answers.map(verdict).sort()).toEqual(['INVALID_DPOP', 'INVALID_DPOP', 'INVALID_DPOP', 'INVALID_DPOP', 'INVALID_DPOP', 'accepted']);
    }
  });

  it('database connections cut under load (pg_terminate_backend on both services\' connections): only the documented unavailability codes, never 500, then served again (DECISIONS "A database lost during a request")', async () => {
    const s = session();
    const mind = await readyMind(s, gateways[1]!, 'Sandbox connections cut');
    const from = new Date(Date.now() - 3_600_000).toISOString();
    type Op = (gateway: string) => Promise<Answer>;
    const ops: Op[] = [
      (g) => s.call(g, 'GET', `/v1/minds/services/${mind.mind_id}`),
      (g) => s.call(g, 'POST', `/v1/minds/memory/episodic?mind=${mind.mind_id}`, { body: { event: { id: randomUUID(), content: 'cut', timestamp: new Date().toISOString() } } }),
      (g) => s.call(g, 'GET', '/v1/minds/services'),
      (g) => s.call(g, 'GET', '/v1/usage?days=7'),
      (g) => s.call(g, 'GET', `/v1/minds/usage?${new URLSearchParams({ from, to: new Date().toISOString() })}`),
    ];
    // The gateways' rate-limit and DPoP store (RATE_LIMIT_STORE=postgres) is among the connections cut:
    // RATE_LIMIT_UNAVAILABLE (DECISIONS "A shared store that does not answer").
    const unavailable = new Set<string>(['AUTH_UNAVAILABLE', 'MINDS_UNAVAILABLE', 'USAGE_UNAVAILABLE', 'RATE_LIMIT_UNAVAILABLE'] satisfies ErrorCode[]);
    const isDocumented = (a: Answer) => (a.status >= 200 && a.status < 300) || (a.status === 503 && unavailable.has(a.body?.error?.code));
    // Served before the cut, through both gateways (and each replica's first answers, slow on a busy machine, are behind us).
    for (const gateway of gateways) for (const op of ops) expect((await op(gateway)).status).toBeLessThan(300);
    const answers: Answer[] = [];
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) answers.push(await ops[(w + i) % ops.length]!(gateways[w % 2]!));
    };
    const workers = Array.from({ length: 4 }, (_, w) => worker(w));
    const terminated = { gateway: 0, minds: 0 };
    try {
      // Several cuts, each after the load has opened new connections: a connection cut as it starts is one of the ways.
      for (let round = 0; round < 6; round++) {
        const before = answers.length;
        await until('the load runs', () => answers.length >= before + 10);
        const rows = await deployment.sql<{ application_name: string; terminated: boolean }>(
          'SELECT application_name, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = ANY($1)',
          [Object.values(deployment.applicationNames)],
        );
        for (const row of rows.filter((r) => r.terminated)) terminated[row.application_name === deployment.applicationNames.gateway ? 'gateway' : 'minds']++;
      }
      const after = answers.length;
      await until('the load runs after the last cut', () => answers.length >= after + 15);
    } finally {
      stop = true;
      await Promise.all(workers);
    }
    expect(terminated.gateway, 'gateway connections cut').toBeGreaterThan(0);
    expect(terminated.minds, 'Minds connections cut').toBeGreaterThan(0);
    expectAllRunning();
    expect(answers.filter((a) => !isDocumented(a)).map((a) => ({ status: a.status, body: a.body }))).toEqual([]);

    // Served again: through either gateway, each call answers 2xx, after at most a few 503s from connections the cut left in a pool.
    for (const gateway of gateways) {
      for (const op of ops) {
        let answer = await op(gateway);
        for (let attempt = 0; attempt < 5 && answer.status === 503; attempt++) answer = await op(gateway);
        expect({ documented: isDocumented(answer), status: answer.status }, JSON.stringify(answer.body)).toEqual({ documented: true, status: answer.status < 300 ? answer.status : 200 });
      }
    }
  });

  it('a Minds process, then a gateway, killed (SIGKILL) under writes through both gateways: every acknowledged write is there and readable, none half-applied, nothing refused stored, and the restarted processes rejoin (DECISIONS "Relay failures", "A database lost during a request"; interface "Errors": outcome may be unknown)', async () => {
    /**
     * acknowledged: 2xx. refused: AUTH_UNAVAILABLE, "nothing was done". unknown: a relay failure
     * (the request may have reached the service before the cut), MINDS_UNAVAILABLE, or no answer at all.
     */
    type Outcome = 'acknowledged' | 'refused' | 'unknown';
    interface Write {
      kind: 'insert' | 'create';
      gateway: number;
      /** The event id of an insert, the Idempotency-Key of a create. */
      id: string;
      mindId: string | undefined;
      outcome: Outcome;
      storageId?: string;
    }
    const outcomes: Record<string, Outcome> = {
      UPSTREAM_UNREACHABLE: 'unknown',
      UPSTREAM_TIMEOUT: 'unknown',
      MINDS_UNAVAILABLE: 'unknown',
      AUTH_UNAVAILABLE: 'refused',
      // The gateways' rate-limit store (PostgreSQL here) past its deadline on a machine busy with
      // restarts: refused before forwarding (DECISIONS "A shared store that does not answer").
      RATE_LIMIT_UNAVAILABLE: 'refused',
    } satisfies Partial<Record<ErrorCode, Outcome>>;
    const writes: Write[] = [];
    const unexpected: unknown[] = [];
    // An organization of its own: a Sandbox admits 100 Minds, and the writers create some.
    const place = await deployment.admin.admin<{ organization_id: string; project_id: string }>('/admin/organizations', { name: 'Faults' });
    const session = () => sessionOf(place);
    const setup = session();
    const context = await creationContext(setup, gateways[0]!);
    // Two writers per gateway, each inserting into a Mind of its own and now and then creating one.
    const writers = await Promise.all(
      [0, 0, 1, 1].map(async (gateway, w) => ({ gateway, session: session(), creates: 0, mindId: (await readyMind(setup, gateways[gateway]!, `Sandbox writer ${w}`)).mind_id as string })),
    );
    const prefix = `Sandbox fault ${randomUUID().slice(0, 8)}`;
    let stop = false;
    const write = async (writer: (typeof writers)[number], n: number) => {
      // Creates spread through the run, at most 15 a writer: with the writers' own Minds, under the 100 a Sandbox admits.
      const create = n % 5 === 4 && writer.creates++ < 15;
      const id = newKey();
      const base = gateways[writer.gateway]!;
      let answer: Answer | null = null;
      try {
        answer = create
          ? await createMind(writer.session, base, `${prefix} ${id}`, id, context)
          : await writer.session.call(base, 'POST', `/v1/minds/memory/episodic?mind=${writer.mindId}`, { body: { event: { id, content: `Remember ${id}`, timestamp: new Date().toISOString() } } });
      } catch {
        // The gateway is gone: no answer.
      }
      const acknowledged = answer !== null && answer.status >= 200 && answer.status < 300;
      const outcome: Outcome | undefined = answer === null ? 'unknown' : acknowledged ? 'acknowledged' : outcomes[answer.body?.error?.code];
      if (!outcome || (answer && !acknowledged && answer.status < 500)) unexpected.push({ status: answer?.status, body: answer?.body });
      writes.push({ kind: create ? 'create' : 'insert', gateway: writer.gateway, id, mindId: create ? answer?.body?.mind_id : writer.mindId, outcome: outcome ?? 'unknown', storageId: create ? undefined : answer?.body?.id });
      // A steady load, not a flood: the restarting processes share the machine.
      await sleep(acknowledged ? 20 : 100);
    };
    const load = writers.map(async (writer) => {
      for (let n = 0; !stop; n++) await write(writer, n);
    });
    const through = (gateway: number, acknowledged: boolean) => writes.filter((w) => w.gateway === gateway && (w.outcome === 'acknowledged') === acknowledged).length;
    const progress = async (gateway: number, acknowledged: boolean, more: number, what: string) => {
      const from = through(gateway, acknowledged);
      await until(what, () => through(gateway, acknowledged) >= from + more);
    };

    const [mindsA] = deployment.minds as [(typeof deployment.minds)[number]];
    const gatewayB = deployment.gateways[1]!;
    try {
      await Promise.all([progress(0, true, 10, 'writes through gateway A'), progress(1, true, 10, 'writes through gateway B')]);

      await mindsA.stop('SIGKILL');
      await Promise.all([
        // With every Minds process behind every gateway, gateway A goes on through Minds B
        // (DECISIONS "Several replicas of a service").
        progress(0, true, 10, 'writes through gateway A while Minds A is down'),
        progress(1, true, 10, 'writes through gateway B while Minds A is down'),
      ]);
      await mindsA.start();
      await progress(0, true, 10, 'writes through gateway A after Minds A restarted');

      await gatewayB.stop('SIGKILL');
      await Promise.all([progress(1, false, 1, 'gateway B is gone'), progress(0, true, 10, 'writes through gateway A while gateway B is down')]);
      await gatewayB.start();
      await progress(1, true, 10, 'writes through gateway B after it restarted');
    } finally {
      stop = true;
      await Promise.all(load);
    }
    expectAllRunning();
    expect(unexpected).toEqual([]);

    const schema = deployment.schemas.minds;
    const inserts = writes.filter((w) => w.kind === 'insert');
    const creates = writes.filter((w) => w.kind === 'create');
    const mayBeStored = (w: Write) => w.outcome !== 'refused';

    // Memory: every acknowledged insert stored as acknowledged; nothing stored that was refused or never sent, nothing twice.
    const stored = await deployment.sql<{ storage_id: string; event_id: string; content: string }>(
      `SELECT storage_id, event_id, content FROM "${schema}".memory_events WHERE mind_id = ANY($1)`,
      [writers.map((w) => w.mindId)],
    );
    const byStorageId = new Map(stored.map((row) => [row.storage_id, row]));
    expect(inserts.filter((w) => w.outcome === 'acknowledged' && byStorageId.get(w.storageId!)?.event_id !== w.id)).toEqual([]);
    const storable = new Set(inserts.filter(mayBeStored).map((w) => w.id));
    expect(stored.filter((row) => !storable.has(row.event_id) || row.content !== `Remember ${row.event_id}`)).toEqual([]);
    expect(new Set(stored.map((row) => row.event_id)).size).toBe(stored.length);

    // Minds: every acknowledged create exists under its Idempotency-Key with the key's completed record;
    // no Mind of this test without one, none that was refused; no record left half-written.
    const minds = await deployment.sql<{ mind_id: string; operation_id: string; response_status: number | null }>(
      `SELECT m.mind_id, m.operation_id, r.response_status FROM "${schema}".minds m
         LEFT JOIN "${schema}".idempotency_records r ON r.idempotency_key = m.operation_id AND r.organization_id = m.organization_id AND r.project_id = m.project_id
        WHERE m.name LIKE $1`,
      [`${prefix} %`],
    );
    const mindsByKey = new Map(minds.map((m) => [m.operation_id, m]));
    expect(creates.filter((w) => w.outcome === 'acknowledged' && mindsByKey.get(w.id)?.mind_id !== w.mindId)).toEqual([]);
    const creatable = new Set(creates.filter(mayBeStored).map((w) => w.id));
    expect(minds.filter((m) => !creatable.has(m.operation_id) || m.response_status !== 202)).toEqual([]);
    expect(await count(`SELECT count(*) FROM "${schema}".idempotency_records WHERE response_status IS NULL`)).toBe(0);

    // Readable through the other gateway than the one that acknowledged it: each acknowledged Mind, and the last inserts of each writer.
    const reader = session();
    const other = (w: Write) => gateways[1 - w.gateway]!;
    const lastInserts = writers.flatMap((writer) => inserts.filter((w) => w.mindId === writer.mindId && w.outcome === 'acknowledged').slice(-5));
    const reads = await Promise.all([
      ...creates.filter((w) => w.outcome === 'acknowledged').map(async (w) => ({ w, read: await reader.call(other(w), 'GET', `/v1/minds/services/${w.mindId}`), expected: w.mindId, got: (r: Answer) => r.body?.mind_id })),
      ...lastInserts.map(async (w) => ({ w, read: await reader.call(other(w), 'GET', `/v1/minds/memory/episodic/${w.storageId}?mind=${w.mindId}`), expected: w.id, got: (r: Answer) => r.body?.item?.id })),
    ]);
    expect(reads.filter(({ read, expected, got }) => read.status !== 200 || got(read) !== expected).map(({ w, read }) => ({ w, status: read.status, body: read.body }))).toEqual([]);
    expect(reads.length).toBeGreaterThan(20);
  }, 180_000);
});
