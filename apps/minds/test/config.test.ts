import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/config.js';

describe('configFromEnv', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'minds-config-'));
  mkdirSync(join(dataDir, 'keys'));
  writeFileSync(join(dataDir, 'keys', 'assertion.public.jwk.json'), JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }));

  it('keeps its tables in the minds schema unless DATABASE_SCHEMA names another', () => {
    expect(configFromEnv({ DATA_DIR: dataDir }).service.schema).toBe('minds');
    expect(configFromEnv({ DATA_DIR: dataDir, DATABASE_SCHEMA: 'minds_replica_b' }).service.schema).toBe('minds_replica_b');
  });

  it("prices the planner's page reads with DATABASE_PAGE_COST: a positive number, or 'server' for the server's own", () => {
    expect(configFromEnv({ DATA_DIR: dataDir }).service.databasePageCost).toBeUndefined();
    expect(configFromEnv({ DATA_DIR: dataDir, DATABASE_PAGE_COST: '1.5' }).service.databasePageCost).toBe(1.5);
    expect(configFromEnv({ DATA_DIR: dataDir, DATABASE_PAGE_COST: 'server' }).service.databasePageCost).toBe('server');
    for (const bad of ['0', '-1', 'fast', 'Infinity']) {
      expect(() => configFromEnv({ DATA_DIR: dataDir, DATABASE_PAGE_COST: bad })).toThrow(/DATABASE_PAGE_COST must be a positive number or 'server'/);
    }
  });

  it('validates its responses outside production unless VALIDATE_RESPONSES says otherwise, as the gateway does', () => {
    expect(configFromEnv({ DATA_DIR: dataDir }).service.validateResponses).toBe(true);
    expect(configFromEnv({ DATA_DIR: dataDir, NODE_ENV: 'production' }).service.validateResponses).toBe(false);
    expect(configFromEnv({ DATA_DIR: dataDir, NODE_ENV: 'production', VALIDATE_RESPONSES: 'true' }).service.validateResponses).toBe(true);
    expect(configFromEnv({ DATA_DIR: dataDir, VALIDATE_RESPONSES: 'off' }).service.validateResponses).toBe(false);
  });
});
