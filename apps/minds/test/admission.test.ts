/**
 * Server-side admission on create, on both drivers: a Sandbox holds at most
 * x-max-minds-per-sandbox Minds; creations racing for its last places get
 * exactly those places; one more is refused with SANDBOX_CREATE_NOT_ADMITTED,
 * creates nothing and leaves its Idempotency-Key unspent; another Sandbox of
 * the same project still admits.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MINDS_PER_SANDBOX } from '../src/spec.js';
import { cleanUp, contextOf, createMind, drivers, human, startHarness, type Harness } from './support/harness.js';

afterAll(() => cleanUp());

describe.each(drivers)('Sandbox admission on %s', (driver) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ driver });
  });
  afterAll(() => h?.close());

  const minds = async (who: ReturnType<typeof human>) => (await h.call('GET', '/v1/minds/services?limit=100', { as: who })).body;

  it(`admits ${MAX_MINDS_PER_SANDBOX} Minds in a Sandbox, racing creations share its last places, and one more changes nothing`, async () => {
    const owner = human({ org: 'org_admit', project: 'prj_admit', sandbox: 'sbx_full' });
    const racing = 8;
    const lastPlaces = 5;
    for (let i = 0; i < MAX_MINDS_PER_SANDBOX - lastPlaces; i++) expect((await createMind(h, owner, { name: `Sandbox ${i}` })).status).toBe(202);

    const context = await contextOf(h, owner);
    const raced = await Promise.all(
      Array.from({ length: racing }, (_, i) =>
        h.call('POST', '/v1/minds/services', { as: owner, body: { name: `Sandbox race ${i}` }, headers: { 'idempotency-key': randomUUID(), 'x-platform-minds-creation-context': context } }),
      ),
    );
    expect(raced.filter((r) => r.status === 202)).toHaveLength(lastPlaces);
    for (const refused of raced.filter((r) => r.status !== 202)) {
      expect({ status: refused.status, code: refused.body.error.code, reason: refused.body.error.reason }).toEqual({
        status: 403,
        code: 'SANDBOX_CREATE_NOT_ADMITTED',
        reason: 'sandbox_mind_limit',
      });
    }
    const full = await minds(owner);
    expect(full.items).toHaveLength(MAX_MINDS_PER_SANDBOX);
    expect(full.next_cursor).toBeNull();

    // One more, with a key of its own: refused, nothing created, and the key not spent.
    const key = randomUUID();
    const refused = await createMind(h, owner, { name: 'Sandbox one too many' }, key);
    expect({ status: refused.status, code: refused.body.error.code, reason: refused.body.error.reason }).toEqual({
      status: 403,
      code: 'SANDBOX_CREATE_NOT_ADMITTED',
      reason: 'sandbox_mind_limit',
    });
    expect((await minds(owner)).items.map((m: { mind_id: string }) => m.mind_id)).toEqual(full.items.map((m: { mind_id: string }) => m.mind_id));

    // The same principal selecting another Sandbox of the project: admitted, and with the same key and a
    // different body, which a spent key would refuse as reused.
    const elsewhere = human({ ...owner, credentialId: `cred_${randomUUID()}`, sandbox: 'sbx_empty' });
    const admitted = await createMind(h, elsewhere, { name: 'Sandbox elsewhere', plan: 'pro' }, key);
    expect(admitted.status).toBe(202);
    expect(admitted.body.plan).toBe('pro');
  });
});
