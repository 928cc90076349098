import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../src/config.js';
import { CONTROLLER_DEFAULTS } from '../src/controller/controller.js';

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

  // spec/DECISIONS.md, "Several replicas of a service".
  it('reads IAM_INTERNAL_URL as a comma-separated list of gateway admin URLs', () => {
    const urlsOf = (value?: string) => configFromEnv({ DATA_DIR: dataDir, ...(value === undefined ? {} : { IAM_INTERNAL_URL: value }) }).service.iamInternalUrls;
    expect(urlsOf()).toEqual(['http://127.0.0.1:8081']);
    expect(urlsOf('http://10.0.0.1:8081/')).toEqual(['http://10.0.0.1:8081']);
    expect(urlsOf(' http://10.0.0.1:8081, http://10.0.0.2:8081/ ,')).toEqual(['http://10.0.0.1:8081', 'http://10.0.0.2:8081']);
    expect(() => urlsOf('http://10.0.0.1:8081,10.0.0.2:8081')).toThrow(/IAM_INTERNAL_URL: "10.0.0.2:8081" is not an http\(s\) URL/);
  });

  // spec/DECISIONS.md, "Which site a `docs_url` names": the gateway's site, never this service's own address.
  it("links errors to the gateway's docs: DOCS_BASE_URL, else PUBLIC_BASE_URL/docs, else the default gateway's", () => {
    const docsOf = (env: Record<string, string>) => configFromEnv({ DATA_DIR: dataDir, ...env }).service.docsBaseUrl;
    expect(docsOf({})).toBe('http://127.0.0.1:8080/docs');
    expect(docsOf({ PORT: '9999', HOST: '0.0.0.0' })).toBe('http://127.0.0.1:8080/docs');
    expect(docsOf({ PUBLIC_BASE_URL: 'https://api.example.com/' })).toBe('https://api.example.com/docs');
    expect(docsOf({ PUBLIC_BASE_URL: 'https://api.example.com', DOCS_BASE_URL: 'https://docs.example.com/v1/' })).toBe('https://docs.example.com/v1');
  });

  // spec/DECISIONS.md, "Assertion keys and their rotation": a key set, or the older single-key file.
  it('trusts the key set of ASSERTION_PUBLIC_KEYS or ASSERTION_PUBLIC_KEYS_FILE, else the one key of ASSERTION_PUBLIC_KEY_FILE; not both sets', () => {
    const jwks = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }] };
    expect(configFromEnv({ DATA_DIR: dataDir }).service.assertionKeys).toEqual({ file: join(dataDir, 'keys', 'assertion.public.jwk.json'), setting: 'ASSERTION_PUBLIC_KEY_FILE' });
    expect(configFromEnv({ DATA_DIR: dataDir, ASSERTION_PUBLIC_KEYS: JSON.stringify(jwks) }).service.assertionKeys).toEqual({ jwks, setting: 'ASSERTION_PUBLIC_KEYS' });
    // The single-key file is the fallback only: a set named beside it wins.
    expect(configFromEnv({ DATA_DIR: dataDir, ASSERTION_PUBLIC_KEYS_FILE: '/etc/keys.json', ASSERTION_PUBLIC_KEY_FILE: '/old.json' }).service.assertionKeys).toEqual({ file: '/etc/keys.json', setting: 'ASSERTION_PUBLIC_KEYS_FILE' });
    expect(() => configFromEnv({ DATA_DIR: dataDir, ASSERTION_PUBLIC_KEYS: JSON.stringify(jwks), ASSERTION_PUBLIC_KEYS_FILE: '/etc/keys.json' })).toThrow(/not both/);
    expect(() => configFromEnv({ DATA_DIR: dataDir, ASSERTION_PUBLIC_KEYS: '{"keys": [' })).toThrow(/ASSERTION_PUBLIC_KEYS is not JSON/);
  });

  it('sets the controller from MINDS_CONTROLLER_* and keeps its defaults otherwise', () => {
    expect(configFromEnv({ DATA_DIR: dataDir }).service.controller).toEqual({ enabled: true, ...CONTROLLER_DEFAULTS });
    const env = {
      DATA_DIR: dataDir,
      MINDS_CONTROLLER_ENABLED: 'off',
      MINDS_CONTROLLER_BATCH: '100',
      MINDS_CONTROLLER_TICK_MS: '50',
      MINDS_CONTROLLER_HEARTBEAT_MS: '30000',
      MINDS_CONTROLLER_LEASE_MS: '20000',
      MINDS_CONTROLLER_CONCURRENCY: '8',
    };
    expect(configFromEnv(env).service.controller).toEqual({ enabled: false, batchSize: 100, tickMs: 50, heartbeatMs: 30_000, leaseMs: 20_000, concurrency: 8 });
    for (const name of ['MINDS_CONTROLLER_BATCH', 'MINDS_CONTROLLER_TICK_MS', 'MINDS_CONTROLLER_HEARTBEAT_MS', 'MINDS_CONTROLLER_LEASE_MS', 'MINDS_CONTROLLER_CONCURRENCY']) {
      for (const bad of ['0', '-5', '1.5', 'soon']) expect(() => configFromEnv({ DATA_DIR: dataDir, [name]: bad }), `${name}=${bad}`).toThrow(name);
    }
    // A lease no longer than a tick would let another replica take over a Mind still being worked on.
    expect(() => configFromEnv({ DATA_DIR: dataDir, MINDS_CONTROLLER_TICK_MS: '1000', MINDS_CONTROLLER_LEASE_MS: '1000' })).toThrow(/MINDS_CONTROLLER_LEASE_MS \(1000\) must exceed MINDS_CONTROLLER_TICK_MS/);
  });
});
