/**
 * The keys a service accepts gateway assertions from: a JWK Set, each key found by the `kid` of
 * the assertion's header (jose's createLocalJWKSet), so that during a rotation the old and the new
 * gateway key are both trusted and neither gateway's calls are refused.
 *
 * From a setting holding the set itself (fixed until a restart) or from a file, which is re-read
 * when it changes (its size, times or inode, so an atomic rename counts): looked at once a second,
 * so a removed key stops being trusted within about a second, and at once when an assertion
 * names a kid the set lacks, so the first call signed with a newly added key is not refused.
 * A file that cannot be read or holds no valid set while running keeps the last good set (and
 * says so in the log); at start it is an error.
 */
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from 'jose';
import { assertionKeyId } from './assertion.js';
import type { Logger } from './logger.js';

/** Where a service's trusted keys come from. `setting` names it in messages. */
export type AssertionKeySource = { file: string; setting?: string } | { jwks: unknown; setting?: string };

/**
 * The trusted key set the settings name: ASSERTION_PUBLIC_KEYS (the JWK Set's JSON) or
 * ASSERTION_PUBLIC_KEYS_FILE (a file holding it); undefined when neither is set. Both at once is
 * a mistake: which one would win is not obvious.
 */
export function assertionKeySourceFromEnv(env: Record<string, string | undefined>): AssertionKeySource | undefined {
  if (env.ASSERTION_PUBLIC_KEYS && env.ASSERTION_PUBLIC_KEYS_FILE) throw new Error('set ASSERTION_PUBLIC_KEYS or ASSERTION_PUBLIC_KEYS_FILE, not both');
  if (env.ASSERTION_PUBLIC_KEYS) {
    try {
      return { jwks: JSON.parse(env.ASSERTION_PUBLIC_KEYS) as unknown, setting: 'ASSERTION_PUBLIC_KEYS' };
    } catch (error) {
      throw new Error(`ASSERTION_PUBLIC_KEYS is not JSON (it holds the JWK Set itself, {"keys": [...]}): ${(error as Error).message}`);
    }
  }
  if (env.ASSERTION_PUBLIC_KEYS_FILE) return { file: resolve(env.ASSERTION_PUBLIC_KEYS_FILE), setting: 'ASSERTION_PUBLIC_KEYS_FILE' };
  return undefined;
}

/** How often a key file is looked at for a change. */
export const ASSERTION_KEY_FILE_CHECK_MS = 1000;

interface Loaded {
  kids: string[];
  getKey: JWTVerifyGetKey;
}

/**
 * A JWK Set `{"keys": [...]}` (or one JWK, the older single-key file) of public Ed25519 keys, each
 * given its kid (assertionKeyId) so that the set finds it by the header's. A private key, another
 * key type, a repeated kid or an empty set is refused: each is a deployer's mistake that would
 * otherwise surface as refused calls.
 */
export async function trustedKeySetOf(value: unknown, origin: string): Promise<{ jwks: JSONWebKeySet; kids: string[] }> {
  const keys = value && typeof value === 'object' && Array.isArray((value as { keys?: unknown }).keys) ? ((value as { keys: unknown[] }).keys) : [value];
  if (keys.length === 0) throw new Error(`${origin}: the trusted key set is empty; it must hold the gateway's public key`);
  const normalized: JWK[] = [];
  for (const [index, key] of keys.entries()) {
    const jwk = key as JWK;
    const which = keys.length > 1 ? ` (key ${index})` : '';
    if (!jwk || typeof jwk !== 'object' || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') {
      throw new Error(`${origin}${which}: a trusted key must be a public Ed25519 JWK (kty OKP, crv Ed25519, x)`);
    }
    if ('d' in jwk) throw new Error(`${origin}${which}: holds a private key; give only its public half (drop "d")`);
    if (jwk.alg !== undefined && jwk.alg !== 'EdDSA') throw new Error(`${origin}${which}: alg must be EdDSA or absent, got ${JSON.stringify(jwk.alg)}`);
    normalized.push({ ...jwk, kid: await assertionKeyId(jwk) });
  }
  const kids = normalized.map((jwk) => jwk.kid!);
  const repeated = kids.find((kid, index) => kids.indexOf(kid) !== index);
  if (repeated) throw new Error(`${origin}: the key id ${repeated} appears twice`);
  return { jwks: { keys: normalized }, kids };
}

function signatureOf(stats: { size: number; mtimeMs: number; ctimeMs: number; ino: number }): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}`;
}

export class AssertionKeySet {
  /** Goes up on every change of the set, so a cache of verified assertions can tell it is stale. */
  generation = 0;
  private loaded: Loaded;
  private fileSignature: string | undefined;
  private checking: Promise<boolean> | undefined;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly source: AssertionKeySource,
    first: Loaded,
    private readonly logger: Logger | undefined,
    private readonly alsoTrusted: JWK[],
  ) {
    this.loaded = first;
  }

  /**
   * The set from `source`; throws, naming the setting, when it is unreadable or not a valid set.
   * `alsoTrusted`: keys trusted whatever the source holds (a gateway's own public key).
   */
  static async open(source: AssertionKeySource, logger?: Logger, alsoTrusted: JWK[] = []): Promise<AssertionKeySet> {
    const origin = AssertionKeySet.originOf(source);
    let signature: string | undefined;
    let value: unknown;
    if ('file' in source) {
      try {
        signature = signatureOf(await stat(source.file));
        value = JSON.parse(readFileSync(source.file, 'utf8'));
      } catch (error) {
        throw new Error(`cannot read the gateway's assertion public keys from ${origin}: ${(error as Error).message}`);
      }
    } else {
      value = source.jwks;
    }
    const set = new AssertionKeySet(source, await AssertionKeySet.load(await trustedKeySetOf(value, origin), alsoTrusted), logger, alsoTrusted);
    if ('file' in source) {
      set.fileSignature = signature;
      set.timer = setInterval(() => void set.refresh(), ASSERTION_KEY_FILE_CHECK_MS);
      set.timer.unref();
    }
    return set;
  }

  private static originOf(source: AssertionKeySource): string {
    return 'file' in source ? `${source.file}${source.setting ? ` (${source.setting})` : ''}` : (source.setting ?? 'the trusted key set');
  }

  private static async load(set: { jwks: JSONWebKeySet; kids: string[] }, alsoTrusted: JWK[]): Promise<Loaded> {
    const keys = [...set.jwks.keys];
    for (const jwk of alsoTrusted) {
      const kid = await assertionKeyId(jwk);
      if (!set.kids.includes(kid)) keys.push({ ...jwk, kid });
    }
    return { kids: keys.map((jwk) => jwk.kid!), getKey: createLocalJWKSet({ keys }) };
  }

  /** The ids of the keys trusted now. */
  kids(): string[] {
    return [...this.loaded.kids];
  }

  /** jose's key lookup; a kid the set lacks makes it look at the file once before refusing. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    try {
      return await this.loaded.getKey(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey && (await this.refresh())) return this.loaded.getKey(header, token);
      throw error;
    }
  };

  /** Re-reads the file if it changed; true when the set changed. A fixed set never changes. */
  refresh(): Promise<boolean> {
    if (!('file' in this.source)) return Promise.resolve(false);
    this.checking ??= this.reread(this.source.file).finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async reread(file: string): Promise<boolean> {
    let signature: string;
    try {
      signature = signatureOf(await stat(file));
    } catch (error) {
      this.warnOnce(`missing:${(error as Error).message}`, { file, err: (error as Error).message }, 'the assertion key file cannot be read; keeping the keys trusted until now');
      return false;
    }
    if (signature === this.fileSignature) return false;
    try {
      const next = await trustedKeySetOf(JSON.parse(readFileSync(file, 'utf8')), AssertionKeySet.originOf(this.source));
      const before = this.loaded.kids;
      this.loaded = await AssertionKeySet.load(next, this.alsoTrusted);
      this.fileSignature = signature;
      this.generation++;
      const now = this.loaded.kids;
      this.logger?.info({ file, kids: now, added: now.filter((k) => !before.includes(k)), removed: before.filter((k) => !now.includes(k)) }, 'assertion key set re-read');
      return true;
    } catch (error) {
      // A half-written file reads as invalid; the next look (a second later) tries again.
      this.warnOnce(signature, { file, err: (error as Error).message }, 'the assertion key file holds no valid key set; keeping the keys trusted until now');
      return false;
    }
  }

  private warned: string | undefined;
  private warnOnce(about: string, details: object, message: string): void {
    if (this.warned === about) return;
    this.warned = about;
    this.logger?.warn(details, message);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
