/**
 * DPoP proof checks (RFC 9449) for sender-constrained agent tokens: compact
 * JWS, `typ` dpop+jwt, an asymmetric algorithm from the allow-list, a public
 * JWK in the header, `htm` and `htu` (no query) naming this request, `iat`
 * inside the window, `jti` never seen before, `ath` matching the token, the
 * key's thumbprint matching the token's `cnf.jkt`, and a server nonce when
 * one is demanded.
 */
import { createHmac, hash, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { authentication } from '@gateway-minds/contract';
import { ServiceError } from '@gateway-minds/service-kit';

/** The contract's list, also sent as the DPoP challenge's `algs`: `EdDSA` and its fully specified name `Ed25519` (RFC 9864) both. */
const ALLOWED_ALGORITHMS: readonly string[] = authentication.dpopAlgorithms;
const NONCE_WINDOW_MS = 5 * 60 * 1000;

/** Remembers proof ids until they could no longer pass the iat window. */
export interface ReplayStore {
  /** True the first time a jti is seen within its lifetime, false on a replay; StoreUnavailableError when the store does not answer. */
  claim(jti: string, ttlSeconds: number): Promise<boolean>;
}

/**
 * A shared store did not answer (unreachable, disconnected, past its deadline), as opposed to a
 * call it refused as wrong, which stays a bug (500).
 */
export class StoreUnavailableError extends Error {
  constructor(store: string, cause: unknown) {
    super(`${store} unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}

export class MemoryReplayStore implements ReplayStore {
  private readonly seen = new Map<string, number>();
  async claim(jti: string, ttlSeconds: number): Promise<boolean> {
    const now = Date.now();
    if (this.seen.size > 50_000) for (const [key, until] of this.seen) if (until < now) this.seen.delete(key);
    const until = this.seen.get(jti);
    if (until && until > now) return false;
    this.seen.set(jti, now + ttlSeconds * 1000);
    return true;
  }
}

/**
 * The secret nonces are derived from. Every gateway of a deployment must read the same one, or a
 * nonce one issues is refused by the others (stores.ts keeps it in the shared store).
 */
export type NonceSecret = () => Promise<Uint8Array>; // StoreUnavailableError as ReplayStore.claim

/** For a gateway that shares nothing (RATE_LIMIT_STORE=memory): a secret of its own. */
export function processNonceSecret(): NonceSecret {
  const secret = randomBytes(32);
  return async () => secret;
}

/** The shared store of proofs or of the nonce secret did not answer: the proof is neither accepted nor refused. */
function storeUnavailable(): ServiceError {
  return new ServiceError('AUTH_UNAVAILABLE', 'The DPoP proof could not be checked: the shared store did not answer. Retry with a fresh proof.', {
    reason: 'replay_store_unavailable',
  });
}

export interface DpopRequest {
  proof: string | undefined;
  /** The htm values the proof may carry: the operation's (x-dpop-htm), and for HEAD the request's own. */
  methods: readonly string[];
  /** This request's URL without query or fragment. */
  url: string;
  accessToken: string;
  /** The token's cnf.jkt binding. */
  jkt: string;
}

export class DpopVerifier {
  constructor(
    private readonly options: { requireNonce: boolean; iatWindowSeconds: number; replay: ReplayStore; nonceSecret: NonceSecret },
  ) {}

  /** The nonce clients are told to use now (stateless: an HMAC of the time window under the shared secret). */
  async currentNonce(now = Date.now()): Promise<string> {
    return nonceFor(await this.secret(), Math.floor(now / NONCE_WINDOW_MS));
  }

  private async nonceIsFresh(nonce: unknown): Promise<boolean> {
    if (typeof nonce !== 'string') return false;
    const secret = await this.secret();
    const window = Math.floor(Date.now() / NONCE_WINDOW_MS);
    return nonce === nonceFor(secret, window) || nonce === nonceFor(secret, window - 1);
  }

  private async secret(): Promise<Uint8Array> {
    try {
      return await this.options.nonceSecret();
    } catch (error) {
      throw error instanceof StoreUnavailableError ? storeUnavailable() : error;
    }
  }

  private async claim(key: string, ttlSeconds: number): Promise<boolean> {
    try {
      return await this.options.replay.claim(key, ttlSeconds);
    } catch (error) {
      throw error instanceof StoreUnavailableError ? storeUnavailable() : error;
    }
  }

  async verify(request: DpopRequest): Promise<void> {
    const { proof } = request;
    if (!proof) throw new ServiceError('DPOP_REQUIRED', 'This sender-constrained token needs a DPoP proof in the dpop header.');
    if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(proof)) {
      throw new ServiceError('DPOP_INVALID', 'The dpop header is not a compact JWS.');
    }
    const mismatch = (why: string) => new ServiceError('INVALID_DPOP', `The DPoP proof ${why}.`, { reason: 'dpop_mismatch' });

    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(proof);
    } catch {
      throw new ServiceError('DPOP_INVALID', 'The dpop header is not a compact JWS.');
    }
    if (header.typ !== 'dpop+jwt') throw mismatch('is not typed dpop+jwt');
    if (!header.alg || !ALLOWED_ALGORITHMS.includes(header.alg)) throw mismatch('uses an algorithm that is not allowed');
    const jwk = header.jwk as JWK | undefined;
    if (!jwk || typeof jwk !== 'object' || 'd' in jwk || 'k' in jwk) throw mismatch('does not carry a public JWK');

    let payload: Record<string, unknown>;
    try {
      const key = await importJWK(jwk, header.alg);
      ({ payload } = await jwtVerify(proof, key, { typ: 'dpop+jwt', algorithms: [header.alg] }));
    } catch {
      throw mismatch('signature does not verify');
    }

    if ((await calculateJwkThumbprint(jwk, 'sha256')) !== request.jkt) throw mismatch('key is not the one the token is bound to');
    if (typeof payload.htm !== 'string' || !request.methods.includes(payload.htm)) throw mismatch(`htm is not ${request.methods.join(' or ')}`);
    if (typeof payload.htu !== 'string' || normalizeUrl(payload.htu) !== normalizeUrl(request.url)) throw mismatch('htu does not name this request');
    const now = Math.floor(Date.now() / 1000);
    const window = this.options.iatWindowSeconds;
    if (typeof payload.iat !== 'number' || Math.abs(now - payload.iat) > window) throw mismatch('iat is outside the accepted window');
    const ath = hash('sha256', request.accessToken, 'base64url');
    if (payload.ath !== ath) throw mismatch('ath does not match the token');
    if (this.options.requireNonce && !(await this.nonceIsFresh(payload.nonce))) {
      throw new ServiceError('DPOP_NONCE_REQUIRED', 'Sign a fresh proof with the nonce from the dpop-nonce header and send it once more.', {
        headers: { 'dpop-nonce': await this.currentNonce() },
      });
    }
    if (typeof payload.jti !== 'string' || payload.jti.length < 8) throw mismatch('has no usable jti');
    if (!(await this.claim(`${request.jkt}:${payload.jti}`, window * 2 + 5))) throw mismatch('was already used (jti replay)');
  }
}

function nonceFor(secret: Uint8Array, window: number): string {
  return createHmac('sha256', secret).update(String(window)).digest('base64url');
}

/** Scheme and host compared case-insensitively, default ports dropped, no query or fragment. */
function normalizeUrl(value: string): string {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname}`; // URL already lower-cases scheme and host, drops default ports
  } catch {
    return `invalid:${value}`;
  }
}
