/**
 * Configuration from the environment (main.ts):
 *
 *   PORT                        8090
 *   HOST                        127.0.0.1
 *   DATA_DIR                    ./data   (PGlite in DATA_DIR/minds)
 *   DATABASE_URL                PostgreSQL instead of PGlite
 *   DATABASE_SCHEMA             minds (the schema of its tables, on either driver)
 *   DATABASE_PAGE_COST          0.1 (the planner's price of reading a page, MINDS_PAGE_COST in
 *                               service.ts); 'server' keeps the database server's own
 *   VALIDATE_RESPONSES          on unless NODE_ENV=production (as the gateway)
 *   ASSERTION_PUBLIC_KEYS       the gateway public keys it trusts: a JWK Set, {"keys": [...]}, as JSON
 *   ASSERTION_PUBLIC_KEYS_FILE  the same in a file, re-read when it changes (a rotation needs no restart)
 *   ASSERTION_PUBLIC_KEY_FILE   DATA_DIR/keys/assertion.public.jwk.json: one public JWK, read (and
 *                               re-read) only when neither of the above is set (what npm start makes)
 *   IAM_INTERNAL_URL            http://127.0.0.1:8081 (agent lookups; comma-separated for several
 *                               gateways, agents.ts)
 *   DOCS_BASE_URL               the gateway's site: <PUBLIC_BASE_URL or http://127.0.0.1:8080>/docs
 *                               (npm start passes the gateway's own, so both link to one site)
 *   MINDS_OWNER_MANAGEMENT_ENABLED, MINDS_AGENT_MEMORY_ENABLED
 *                               off unless 1/true/yes/on (names from the operation table)
 *   MINDS_HOST_PROVISION_MS     1500 (simulated host)
 *   MINDS_HOST_STOP_MS          800
 *   MINDS_CONTROLLER_ENABLED    on (off: this replica serves the API and reconciles nothing)
 *   MINDS_CONTROLLER_BATCH      20     Minds claimed per tick
 *   MINDS_CONTROLLER_TICK_MS    250    pause after a tick that found less than a full batch, and
 *                                      how often a Mind on its way to its desired state is observed
 *   MINDS_CONTROLLER_HEARTBEAT_MS 5000 a running Mind is observed again this long after the last time
 *   MINDS_CONTROLLER_LEASE_MS   10000  a claim's hold; a stopped replica's Minds are taken over after it.
 *                                      Must exceed the tick and outlast a batch's reconciles.
 *   MINDS_CONTROLLER_CONCURRENCY 4     claimed Minds reconciled at once (database connections)
 *   LOG_LEVEL                   info
 */
import { join, resolve } from 'node:path';
import { assertionKeySourceFromEnv, type AssertionKeySource } from '@gateway-minds/service-kit/assertion-key-set';
import { isPageCost } from '@gateway-minds/db';
import { docsBaseUrlOf } from '@gateway-minds/service-kit/public-urls';
import { CONTROLLER_DEFAULTS } from './controller/controller.js';
import type { MindsServiceConfig } from './service.js';
import { admissionSettings } from './spec.js';

type Env = Record<string, string | undefined>;

function flag(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

/** A comma-separated list of http(s) URLs, each without a trailing slash. */
function urlList(env: Env, name: string, fallback: string): string[] {
  const urls = (env[name] ?? '').split(',').map((url) => url.trim().replace(/\/+$/, '')).filter((url) => url !== '');
  for (const url of urls) {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new Error(`${name}: ${JSON.stringify(url)} is not an http(s) URL`);
  }
  return urls.length > 0 ? urls : [fallback];
}

function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return value;
}

function positive(env: Env, name: string, fallback: number): number {
  const value = integer(env, name, fallback);
  if (value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(env[name])}`);
  return value;
}

function controllerSettings(env: Env): NonNullable<MindsServiceConfig['controller']> {
  const settings = {
    enabled: env.MINDS_CONTROLLER_ENABLED === undefined || env.MINDS_CONTROLLER_ENABLED === '' ? true : flag(env.MINDS_CONTROLLER_ENABLED),
    batchSize: positive(env, 'MINDS_CONTROLLER_BATCH', CONTROLLER_DEFAULTS.batchSize),
    tickMs: positive(env, 'MINDS_CONTROLLER_TICK_MS', CONTROLLER_DEFAULTS.tickMs),
    heartbeatMs: positive(env, 'MINDS_CONTROLLER_HEARTBEAT_MS', CONTROLLER_DEFAULTS.heartbeatMs),
    leaseMs: positive(env, 'MINDS_CONTROLLER_LEASE_MS', CONTROLLER_DEFAULTS.leaseMs),
    concurrency: positive(env, 'MINDS_CONTROLLER_CONCURRENCY', CONTROLLER_DEFAULTS.concurrency),
  };
  // A lease shorter than a tick would let another replica take a Mind over while its claim is still being worked on.
  if (settings.leaseMs <= settings.tickMs) throw new Error(`MINDS_CONTROLLER_LEASE_MS (${settings.leaseMs}) must exceed MINDS_CONTROLLER_TICK_MS (${settings.tickMs})`);
  return settings;
}

function pageCost(env: Env): number | 'server' | undefined {
  const raw = env.DATABASE_PAGE_COST?.trim();
  if (!raw) return undefined;
  if (raw === 'server') return 'server';
  const value = Number(raw);
  if (!isPageCost(value)) throw new Error(`DATABASE_PAGE_COST must be a positive number or 'server', got ${JSON.stringify(raw)}`);
  return value;
}

export interface ListenConfig {
  port: number;
  host: string;
}

export function configFromEnv(env: Env = process.env): { listen: ListenConfig; service: MindsServiceConfig } {
  const dataDir = resolve(env.DATA_DIR || './data');
  const assertionKeys: AssertionKeySource = assertionKeySourceFromEnv(env) ?? {
    file: env.ASSERTION_PUBLIC_KEY_FILE || join(dataDir, 'keys', 'assertion.public.jwk.json'),
    setting: 'ASSERTION_PUBLIC_KEY_FILE',
  };
  return {
    listen: { port: integer(env, 'PORT', 8090), host: env.HOST || '127.0.0.1' },
    service: {
      databaseUrl: env.DATABASE_URL || undefined,
      schema: env.DATABASE_SCHEMA || 'minds',
      databasePageCost: pageCost(env),
      validateResponses: env.VALIDATE_RESPONSES ? flag(env.VALIDATE_RESPONSES) : env.NODE_ENV !== 'production',
      dataDir: join(dataDir, 'minds'),
      assertionKeys,
      iamInternalUrls: urlList(env, 'IAM_INTERNAL_URL', 'http://127.0.0.1:8081'),
      // Not this service's own HOST/PORT: the docs are the gateway's, and so is PUBLIC_BASE_URL.
      docsBaseUrl: docsBaseUrlOf({ DOCS_BASE_URL: env.DOCS_BASE_URL, PUBLIC_BASE_URL: env.PUBLIC_BASE_URL }),
      admissions: Object.fromEntries(admissionSettings.map((name) => [name, flag(env[name])])),
      hostProvisionMs: integer(env, 'MINDS_HOST_PROVISION_MS', 1500),
      hostStopMs: integer(env, 'MINDS_HOST_STOP_MS', 800),
      controller: controllerSettings(env),
    },
  };
}

