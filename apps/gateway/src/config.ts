/** Gateway settings, read once from the environment. */
import { join, resolve } from 'node:path';
import type { Connector } from '@gateway-minds/service-kit';
import { assertionKeySourceFromEnv, type AssertionKeySource } from '@gateway-minds/service-kit/assertion-key-set';
import { publicBaseUrlOf } from '@gateway-minds/service-kit/public-urls';
import { allowedOriginsSetting } from './cors.js';

export interface UpstreamConfig {
  /** The `<service>` of /v1/<service>/... */
  name: string;
  /**
   * The service's replicas (MINDS_URL, comma-separated): requests are spread across those that
   * answer their health probe (routing/replicas.ts). One URL when `connect` is set.
   */
  urls: string[];
  /** How often each replica's health route is probed, when there is more than one (UPSTREAM_HEALTH_INTERVAL_MS). */
  healthIntervalMs: number;
  enabled: boolean;
  /** Deadline for one forwarded request. */
  timeoutMs: number;
  /** Seconds a caller is told to wait when the service is disabled. */
  disabledRetryAfterSeconds: number;
  /**
   * Opens connections to a service in this process (InProcessUpstream.connect) instead of
   * dialling its one URL, which then only names it. Everything else about forwarding stays the same.
   */
  connect?: Connector;
}

export const SHARED_STORE_KINDS = ['memory', 'redis', 'postgres'] as const;
export type SharedStoreKind = (typeof SHARED_STORE_KINDS)[number];

export interface GatewayConfig {
  port: number;
  host: string;
  /** The URL callers use; DPoP proofs name it in `htu`. */
  publicBaseUrl: string;
  adminPort: number;
  dataDir: string;
  databaseUrl: string | undefined;
  /** The PostgreSQL schema holding the gateway's tables (lets services share one database). */
  databaseSchema: string;
  /** DOCS_BASE_URL; unset, the site this gateway serves at `<publicBaseUrl>/docs` (docsBaseUrlOf). */
  docsBaseUrl: string | undefined;
  validateResponses: boolean;
  upstreams: UpstreamConfig[];
  /** The assertion signing key (private JWK); missing means nothing is forwarded (FLOCKS_SIGNING_KEY_MISSING). */
  assertionPrivateKeyFile: string;
  /** ASSERTION_PRIVATE_KEY: the private JWK's JSON itself, instead of the file (a secret store's setting). */
  assertionPrivateKey: string | undefined;
  /**
   * ASSERTION_PUBLIC_KEYS or ASSERTION_PUBLIC_KEYS_FILE, as the services read them: the internal agent
   * lookup accepts assertions signed by these as well as by this gateway's own key, so that a
   * service may ask any gateway while the gateways' keys differ during a rotation.
   */
  assertionPublicKeys: AssertionKeySource | undefined;
  /**
   * RATE_LIMIT_STORE names the store shared by the gateways of a deployment, for rate limits and
   * for DPoP (used proofs and the nonce secret): `memory` (this gateway alone), `redis` (REDIS_URL)
   * or `postgres` (DATABASE_URL).
   */
  rateLimit: { points: number; durationSeconds: number; redisUrl: string | undefined; store: SharedStoreKind };
  /** How the gateway talks to its shared store (stores.ts). */
  stores: {
    /** STORE_TIMEOUT_MS: the deadline of every call to Redis or to the PostgreSQL store, then the store's unavailability code. */
    timeoutMs: number;
    /** STORE_STARTUP_WAIT_MS: how long a starting gateway waits for its stores before it listens anyway, reporting itself not ready. */
    startupWaitMs: number;
    /** REDIS_KEY_PREFIX: put before every key, so that deployments (or tests) can share one Redis. */
    redisKeyPrefix: string;
  };
  /** The unauthenticated credential verification, limited per client address (same store as rateLimit). */
  verifyRateLimit: { points: number; durationSeconds: number };
  /** Paths of a service that the contract does not name, forwarded without a credential: limited per client address too. */
  unnamedPathRateLimit: { points: number; durationSeconds: number };
  dpop: { requireNonce: boolean; iatWindowSeconds: number };
  /** How long a verified credential is reused before it is looked up again. */
  credentialCacheMs: number;
  /** Where the admin token (for the admin API and CLI) is kept; the admin listener's URL is written beside it. */
  adminTokenFile: string;
  /**
   * ADMIN_TOKEN: the admin token itself, for a deployment whose gateways share one (from a secret
   * store); when set, adminTokenFile is neither read nor written.
   */
  adminToken: string | undefined;
  /** CORS_ALLOWED_ORIGINS: the origins whose pages may call the gateway (cors.ts). */
  corsAllowedOrigins: string[];
}

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return ['1', 'true', 'yes', 'on'].includes(value.toLowerCase());
}

/** A comma-separated list of service URLs, each http(s), without a trailing slash. */
function urlList(name: string, value: string | undefined, fallback: string): string[] {
  const urls = (value ?? '').split(',').map((url) => url.trim().replace(/\/+$/, '')).filter((url) => url !== '');
  if (urls.length === 0) return [fallback];
  for (const url of urls) {
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch {
      throw new Error(`${name}: ${JSON.stringify(url)} is not a URL`);
    }
    if (protocol !== 'http:' && protocol !== 'https:') throw new Error(`${name}: ${JSON.stringify(url)} is not an http(s) URL`);
  }
  if (new Set(urls).size !== urls.length) throw new Error(`${name} names one URL twice`);
  return urls;
}

function integer(value: string | undefined, fallback: number): number {
  const parsed = value === undefined || value === '' ? fallback : Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`expected a whole number, got ${value}`);
  return parsed;
}

function sharedStoreKind(value: string, env: NodeJS.ProcessEnv): SharedStoreKind {
  if (!(SHARED_STORE_KINDS as readonly string[]).includes(value)) throw new Error(`RATE_LIMIT_STORE must be one of ${SHARED_STORE_KINDS.join(', ')}, got ${value}`);
  if (value === 'redis' && !env.REDIS_URL) throw new Error('RATE_LIMIT_STORE=redis needs REDIS_URL');
  if (value === 'postgres' && !env.DATABASE_URL) throw new Error('RATE_LIMIT_STORE=postgres needs DATABASE_URL');
  return value as SharedStoreKind;
}

/** The shortest ADMIN_TOKEN accepted: as many characters as the 24 random bytes of a generated token take in base64url. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

function adminTokenSetting(value: string | undefined): string | undefined {
  const token = value?.trim();
  if (!token) return undefined;
  if (token.length < MIN_ADMIN_TOKEN_LENGTH || /\s/.test(token)) throw new Error(`ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters without spaces (for example: node -e "console.log(crypto.randomBytes(24).toString('base64url'))")`);
  return token;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const dataDir = resolve(env.DATA_DIR ?? 'data');
  const port = integer(env.PORT, 8080);
  const host = env.HOST ?? '127.0.0.1';
  const redisUrl = env.REDIS_URL || undefined;
  return {
    port,
    host,
    publicBaseUrl: publicBaseUrlOf({ PUBLIC_BASE_URL: env.PUBLIC_BASE_URL, HOST: host, PORT: String(port) }),
    adminPort: integer(env.ADMIN_PORT, 8081),
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: env.DATABASE_SCHEMA ?? 'gateway',
    docsBaseUrl: env.DOCS_BASE_URL || undefined,
    validateResponses: env.VALIDATE_RESPONSES !== undefined ? flag(env.VALIDATE_RESPONSES, true) : env.NODE_ENV !== 'production',
    upstreams: [
      {
        name: 'minds',
        urls: urlList('MINDS_URL', env.MINDS_URL, 'http://127.0.0.1:8090'),
        healthIntervalMs: integer(env.UPSTREAM_HEALTH_INTERVAL_MS, 2000),
        enabled: flag(env.MINDS_ENABLED, true),
        timeoutMs: integer(env.MINDS_TIMEOUT_MS, 10_000),
        disabledRetryAfterSeconds: integer(env.MINDS_DISABLED_RETRY_AFTER, 30),
      },
    ],
    assertionPrivateKeyFile: env.ASSERTION_PRIVATE_KEY_FILE ?? join(dataDir, 'keys/assertion.private.jwk.json'),
    assertionPrivateKey: assertionPrivateKeySetting(env),
    assertionPublicKeys: assertionKeySourceFromEnv(env),
    rateLimit: {
      points: integer(env.RATE_LIMIT_POINTS, 1200),
      durationSeconds: integer(env.RATE_LIMIT_WINDOW_SECONDS, 60),
      redisUrl,
      store: sharedStoreKind(env.RATE_LIMIT_STORE || (redisUrl ? 'redis' : 'memory'), env),
    },
    stores: {
      timeoutMs: Math.max(1, integer(env.STORE_TIMEOUT_MS, 1000)),
      startupWaitMs: integer(env.STORE_STARTUP_WAIT_MS, 30_000),
      redisKeyPrefix: env.REDIS_KEY_PREFIX ?? '',
    },
    verifyRateLimit: {
      points: integer(env.VERIFY_RATE_LIMIT_POINTS, 60),
      durationSeconds: integer(env.VERIFY_RATE_LIMIT_WINDOW_SECONDS, 60),
    },
    unnamedPathRateLimit: {
      points: integer(env.UNNAMED_PATH_RATE_LIMIT_POINTS, 60),
      durationSeconds: integer(env.UNNAMED_PATH_RATE_LIMIT_WINDOW_SECONDS, 60),
    },
    dpop: { requireNonce: flag(env.DPOP_REQUIRE_NONCE, false), iatWindowSeconds: integer(env.DPOP_IAT_WINDOW_SECONDS, 60) },
    credentialCacheMs: integer(env.CREDENTIAL_CACHE_MS, 2000),
    adminTokenFile: env.ADMIN_TOKEN_FILE ?? join(dataDir, 'admin-token'),
    adminToken: adminTokenSetting(env.ADMIN_TOKEN),
    corsAllowedOrigins: allowedOriginsSetting(env),
  };
}

/** The signing key is given one way: the JWK itself or a file holding it. */
function assertionPrivateKeySetting(env: NodeJS.ProcessEnv): string | undefined {
  if (env.ASSERTION_PRIVATE_KEY && env.ASSERTION_PRIVATE_KEY_FILE) throw new Error('set ASSERTION_PRIVATE_KEY or ASSERTION_PRIVATE_KEY_FILE, not both');
  return env.ASSERTION_PRIVATE_KEY || undefined;
}
