/**
 * The gateway on PostgreSQL (DATABASE_URL) instead of PGlite: the credential
 * store, revocation and usage counting against a real server. Runs when
 * TEST_DATABASE_URL is set (.ci/run sets it); each run uses its own schema.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { send, startHarness, type Harness } from './support/harness.js';

const url = process.env.TEST_DATABASE_URL;
const schema = `gateway_test_${randomBytes(4).toString('hex')}`;

describe.runIf(url)('gateway on PostgreSQL', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { DATABASE_URL: url!, DATABASE_SCHEMA: schema, CREDENTIAL_CACHE_MS: '0' } });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });

  it('issues, verifies, counts and revokes credentials in the server database', async () => {
    const credential = await h.issue('bridge_session');
    const auth = { authorization: `Bearer ${credential.token}` };
    expect((await send(h.gateway.url, 'GET', '/v1/whoami', { headers: auth })).status).toBe(200);
    const usage = await send(h.gateway.url, 'GET', '/v1/usage?days=7', { headers: auth });
    expect(usage.body.services).toEqual([expect.objectContaining({ service: 'gateway', requests: 1 })]);

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(`select token_hash from ${schema}.credentials where id = $1`, [credential.id]);
      expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(rows[0].token_hash).not.toContain(credential.token);
    } finally {
      await client.end();
    }

    await h.admin(`/admin/credentials/${credential.id}/revoke`, {});
    const refused = await send(h.gateway.url, 'GET', '/v1/whoami', { headers: auth });
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 401, code: 'CREDENTIAL_INVALID' });
  });
});
