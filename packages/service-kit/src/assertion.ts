/**
 * The gateway's signed assertion: after authenticating a caller, the gateway
 * forwards the verified principal to a service as a short-lived JWT (EdDSA)
 * in the `x-gateway-assertion` header. Services refuse any request without a
 * valid one and take tenancy only from it, never from caller-supplied fields.
 */
import type { RequestHandler } from 'express';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type CryptoKey, type JWK, type JWTVerifyGetKey } from 'jose';
import type { Schemas } from '@gateway-minds/contract';
import { ServiceError } from './errors.js';
import type { AssertionKeySet } from './assertion-key-set.js';

export const ASSERTION_HEADER = 'x-gateway-assertion';
const ALGORITHM = 'EdDSA';
const ISSUER = 'gateway';

export type CredentialKind = Schemas['CredentialKind'];

/** What the gateway vouches for about the caller. */
export interface VerifiedPrincipal {
  credentialId: string;
  kind: CredentialKind;
  /** User id for sessions, key or client id for the others, agent id for agents. */
  principal: string;
  org: string;
  project: string | null;
  workspace: string | null;
  /** The verified Sandbox selection of a session, if it has one. */
  sandbox: string | null;
  scopes: string[];
  /** A session signed in directly, not derived from another credential. */
  originalSession: boolean;
  agentId: string | null;
}

export type AssertionKeyPair = { privateJwk: JWK; publicJwk: JWK };

export async function generateAssertionKeys(): Promise<AssertionKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { extractable: true });
  return { privateJwk: await exportJWK(privateKey), publicJwk: await exportJWK(publicKey) };
}

export async function importAssertionKey(jwk: JWK): Promise<CryptoKey> {
  return (await importJWK(jwk, ALGORITHM)) as CryptoKey;
}

/**
 * The id a key goes by in the JWS header (`kid`) and in a service's trusted key set: the JWK's
 * own `kid`, else its RFC 7638 thumbprint (SHA-256), which is the same for the private key and
 * its public half, so a deployer never has to name a key.
 */
export async function assertionKeyId(jwk: JWK): Promise<string> {
  return typeof jwk.kid === 'string' && jwk.kid !== '' ? jwk.kid : calculateJwkThumbprint(jwk, 'sha256');
}

/** The gateway's signing key, with the id its assertions carry and the public half it hands to its own checks. */
export interface AssertionSigningKey {
  key: CryptoKey;
  kid: string;
  publicJwk: JWK;
}

/**
 * The signing key from `jwk` (the JWK's JSON text, ASSERTION_PRIVATE_KEY) or else `file`
 * (ASSERTION_PRIVATE_KEY_FILE); null when neither is given or the file does not exist.
 */
export async function readAssertionSigningKey(source: { jwk?: string; file?: string }): Promise<AssertionSigningKey | null> {
  let jwk: JWK;
  let origin: string;
  if (source.jwk) {
    origin = 'ASSERTION_PRIVATE_KEY';
    try {
      jwk = JSON.parse(source.jwk) as JWK;
    } catch (error) {
      throw new Error(`ASSERTION_PRIVATE_KEY is not JSON (it holds the private JWK itself): ${(error as Error).message}`);
    }
  } else {
    const { existsSync, readFileSync } = await import('node:fs');
    if (!source.file || !existsSync(source.file)) return null;
    origin = `${source.file} (ASSERTION_PRIVATE_KEY_FILE)`;
    try {
      jwk = JSON.parse(readFileSync(source.file, 'utf8')) as JWK;
    } catch (error) {
      throw new Error(`${origin} is not a JWK: ${(error as Error).message}`);
    }
  }
  if (jwk?.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string') {
    throw new Error(`${origin}: the assertion signing key must be a private Ed25519 JWK (kty OKP, crv Ed25519, x and d)`);
  }
  const { d: _secret, ...publicJwk } = jwk;
  const kid = await assertionKeyId(jwk);
  return { key: await importAssertionKey(jwk), kid, publicJwk: { ...publicJwk, kid } };
}

export async function signAssertion(
  privateKey: CryptoKey,
  principal: VerifiedPrincipal,
  options: { audience: string; requestId: string; ttlSeconds?: number; kid?: string },
): Promise<string> {
  return new SignJWT({ principal })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'gateway-assertion+jwt', ...(options.kid ? { kid: options.kid } : {}) })
    .setIssuer(ISSUER)
    .setAudience(options.audience)
    .setSubject(principal.principal)
    .setJti(options.requestId)
    .setIssuedAt()
    .setExpirationTime(`${options.ttlSeconds ?? 60}s`)
    .sign(privateKey);
}

/** One public key, or a trusted key set that picks the key by the assertion's `kid`. */
export type AssertionVerificationKey = CryptoKey | AssertionKeySet;

export async function verifyAssertion(
  verificationKey: AssertionVerificationKey,
  token: string,
  audience: string,
): Promise<{ principal: VerifiedPrincipal; requestId: string; expiresAt: number }> {
  const options = { issuer: ISSUER, audience, algorithms: [ALGORITHM], typ: 'gateway-assertion+jwt', clockTolerance: 5 };
  const { payload } =
    'getKey' in verificationKey
      ? await jwtVerify(token, verificationKey.getKey as JWTVerifyGetKey, options)
      : await jwtVerify(token, verificationKey, options);
  return { principal: payload.principal as VerifiedPrincipal, requestId: String(payload.jti), expiresAt: Number(payload.exp) * 1000 };
}

/**
 * Signs assertions, reusing one per (audience, principal) for half its
 * lifetime: an EdDSA signature per request was 12% of the gateway's CPU on a
 * forwarded read. A reused assertion is still valid for at least half of its
 * 60 s, the same exposure as a fresh one.
 */
export function createAssertionSigner(signingKey: Pick<AssertionSigningKey, 'key' | 'kid'>, ttlSeconds = 60) {
  const cache = new Map<string, { token: string; refreshAt: number }>();
  return async function assertionFor(principal: VerifiedPrincipal, audience: string, requestId: string): Promise<string> {
    const key = `${audience}\u0000${JSON.stringify(principal)}`;
    const now = Date.now();
    const cached = cache.get(key);
    if (cached && cached.refreshAt > now) return cached.token;
    const token = await signAssertion(signingKey.key, principal, { audience, requestId, ttlSeconds, kid: signingKey.kid });
    if (cache.size > 10_000) cache.clear();
    cache.set(key, { token, refreshAt: now + (ttlSeconds * 1000) / 2 });
    return token;
  };
}

/**
 * Refuses (401 UNAUTHENTICATED) any request that lacks a valid assertion for
 * this service; sets res.locals.principal. A verified assertion is remembered
 * until it expires, so a reused one is not verified again; a change of the key
 * set forgets them all, so a removed key's assertions are refused at once.
 */
export function requireGatewayAssertion(verificationKey: AssertionVerificationKey, audience: string): RequestHandler {
  const verified = new Map<string, { principal: VerifiedPrincipal; expiresAt: number; generation: number }>();
  const generation = () => ('getKey' in verificationKey ? verificationKey.generation : 0);
  return async (req, res, next) => {
    const token = req.headers[ASSERTION_HEADER];
    if (typeof token !== 'string') return next(new ServiceError('UNAUTHENTICATED', 'The request did not come through the gateway.'));
    const now = Date.now();
    const known = verified.get(token);
    if (known && known.expiresAt > now && known.generation === generation()) {
      res.locals.principal = known.principal;
      return next();
    }
    try {
      const checkedWith = generation();
      const { principal, expiresAt } = await verifyAssertion(verificationKey, token, audience);
      if (verified.size > 10_000) verified.clear();
      verified.set(token, { principal, expiresAt, generation: checkedWith });
      res.locals.principal = principal;
      next();
    } catch {
      next(new ServiceError('UNAUTHENTICATED', 'The gateway assertion is invalid or expired.'));
    }
  };
}

/** Reads a JWK file, or null when it does not exist. */
export async function readAssertionKey(file: string): Promise<CryptoKey | null> {
  const { existsSync, readFileSync } = await import('node:fs');
  if (!existsSync(file)) return null;
  return importAssertionKey(JSON.parse(readFileSync(file, 'utf8')) as JWK);
}
