/** The owner's episodic memory over real HTTP: insert, read, update, ranked search, limits, readiness, tenancy. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEvent, OWNER_NAMESPACE } from '../src/memory/store.js';
import { SEARCH_RANKING_WINDOW } from '../src/spec.js';
import { cleanUp, human, readyMind, startHarness, waitForMind, type Harness } from './support/harness.js';

let h: Harness;
const owner = human({ org: 'org_mem', project: 'prj_mem' });
let mindId: string;

beforeAll(async () => {
  h = await startHarness();
  mindId = (await readyMind(h, owner, { name: 'Sandbox memory' })).mind_id;
});
afterAll(async () => {
  await h?.close();
  await cleanUp();
});

const insert = (event: Record<string, unknown>, who = owner, mind = mindId) => h.call('POST', `/v1/minds/memory/episodic?mind=${mind}`, { as: who, body: { event } });
const get = (storageId: string, who = owner, mind = mindId) => h.call('GET', `/v1/minds/memory/episodic/${storageId}?mind=${mind}`, { as: who });
const search = (body: Record<string, unknown>, who = owner, mind = mindId) => h.call('POST', `/v1/minds/search?mind=${mind}`, { as: who, body });
const event = (content: string, extra: Record<string, unknown> = {}): Record<string, any> => ({ id: randomUUID(), content, timestamp: '2026-11-21T12:00:00Z', ...extra });

describe('insert and read', () => {
  it('returns a storage id distinct from the event id, and reads every field back', async () => {
    const sent = event('The user prefers weekly summaries on Monday mornings.', { event_type: 'Learning', summary: 'Prefers Monday summaries', tags: ['preferences', 'scheduling'] });
    const inserted = await insert(sent);
    expect(inserted.status).toBe(200);
    expect(inserted.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(inserted.body.id).not.toBe(sent.id);
    const read = await get(inserted.body.id);
    expect(read.status).toBe(200);
    expect(read.body.item).toMatchObject({
      storage_id: inserted.body.id,
      id: sent.id,
      content: sent.content,
      timestamp: sent.timestamp,
      event_type: 'Learning',
      summary: 'Prefers Monday summaries',
      tags: ['preferences', 'scheduling'],
    });
    expect(read.body.item.updated_at).toBe(read.body.item.created_at);
  });

  it('stores event_type Context, tags [] and summary null when omitted', async () => {
    const inserted = await insert(event('Minimal event'));
    expect((await get(inserted.body.id)).body.item).toMatchObject({ event_type: 'Context', tags: [], summary: null });
  });

  it('is never replayed: the same request inserts again under a new storage id', async () => {
    const sent = event('Inserted twice');
    const [a, b] = [await insert(sent), await insert(sent)];
    expect(a.body.id).not.toBe(b.body.id);
    expect((await get(a.body.id)).body.item.id).toBe((await get(b.body.id)).body.item.id);
  });

  it('an unknown storage id reads as {item: null}, not an error', async () => {
    const read = await get(randomUUID());
    expect(read.status).toBe(200);
    expect(read.text).toBe('{"item":null}');
  });
});

describe('update', () => {
  it('replaces the content in place, keeps every other field and moves updated_at forward', async () => {
    const sent = event('Old content', { event_type: 'Decision', summary: 'kept', tags: ['a'] });
    const storageId = (await insert(sent)).body.id;
    const before = (await get(storageId)).body.item;
    const updated = await h.call('PUT', `/v1/minds/memory/episodic/${storageId}?mind=${mindId}`, { as: owner, body: { event_id: sent.id, content: 'New content' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ok: true });
    const after = (await get(storageId)).body.item;
    expect(after).toMatchObject({ ...before, content: 'New content', updated_at: after.updated_at });
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    expect(after.created_at).toBe(before.created_at);
    // The new content is what search finds.
    expect((await search({ text: 'New content' })).body.items.map((i: any) => i.id)).toContain(sent.id);
  });

  it('a different event_id is EVENT_ID_MISMATCH and changes nothing; an unknown storage id is memory_not_found', async () => {
    const sent = event('Guarded content');
    const storageId = (await insert(sent)).body.id;
    const mismatch = await h.call('PUT', `/v1/minds/memory/episodic/${storageId}?mind=${mindId}`, { as: owner, body: { event_id: randomUUID(), content: 'Hijacked' } });
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.error.code).toBe('EVENT_ID_MISMATCH');
    expect((await get(storageId)).body.item.content).toBe('Guarded content');
    const unknown = await h.call('PUT', `/v1/minds/memory/episodic/${randomUUID()}?mind=${mindId}`, { as: owner, body: { event_id: sent.id, content: 'x' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'NOT_FOUND', reason: 'memory_not_found' });
  });
});

describe('search', () => {
  it('ranks the most relevant event first and honours limit', async () => {
    const target = human({ org: 'org_mem', project: 'prj_mem' });
    const mind = (await readyMind(h, target, { name: 'Sandbox search' })).mind_id;
    const best = event('Kubernetes rollout failed: the kubernetes deployment rolled back after the kubernetes probe failed.', { summary: 'Kubernetes rollout failure' });
    const middle = event('A deployment note mentioning kubernetes once among other things.');
    const weak = event('Lunch menu for Friday: soup and salad.');
    for (const e of [middle, weak, best]) expect((await insert(e, target, mind)).status).toBe(200);
    const found = await search({ text: 'kubernetes rollout' }, target, mind);
    expect(found.status).toBe(200);
    expect(found.body.items[0]).toEqual({ id: best.id, content: best.content, timestamp: best.timestamp, event_type: 'Context', summary: best.summary, tags: [] });
    expect(found.body.items.map((i: any) => i.id)).not.toContain(weak.id);
    expect((await search({ text: 'kubernetes', limit: 1 }, target, mind)).body.items.map((i: any) => i.id)).toEqual([best.id]);
    expect((await search({ text: 'nothing matches zeppelin' }, target, mind)).text).toBe('{"items":[]}');
    // web search syntax: a quoted phrase and exclusion
    expect((await search({ text: '"deployment note"' }, target, mind)).body.items.map((i: any) => i.id)).toEqual([middle.id]);
    expect((await search({ text: 'kubernetes -probe' }, target, mind)).body.items.map((i: any) => i.id)).toEqual([middle.id]);
  });

  it('returns at most 20 by default, in a deterministic order for equal ranks', async () => {
    const target = human({ org: 'org_mem', project: 'prj_mem' });
    const mind = (await readyMind(h, target, { name: 'Sandbox many' })).mind_id;
    for (let i = 0; i < 23; i++) await insert(event(`identical widget report`), target, mind);
    const first = await search({ text: 'widget' }, target, mind);
    expect(first.body.items).toHaveLength(20);
    expect((await search({ text: 'widget' }, target, mind)).text).toBe(first.text);
    expect((await search({ text: 'widget', limit: 100 }, target, mind)).body.items).toHaveLength(23);
  });

  it('ranks relevance among the newest x-ranking-window matching events only', async () => {
    const target = human({ org: 'org_mem', project: 'prj_mem' });
    const mind = (await readyMind(h, target, { name: 'Sandbox window' })).mind_id;
    const scope = { mindId: mind, org: target.org, project: target.project!, namespace: OWNER_NAMESPACE };
    const strong = event('Quasar survey: the quasar was brighter than any quasar seen before, a supernova nearby.', { summary: 'Quasar survey' });
    expect((await insert(strong, target, mind)).status).toBe(200);
    // Strictly newer: events of the same instant order by storage id, so one written within the strong
    // event's millisecond (PGlite's clock) could sort before it and be the one pushed out.
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Newer, weaker matches, written straight to the service's store: the window is hundreds of events.
    const weak = (i: number) => ({ id: randomUUID(), content: `Observation ${i}: a faint quasar among many other objects in the field.`, timestamp: '2026-11-21T12:00:00Z' });
    for (let i = 0; i < SEARCH_RANKING_WINDOW.owner - 1; i++) await insertEvent(h.service.db, scope, weak(i));

    // The strong event is the oldest of exactly `window` matches: still ranked, and first.
    expect((await search({ text: 'quasar', limit: 1 }, target, mind)).body.items.map((i: any) => i.id)).toEqual([strong.id]);

    // One more newer match pushes it out of the window: every hit is now a newer, weaker event.
    await insertEvent(h.service.db, scope, weak(SEARCH_RANKING_WINDOW.owner));
    const afterPush = await search({ text: 'quasar', limit: 100 }, target, mind);
    expect(afterPush.body.items).toHaveLength(100);
    expect(afterPush.body.items.map((i: any) => i.id)).not.toContain(strong.id);
    // A search it alone matches still finds it.
    expect((await search({ text: 'quasar supernova' }, target, mind)).body.items.map((i: any) => i.id)).toEqual([strong.id]);
  });

  it('limit outside 1..100 is INVALID_ARGUMENT', async () => {
    expect((await search({ text: 'x', limit: 0 })).body.error.code).toBe('INVALID_ARGUMENT');
    expect((await search({ text: 'x', limit: 101 })).body.error.code).toBe('INVALID_ARGUMENT');
  });
});

describe('limits (UTF-8 bytes, enforced before anything is stored)', () => {
  const threeByte = '€'; // 3 UTF-8 bytes, 1 character

  it('content: 16000 bytes pass, 16001 bytes within 16000 characters are refused', async () => {
    expect((await insert(event('a'.repeat(16000)))).status).toBe(200);
    const over = await insert(event(threeByte.repeat(5334))); // 16002 bytes, 5334 characters
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('INVALID_ARGUMENT');
  });

  it('summary over 2000 bytes, search text over 1000 bytes, whitespace-only content are refused', async () => {
    expect((await insert(event('ok', { summary: threeByte.repeat(667) }))).body.error.code).toBe('INVALID_ARGUMENT');
    expect((await search({ text: threeByte.repeat(334) })).body.error.code).toBe('INVALID_ARGUMENT');
    expect((await insert(event('   \n\t '))).body.error.code).toBe('INVALID_ARGUMENT');
    expect((await insert(event('x', { tags: Array(33).fill('t') }))).body.error.code).toBe('INVALID_ARGUMENT');
  });

  it('a body over 64 KiB is 413 PAYLOAD_TOO_LARGE; a non-JSON body 415', async () => {
    const big = await h.call('POST', `/v1/minds/memory/episodic?mind=${mindId}`, { as: owner, rawBody: JSON.stringify({ event: event('x'.repeat(70_000)) }), headers: { 'content-type': 'application/json' } });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const text = await h.call('POST', `/v1/minds/memory/episodic?mind=${mindId}`, { as: owner, rawBody: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
  });

  it('the mind query parameter is required and must be a UUID: INVALID_QUERY', async () => {
    expect((await h.call('POST', '/v1/minds/search', { as: owner, body: { text: 'x' } })).body.error.code).toBe('INVALID_QUERY');
    expect((await h.call('POST', '/v1/minds/search?mind=nope', { as: owner, body: { text: 'x' } })).body.error.code).toBe('INVALID_QUERY');
  });
});

describe('readiness and tenancy', () => {
  it('a Mind that is not ready is 409 MIND_NOT_READY (mind_not_ready) for every memory operation', async () => {
    const mind = await readyMind(h, owner, { name: 'Sandbox stopping' });
    const storageId = (await insert(event('before stop'), owner, mind.mind_id)).body.id;
    await h.call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { as: owner, body: { expected_generation: 1 }, headers: { 'idempotency-key': randomUUID() } });
    await waitForMind(h, owner, mind.mind_id, 'stopped');
    const replies = [
      await insert(event('after stop'), owner, mind.mind_id),
      await get(storageId, owner, mind.mind_id),
      await search({ text: 'stop' }, owner, mind.mind_id),
      await h.call('PUT', `/v1/minds/memory/episodic/${storageId}?mind=${mind.mind_id}`, { as: owner, body: { event_id: randomUUID(), content: 'x' } }),
    ];
    for (const reply of replies) {
      expect(reply.status).toBe(409);
      expect(reply.body.error).toMatchObject({ code: 'MIND_NOT_READY', reason: 'mind_not_ready' });
    }
  });

  it("every memory operation records the Mind's activity; a refused one records nothing", async () => {
    const lastActivity = async (id: string) =>
      (await h.service.db.query<{ at: Date }>('SELECT last_activity_at AS at FROM minds WHERE mind_id = $1', [id])).rows[0]!.at.getTime();
    const mind = await readyMind(h, owner, { name: 'Sandbox active' });
    let seen = await lastActivity(mind.mind_id);
    const storageId = (await insert(event('activity'), owner, mind.mind_id)).body.id;
    for (const operation of [
      () => get(storageId, owner, mind.mind_id),
      () => search({ text: 'activity' }, owner, mind.mind_id),
      () => h.call('PUT', `/v1/minds/memory/episodic/${storageId}?mind=${mind.mind_id}`, { as: owner, body: { event_id: randomUUID(), content: 'x' } }),
    ]) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await operation();
      const now = await lastActivity(mind.mind_id);
      expect(now).toBeGreaterThan(seen);
      seen = now;
    }
    expect((await search({ text: 'activity' }, human({ org: 'org_mem', project: 'prj_neighbour' }), mind.mind_id)).status).toBe(404);
    expect(await lastActivity(mind.mind_id)).toBe(seen);
    await h.call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { as: owner, body: { expected_generation: 1 }, headers: { 'idempotency-key': randomUUID() } });
    await waitForMind(h, owner, mind.mind_id, 'stopped');
    const stopped = await lastActivity(mind.mind_id);
    expect((await search({ text: 'activity' }, owner, mind.mind_id)).status).toBe(409);
    expect(await lastActivity(mind.mind_id)).toBe(stopped);
  });

  it('another organization or project gets NOT_FOUND mind_not_found and reads nothing', async () => {
    const storageId = (await insert(event('secret plans'))).body.id;
    for (const stranger of [human({ org: 'org_mem', project: 'prj_neighbour' }), human({ org: 'org_other', project: 'prj_mem' })]) {
      const replies = [
        await insert(event('intrusion'), stranger),
        await get(storageId, stranger),
        await search({ text: 'secret' }, stranger),
        await h.call('PUT', `/v1/minds/memory/episodic/${storageId}?mind=${mindId}`, { as: stranger, body: { event_id: randomUUID(), content: 'x' } }),
      ];
      for (const reply of replies) {
        expect(reply.status).toBe(404);
        expect(reply.body.error).toMatchObject({ code: 'NOT_FOUND', reason: 'mind_not_found' });
      }
    }
    expect((await h.call('POST', `/v1/minds/search?mind=${randomUUID()}`, { as: owner, body: { text: 'x' } })).body.error.reason).toBe('mind_not_found');
  });
});
