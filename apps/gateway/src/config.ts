/** Gateway settings, read once from the environment. */
import { join, resolve } from 'node:path';
import type { Connector } from '@gateway-minds/service-kit';
import { publicBaseUrlOf } from '@gateway-minds/service-kit/public-urls';
import { allowedOriginsSetting } from './cors.js';

export interface UpstreamConfig {
  /** The `<service>` of /v1/<service>/... */
  name: string;
  url: string;
  enabled: boolean;
  /** Deadline for one forwarded request. */
  timeoutMs: number;
  /** Seconds a caller is told to wait when the service is disabled. */
  disabledRetryAfterSeconds: number;
  /**
   * Opens connections to a service in this process (InProcessUpstream.connect) instead of
   * dialling `url`, which then only names it. Everything else about forwarding stays the same.
   */
  connect?: Connector;
}

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
  rateLimit: { points: number; durationSeconds: number; redisUrl: string | undefined; store: 'memory' | 'redis' | 'postgres' };
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

function integer(value: string | undefined, fallback: number): number {
  const parsed = value === undefined || value === '' ? fallback : Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`expected a whole number, got ${value}`);
  return parsed;
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
        url: (env.MINDS_URL ?? 'http://127.0.0.1:8090').replace(/\/+$/, ''),
        enabled: flag(env.MINDS_ENABLED, true),
        timeoutMs: integer(env.MINDS_TIMEOUT_MS, 10_000),
        disabledRetryAfterSeconds: integer(env.MINDS_DISABLED_RETRY_AFTER, 30),
      },
    ],
    assertionPrivateKeyFile: env.ASSERTION_PRIVATE_KEY_FILE ?? join(dataDir, 'keys/assertion.private.jwk.json'),
    rateLimit: {
      points: integer(env.RATE_LIMIT_POINTS, 1200),
      durationSeconds: integer(env.RATE_LIMIT_WINDOW_SECONDS, 60),
      redisUrl,
      store: (env.RATE_LIMIT_STORE as 'memory' | 'redis' | 'postgres' | undefined) ?? (redisUrl ? 'redis' : 'memory'),
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
