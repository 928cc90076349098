/**
 * DPoP (RFC 9449) proofs for sender-constrained agent tokens, signed with
 * WebCrypto through `jose` (Node and browsers alike). A fresh proof per
 * request: `htm` from the operation's `x-dpop-htm`, `htu` the request URL
 * without query or fragment, `ath` the base64url SHA-256 of the token, a
 * random `jti` and the current `iat`.
 */
import { base64url, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';

export interface DpopKeyPair {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

export interface DpopOptions {
  /** The key pair the token is bound to (its public key's thumbprint is the token's `cnf.jkt`). */
  key: DpopKeyPair;
  /** JWS algorithm; derived from the key when omitted (ES256/384/512, EdDSA, PS256, RS256); `Ed25519` may be named instead of `EdDSA`. */
  alg?: string | undefined;
  /**
   * On `DPOP_NONCE_REQUIRED`, sign again once with the nonce from the
   * `dpop-nonce` header and resend. Off by default: the interface says a nonce
   * is never retried automatically, so the caller opts in.
   */
  retryWithNonce?: boolean | undefined;
  /**
   * The `Authorization` scheme the token travels in when a proof is sent:
   * `DPoP` (default), as RFC 9449 §7.1 says a client sends a DPoP-bound token,
   * or `Bearer`, the interface's form, which the gateway also accepts.
   */
  scheme?: 'DPoP' | 'Bearer' | undefined;
}

const encoder = new TextEncoder();
const publicJwks = new WeakMap<CryptoKey, Promise<JWK>>();

function publicJwkOf(key: CryptoKey): Promise<JWK> {
  let jwk = publicJwks.get(key);
  if (!jwk) {
    jwk = exportJWK(key).then(({ kty, crv, x, y, n, e }) => Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined)) as JWK);
    publicJwks.set(key, jwk);
  }
  return jwk;
}

/** The JWS algorithm for a WebCrypto key. */
export function algorithmOf(key: CryptoKey): string {
  const algorithm = key.algorithm as { name: string; namedCurve?: string; hash?: { name: string } };
  const bits = (hash?: { name: string }) => (hash?.name ?? 'SHA-256').replace('SHA-', '');
  switch (algorithm.name) {
    case 'ECDSA':
      return { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' }[algorithm.namedCurve ?? ''] ?? 'ES256';
    case 'Ed25519':
    case 'EdDSA':
      return 'EdDSA';
    case 'RSA-PSS':
      return `PS${bits(algorithm.hash)}`;
    case 'RSASSA-PKCS1-v1_5':
      return `RS${bits(algorithm.hash)}`;
    default:
      throw new Error(`unsupported DPoP key algorithm ${algorithm.name}`);
  }
}

/** base64url(SHA-256(token)): the proof's `ath`. */
export async function accessTokenHash(token: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(token))));
}

export interface ProofInput {
  key: DpopKeyPair;
  alg?: string | undefined;
  /** HTTP method the proof names (the operation's x-dpop-htm). */
  htm: string;
  /** Request URL; query and fragment are dropped. */
  url: string;
  accessToken: string;
  nonce?: string | undefined;
}

/** Signs one DPoP proof. */
export async function createDpopProof({ key, alg, htm, url, accessToken, nonce }: ProofInput): Promise<string> {
  const target = new URL(url);
  const htu = `${target.protocol}//${target.host}${target.pathname}`;
  return new SignJWT({ htm, htu, jti: crypto.randomUUID(), ath: await accessTokenHash(accessToken), ...(nonce ? { nonce } : {}) })
    .setProtectedHeader({ alg: alg ?? algorithmOf(key.privateKey), typ: 'dpop+jwt', jwk: await publicJwkOf(key.publicKey) })
    .setIssuedAt()
    .sign(key.privateKey);
}

/** A new key pair for DPoP (ES256 by default; the public key is exportable). */
export async function generateDpopKey(alg = 'ES256'): Promise<DpopKeyPair> {
  return generateKeyPair(alg, { extractable: false });
}

/** A key pair from a private JWK (as stored in a key file); the algorithm from `alg`, else from the key type. */
export async function importDpopKey(jwk: JWK): Promise<DpopKeyPair> {
  if (!jwk.d) throw new Error('the JWK holds no private key ("d")');
  const alg = jwk.alg ?? (jwk.kty === 'EC' ? ({ 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' } as Record<string, string>)[jwk.crv ?? ''] : jwk.kty === 'OKP' ? 'EdDSA' : 'RS256');
  if (!alg) throw new Error(`cannot tell the algorithm of a key of type (kty) ${jwk.kty}`);
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = jwk;
  return { privateKey: (await importJWK(jwk, alg)) as CryptoKey, publicKey: (await importJWK(publicJwk, alg)) as CryptoKey };
}

/** The RFC 7638 thumbprint of the key's public half: what a bound token's `cnf.jkt` names. */
export async function dpopThumbprint(key: DpopKeyPair | CryptoKey): Promise<string> {
  return calculateJwkThumbprint(await publicJwkOf('publicKey' in key ? key.publicKey : key));
}
