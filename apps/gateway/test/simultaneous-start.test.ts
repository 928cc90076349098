/**
 * Gateways started at once on one empty PostgreSQL schema, as replicas of a deployment start: the
 * development organization is made exactly once, and every table the shared rate limiter needs
 * exists before any of them serves (made by a migration, under the migration lock), so none fails
 * to start. Runs when TEST_DATABASE_URL is set (.ci/run sets it).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, startGateway, type Gateway } from '../src/index.js';

const url = process.env.TEST_DATABASE_URL;
const REPLICAS = 4;

describe.runIf(url)('gateways starting at once on one empty database', () => {
  const schemas: string[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    for (const schema of schemas) await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it.each([1, 2, 3])('make one development organization and all start, with the rate limits in PostgreSQL (round %i)', async () => {
    const schema = `gateway_start_${randomBytes(4).toString('hex')}`;
    schemas.push(schema);
    const started = await Promise.allSettled(
      Array.from({ length: REPLICAS }, () => {
        const dataDir = mkdtempSync(join(tmpdir(), 'gateway-replica-'));
        dirs.push(dataDir);
        return startGateway(
          loadConfig({ DATA_DIR: dataDir, PORT: '0', ADMIN_PORT: '0', DATABASE_URL: url, DATABASE_SCHEMA: schema, RATE_LIMIT_STORE: 'postgres', NODE_ENV: 'test' }),
        );
      }),
    );
    const gateways = started.filter((s): s is PromiseFulfilledResult<Gateway> => s.status === 'fulfilled').map((s) => s.value);
    try {
      expect(started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const organizations = await client.query(`select name from ${schema}.organizations`);
        expect(organizations.rows).toEqual([{ name: 'Development' }]);
        const limits = await client.query(`select to_regclass('${schema}.rate_limits') as table`);
        expect(limits.rows[0].table).not.toBeNull();
      } finally {
        await client.end();
      }
    } finally {
      await Promise.all(gateways.map((gateway) => gateway.close()));
    }
  });
});
