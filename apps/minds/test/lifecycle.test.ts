/**
 * Mind lifecycle over real HTTP: create, list, read, resume, stop; the
 * controller driving provisioning -> ready and stop -> stopped; Idempotency-Key
 * replays; the generation check; tenancy.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextSha256 } from '../src/index.js';
import { cleanUp, contextOf, createMind, human, readyMind, startHarness, waitForMind, type Harness } from './support/harness.js';

let h: Harness;
const owner = human({ org: 'org_life', project: 'prj_life' });
const sameProjectColleague = human({ org: 'org_life', project: 'prj_life' });
const otherProject = human({ org: 'org_life', project: 'prj_other' });
const otherOrg = human({ org: 'org_else', project: 'prj_life' });

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
  await cleanUp();
});

describe('create', () => {
  it('answers 202 provisioning with the server-owned capacity, and the controller brings it to ready', async () => {
    const created = await createMind(h, owner, { name: 'Sandbox lifecycle' });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({
      schema_version: 'minds.controller.v1',
      organization_id: 'org_life',
      project_id: 'prj_life',
      name: 'Sandbox lifecycle',
      plan: 'free',
      capacity: { profile_id: 'F1', cpus: 1, memory_mb: 1024, volume_size_gb: 10 },
      observed_capacity: null,
      desired_state: 'running',
      observed_state: 'pending',
      desired_generation: 1,
      observed_generation: 0,
      status: 'provisioning',
      capacity_applied: false,
      error_code: null,
    });
    const ready = await waitForMind(h, owner, created.body.mind_id, 'ready');
    expect(ready).toMatchObject({
      observed_state: 'running',
      observed_generation: 1,
      observed_capacity: { profile_id: 'F1', cpus: 1, memory_mb: 1024, volume_size_gb: 10 },
      capacity_applied: true,
    });
    expect(ready.volume_id).toBe(created.body.volume_id);
    expect(Date.parse(ready.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));
  });

  it.each([
    [{ name: 'Sandbox pro', plan: 'pro' }, 'D1', 2, 4096, 20],
    [{ name: 'Sandbox pro d2', plan: 'pro', profile_id: 'D2' }, 'D2', 4, 8192, 40],
    [{ name: 'Sandbox pro f1', plan: 'pro', profile_id: 'F1' }, 'F1', 1, 1024, 10],
    [{ name: 'Sandbox', plan: 'free', profile_id: 'F1' }, 'F1', 1, 1024, 10],
  ])('plan rules: %j runs on %s', async (body, profile, cpus, memory, volume) => {
    const created = await createMind(h, owner, body);
    expect(created.status).toBe(202);
    expect(created.body.capacity).toEqual({ profile_id: profile, cpus, memory_mb: memory, volume_size_gb: volume });
  });

  it.each([
    [{ name: 'Sandbox x', profile_id: 'D1' }],
    [{ name: 'Sandbox x', plan: 'free', profile_id: 'D2' }],
  ])('a profile the plan does not allow is INVALID_ARGUMENT at body.profile_id (the schema\'s plan/profile rule): %j', async (body) => {
    const refused = await createMind(h, owner, body);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('INVALID_ARGUMENT');
    expect(refused.body.error.errors.map((e: { location: string }) => e.location)).toContain('body.profile_id');
  });

  it.each([
    ['P1 is not in the enum', { name: 'Sandbox x', plan: 'pro', profile_id: 'P1' }],
    ['capacity is server-owned', { name: 'Sandbox x', capacity: { cpus: 64 } }],
    ['tenant is server-owned', { name: 'Sandbox x', organization_id: 'org_else' }],
    ['the name pattern', { name: 'Production' }],
    ['a name over 80 characters', { name: `Sandbox ${'x'.repeat(80)}` }],
  ])('the body shape is enforced (%s): INVALID_ARGUMENT', async (_why, body) => {
    const refused = await createMind(h, owner, body);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('INVALID_ARGUMENT');
  });

  it('the creation context must be the verified selection: ORIGINAL_CONTEXT_MISMATCH', async () => {
    const elsewhere = { ...owner, sandbox: 'sbx_other' };
    const wrong = contextSha256({ org: elsewhere.org, project: elsewhere.project!, workspace: elsewhere.workspace, sandbox: elsewhere.sandbox });
    const refused = await h.call('POST', '/v1/minds/services', {
      as: owner,
      body: { name: 'Sandbox x' },
      headers: { 'idempotency-key': randomUUID(), 'x-platform-minds-creation-context': wrong },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('ORIGINAL_CONTEXT_MISMATCH');
  });

  it('context_sha256 is the sha256 of the canonical selection', async () => {
    expect(await contextOf(h, owner)).toBe(contextSha256({ org: owner.org, project: owner.project!, workspace: owner.workspace, sandbox: owner.sandbox! }));
    expect(await contextOf(h, owner)).not.toBe(await contextOf(h, { ...owner, workspace: 'wsp_other' }));
  });

  it('missing headers: IDEMPOTENCY_KEY_REQUIRED and CREATION_CONTEXT_OR_KEY_REQUIRED', async () => {
    const context = await contextOf(h, owner);
    const noKey = await h.call('POST', '/v1/minds/services', { as: owner, body: { name: 'Sandbox' }, headers: { 'x-platform-minds-creation-context': context } });
    expect(noKey.body.error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    const noContext = await h.call('POST', '/v1/minds/services', { as: owner, body: { name: 'Sandbox' }, headers: { 'idempotency-key': randomUUID() } });
    expect(noContext.body.error.code).toBe('CREATION_CONTEXT_OR_KEY_REQUIRED');
  });
});

describe('Idempotency-Key', () => {
  it('the same key and request replay the first response byte for byte; another request is idempotency_key_reused', async () => {
    const key = randomUUID();
    const first = await createMind(h, owner, { name: 'Sandbox replay' }, key);
    expect(first.status).toBe(202);
    await waitForMind(h, owner, first.body.mind_id, 'ready');
    const again = await createMind(h, owner, { name: 'Sandbox replay' }, key);
    expect(again.status).toBe(202);
    expect(again.text).toBe(first.text); // the original response, though the Mind is ready by now
    const reused = await createMind(h, owner, { name: 'Sandbox different' }, key);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toMatchObject({ code: 'INVALID_REQUEST', reason: 'idempotency_key_reused' });
  });

  it('keys are scoped to the caller: another principal with the same key creates its own Mind', async () => {
    const key = randomUUID();
    const mine = await createMind(h, owner, { name: 'Sandbox scoped' }, key);
    const theirs = await createMind(h, sameProjectColleague, { name: 'Sandbox scoped' }, key);
    expect(theirs.status).toBe(202);
    expect(theirs.body.mind_id).not.toBe(mine.body.mind_id);
  });

  it('20 parallel creates with one key make exactly one Mind, and all answer its response', async () => {
    const who = human({ org: 'org_race', project: 'prj_race' });
    const key = randomUUID();
    const context = await contextOf(h, who);
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        h.call('POST', '/v1/minds/services', { as: who, body: { name: 'Sandbox race' }, headers: { 'idempotency-key': key, 'x-platform-minds-creation-context': context } }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(202));
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    const list = await h.call('GET', '/v1/minds/services', { as: who });
    expect(list.body.items).toHaveLength(1);
  });

  it('a refused create records nothing: the key stays usable', async () => {
    const key = randomUUID();
    const refused = await createMind(h, owner, { name: 'Sandbox x', profile_id: 'D1' }, key);
    expect(refused.status).toBe(400);
    const accepted = await createMind(h, owner, { name: 'Sandbox x', plan: 'pro', profile_id: 'D1' }, key);
    expect(accepted.status).toBe(202);
  });
});

describe('resume and stop', () => {
  it('stop moves to stopped with the volume retained, resume back to ready; generations grow as in Kubernetes', async () => {
    const mind = await readyMind(h, owner, { name: 'Sandbox cycle' });
    const stopKey = randomUUID();
    const stop = await h.call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { as: owner, body: { expected_generation: 1 }, headers: { 'idempotency-key': stopKey } });
    expect(stop.status).toBe(202);
    expect(stop.body).toMatchObject({ desired_state: 'stopped', desired_generation: 2, observed_state: 'running', observed_generation: 1, status: 'ready' });
    const stopped = await waitForMind(h, owner, mind.mind_id, 'stopped');
    expect(stopped).toMatchObject({ observed_state: 'stopped', observed_generation: 2, volume_id: mind.volume_id });

    // Replay resolves before the generation check: the same key and body replay the first 202.
    const replay = await h.call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { as: owner, body: { expected_generation: 1 }, headers: { 'idempotency-key': stopKey } });
    expect(replay.status).toBe(202);
    expect(replay.text).toBe(stop.text);
    // A new key with the stale generation is a generation mismatch.
    const stale = await h.call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { as: owner, body: { expected_generation: 1 }, headers: { 'idempotency-key': randomUUID() } });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'MIND_NOT_READY', reason: 'generation_mismatch' });
    // The same key with another body is a reuse, not a replay.
    const reused = await h.call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { as: owner, body: { expected_generation: 2 }, headers: { 'idempotency-key': stopKey } });
    expect(reused.body.error).toMatchObject({ code: 'INVALID_REQUEST', reason: 'idempotency_key_reused' });

    const resume = await h.call('POST', `/v1/minds/services/${mind.mind_id}/resume`, {
      as: owner,
      body: { expected_generation: 2, wake_reason: 'manual' },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(resume.status).toBe(202);
    expect(resume.body).toMatchObject({ desired_state: 'running', desired_generation: 3, observed_state: 'pending', status: 'provisioning' });
    const ready = await waitForMind(h, owner, mind.mind_id, 'ready');
    expect(ready).toMatchObject({ observed_generation: 3, volume_id: mind.volume_id });
  });

  it('a wake_reason outside the enum and a wake_reason on stop are INVALID_ARGUMENT', async () => {
    const mind = await readyMind(h, owner);
    const badReason = await h.call('POST', `/v1/minds/services/${mind.mind_id}/resume`, {
      as: owner, body: { expected_generation: 1, wake_reason: 'boredom' }, headers: { 'idempotency-key': randomUUID() },
    });
    expect(badReason.body.error.code).toBe('INVALID_ARGUMENT');
    const stopWithReason = await h.call('POST', `/v1/minds/services/${mind.mind_id}/stop`, {
      as: owner, body: { expected_generation: 1, wake_reason: 'manual' }, headers: { 'idempotency-key': randomUUID() },
    });
    expect(stopWithReason.body.error.code).toBe('INVALID_ARGUMENT');
  });

  it('a failed host action leaves the Mind failed until its owner acts (no automatic retry)', async () => {
    const mind = await readyMind(h, owner, { name: 'Sandbox failing' });
    (h.service.host as import('../src/index.js').SimulatedHost).failGeneration(mind.mind_id, 2);
    await h.call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { as: owner, body: { expected_generation: 1 }, headers: { 'idempotency-key': randomUUID() } });
    const failed = await waitForMind(h, owner, mind.mind_id, 'failed');
    expect(failed).toMatchObject({ observed_state: 'failed', observed_generation: 2, error_code: 'host_action_failed' });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await h.call('GET', `/v1/minds/services/${mind.mind_id}`, { as: owner })).body.status).toBe('failed');
    await h.call('POST', `/v1/minds/services/${mind.mind_id}/resume`, { as: owner, body: { expected_generation: 2 }, headers: { 'idempotency-key': randomUUID() } });
    expect((await waitForMind(h, owner, mind.mind_id, 'ready')).error_code).toBeNull();
  });

  it('an unreachable host makes the Mind uncertain, and it recovers when the host answers again', async () => {
    const mind = await readyMind(h, owner, { name: 'Sandbox silent' });
    const host = h.service.host as import('../src/index.js').SimulatedHost;
    host.setUnreachable(mind.mind_id, true);
    await h.call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { as: owner, body: { expected_generation: 1 }, headers: { 'idempotency-key': randomUUID() } });
    expect(await waitForMind(h, owner, mind.mind_id, 'uncertain')).toMatchObject({ observed_state: 'uncertain', error_code: 'host_unreachable' });
    host.setUnreachable(mind.mind_id, false);
    expect(await waitForMind(h, owner, mind.mind_id, 'stopped')).toMatchObject({ observed_generation: 2, error_code: null });
  });
});

describe('list', () => {
  it('pages by created_at then mind_id with next_cursor, and is scoped to the project', async () => {
    const lister = human({ org: 'org_pages', project: 'prj_pages' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createMind(h, lister, { name: `Sandbox ${i}` })).body.mind_id);
    await createMind(h, human({ org: 'org_pages', project: 'prj_neighbour' }), { name: 'Sandbox elsewhere' });
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page: any = await h.call('GET', `/v1/minds/services?limit=2${after ? `&after=${after}` : ''}`, { as: lister });
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((m: any) => m.mind_id));
      after = page.body.next_cursor;
      pages++;
    } while (after);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
    const whole = await h.call('GET', '/v1/minds/services', { as: lister });
    expect(whole.body.items.map((m: any) => m.mind_id)).toEqual(ids);
    expect(whole.body.next_cursor).toBeNull();
  });

  it('limit bounds and an unknown cursor are INVALID_QUERY', async () => {
    expect((await h.call('GET', '/v1/minds/services?limit=101', { as: owner })).body.error.code).toBe('INVALID_QUERY');
    expect((await h.call('GET', '/v1/minds/services?limit=0', { as: owner })).body.error.code).toBe('INVALID_QUERY');
    const unknown = await h.call('GET', `/v1/minds/services?after=${randomUUID()}`, { as: owner });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'INVALID_QUERY', reason: 'cursor_not_found' });
  });
});

describe('tenancy', () => {
  it('another project or organization gets NOT_FOUND for the Mind, exactly like a missing one', async () => {
    const created = await createMind(h, owner, { name: 'Sandbox private' });
    const id = created.body.mind_id as string;
    const missing = await h.call('GET', `/v1/minds/services/${randomUUID()}`, { as: owner });
    expect(missing.status).toBe(404);
    for (const stranger of [otherProject, otherOrg]) {
      const read = await h.call('GET', `/v1/minds/services/${id}`, { as: stranger });
      expect(read.status).toBe(404);
      expect(read.body.error).toMatchObject({ code: 'NOT_FOUND', reason: 'mind_not_found' });
      expect({ ...read.body.error, request_id: null, message: null }).toEqual({ ...missing.body.error, request_id: null, message: null });
      for (const action of ['stop', 'resume']) {
        const write = await h.call('POST', `/v1/minds/services/${id}/${action}`, { as: stranger, body: { expected_generation: 1 }, headers: { 'idempotency-key': randomUUID() } });
        expect(write.status).toBe(404);
        expect(write.body.error.reason).toBe('mind_not_found');
      }
      const list = await h.call('GET', '/v1/minds/services', { as: stranger });
      expect(list.body.items.map((m: any) => m.mind_id)).not.toContain(id);
    }
    // The colleague in the same organization and project sees it (tenancy is the project, not the person).
    expect((await h.call('GET', `/v1/minds/services/${id}`, { as: sameProjectColleague })).status).toBe(200);
  });

  // Reads arriving together are gathered into one statement (DECISIONS "Mind reads gathered per
  // turn"); each caller still gets only its own tenant's Mind: interface "Minds lifecycle",
  // minds_getMind "Mind must be owned by the verified organization and project", and a foreign Mind
  // answers as a missing one (DECISIONS "Missing or foreign resources").
  it('reads sent at once by the owner and by strangers: the owner gets the Mind, strangers NOT_FOUND', async () => {
    const id = (await createMind(h, owner, { name: 'Sandbox read at once' })).body.mind_id as string;
    const callers = [owner, otherProject, otherOrg, sameProjectColleague, owner, otherOrg];
    const reads = await Promise.all(callers.map((as) => h.call('GET', `/v1/minds/services/${id}`, { as })));
    expect(reads.map((read) => read.status)).toEqual([200, 404, 404, 200, 200, 404]);
    for (const read of reads.filter((r) => r.status === 200)) expect(read.body).toMatchObject({ mind_id: id, name: 'Sandbox read at once', organization_id: 'org_life', project_id: 'prj_life' });
    for (const read of reads.filter((r) => r.status === 404)) expect(read.body.error).toMatchObject({ code: 'NOT_FOUND', reason: 'mind_not_found' });
  });
});
