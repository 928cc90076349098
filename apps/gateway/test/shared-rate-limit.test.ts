/**
 * Several gateway replicas enforce one rate limit when the limit is kept in
 * Redis (REDIS_URL) or PostgreSQL (RATE_LIMIT_STORE=postgres): the requests
 * of one credential spread over two gateways run out together.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { send, startHarness, type Harness } from './support/harness.js';

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const opened: Harness[] = [];

async function twoReplicas(env: Record<string, string>): Promise<[Harness, Harness]> {
  // Both replicas share one credential store (PostgreSQL) so one token works on both.
  const first = await startHarness({ env });
  opened.push(first);
  const second = await startHarness({ env });
  opened.push(second);
  return [first, second];
}

async function spend(replicas: [Harness, Harness], token: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const replica = replicas[i % 2]!;
    statuses.push((await send(replica.gateway.url, 'GET', '/v1/whoami', { headers: { authorization: `Bearer ${token}` } })).status);
  }
  return statuses;
}

describe.runIf(databaseUrl)('a rate limit shared by two gateway replicas', () => {
  const schema = `gateway_rl_${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    for (const h of opened) await h.close(); // before the schema they write to goes
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });

  it('through Redis', async () => {
    const replicas = await twoReplicas({
      DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema, REDIS_URL: redisUrl, RATE_LIMIT_POINTS: '4', RATE_LIMIT_WINDOW_SECONDS: '60',
    });
    const { token } = await replicas[0].issue('api_key');
    expect(await spend(replicas, token, 6)).toEqual([200, 200, 200, 200, 429, 429]);
  }, 90_000);

  it('through PostgreSQL', async () => {
    const replicas = await twoReplicas({
      DATABASE_URL: databaseUrl!, DATABASE_SCHEMA: schema, RATE_LIMIT_STORE: 'postgres', RATE_LIMIT_POINTS: '4', RATE_LIMIT_WINDOW_SECONDS: '60',
    });
    const { token } = await replicas[0].issue('api_key');
    expect(await spend(replicas, token, 6)).toEqual([200, 200, 200, 200, 429, 429]);
  }, 90_000);
});
