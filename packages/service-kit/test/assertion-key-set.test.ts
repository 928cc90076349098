/**
 * The trusted key set of a service (spec/DECISIONS.md, "Assertion keys and their rotation"):
 * assertions carry their key's id, the set picks the key by it, and a key file is re-read when
 * it changes, so that a rotation needs no restart and refuses no call signed with a trusted key.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, decodeProtectedHeader, type JWK } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AssertionKeySet,
  createAssertionSigner,
  generateAssertionKeys,
  readAssertionSigningKey,
  verifyAssertion,
  type AssertionSigningKey,
  type VerifiedPrincipal,
} from '../src/index.js';

const principal: VerifiedPrincipal = {
  credentialId: 'cred_1', kind: 'bridge_session', principal: 'usr_1', org: 'org_1', project: 'prj_1',
  workspace: null, sandbox: 'sbx_1', scopes: [], originalSession: true, agentId: null,
};
const dir = mkdtempSync(join(tmpdir(), 'assertion-key-set-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function newKey(): Promise<{ signing: AssertionSigningKey; publicJwk: JWK }> {
  const pair = await generateAssertionKeys();
  const signing = (await readAssertionSigningKey({ jwk: JSON.stringify(pair.privateJwk) }))!;
  return { signing, publicJwk: pair.publicJwk };
}
const signWith = (key: Pick<AssertionSigningKey, 'key' | 'kid'>) => createAssertionSigner(key)(principal, 'minds', 'req_1');
/** Written whole and renamed into place, as a deployer (or a secret mount) replaces a file. */
function writeKeys(file: string, keys: JWK[]): void {
  writeFileSync(`${file}.next`, JSON.stringify({ keys }));
  renameSync(`${file}.next`, file);
}

describe('assertion key ids', () => {
  it('an assertion carries its key id: the RFC 7638 thumbprint, or the JWK\'s own kid', async () => {
    const { signing, publicJwk } = await newKey();
    expect(signing.kid).toBe(await calculateJwkThumbprint(publicJwk, 'sha256'));
    expect(decodeProtectedHeader(await signWith(signing)).kid).toBe(signing.kid);
    const pair = await generateAssertionKeys();
    const named = await readAssertionSigningKey({ jwk: JSON.stringify({ ...pair.privateJwk, kid: 'gateway-2026-11' }) });
    expect(decodeProtectedHeader(await signWith(named!)).kid).toBe('gateway-2026-11');
  });

  it('refuses a signing key that is not a private Ed25519 JWK, naming the setting', async () => {
    const { publicJwk } = await newKey();
    await expect(readAssertionSigningKey({ jwk: JSON.stringify(publicJwk) })).rejects.toThrow(/ASSERTION_PRIVATE_KEY.*private Ed25519/);
    await expect(readAssertionSigningKey({ jwk: '{not json' })).rejects.toThrow(/ASSERTION_PRIVATE_KEY is not JSON/);
  });
});

describe('trusted key set', () => {
  it('accepts an assertion signed by any key of the set, picked by kid, and refuses one from a key outside it', async () => {
    const [a, b, stranger] = [await newKey(), await newKey(), await newKey()];
    const set = await AssertionKeySet.open({ jwks: { keys: [a.publicJwk, b.publicJwk] } });
    expect(set.kids().sort()).toEqual([a.signing.kid, b.signing.kid].sort());
    expect((await verifyAssertion(set, await signWith(a.signing), 'minds')).principal).toEqual(principal);
    expect((await verifyAssertion(set, await signWith(b.signing), 'minds')).principal).toEqual(principal);
    await expect(verifyAssertion(set, await signWith(stranger.signing), 'minds')).rejects.toThrow();
    // A stranger's assertion that names a trusted kid is still checked against that key's signature.
    const impostor = await signWith({ key: stranger.signing.key, kid: a.signing.kid });
    await expect(verifyAssertion(set, impostor, 'minds')).rejects.toThrow();
  });

  it('refuses at start a set holding a private key, an empty set, or a repeated kid', async () => {
    const pair = await generateAssertionKeys();
    await expect(AssertionKeySet.open({ jwks: { keys: [pair.privateJwk] }, setting: 'ASSERTION_PUBLIC_KEYS' })).rejects.toThrow(/ASSERTION_PUBLIC_KEYS.*private key/);
    await expect(AssertionKeySet.open({ jwks: { keys: [] }, setting: 'ASSERTION_PUBLIC_KEYS' })).rejects.toThrow(/empty/);
    await expect(AssertionKeySet.open({ jwks: { keys: [pair.publicJwk, pair.publicJwk] } })).rejects.toThrow(/appears twice/);
    await expect(AssertionKeySet.open({ file: join(dir, 'absent.json'), setting: 'ASSERTION_PUBLIC_KEYS_FILE' })).rejects.toThrow(/ASSERTION_PUBLIC_KEYS_FILE/);
  });

  it('a key file: a newly added key is trusted from its first assertion, a removed one refused once the file is re-read', async () => {
    const [old, next] = [await newKey(), await newKey()];
    const file = join(dir, 'rotation.jwks.json');
    writeKeys(file, [old.publicJwk]);
    const set = await AssertionKeySet.open({ file });
    try {
      writeKeys(file, [old.publicJwk, next.publicJwk]);
      // No wait: a kid the set lacks makes it look at the file before refusing.
      expect((await verifyAssertion(set, await signWith(next.signing), 'minds')).principal).toEqual(principal);
      writeKeys(file, [next.publicJwk]);
      // Its once-a-second look may come first; either way the set is the file's now.
      await set.refresh();
      expect(set.kids()).toEqual([next.signing.kid]);
      await expect(verifyAssertion(set, await signWith(old.signing), 'minds')).rejects.toThrow();
    } finally {
      set.close();
    }
  });

  it('a key file that turns invalid while running keeps the last good set', async () => {
    const key = await newKey();
    const file = join(dir, 'invalid.jwks.json');
    writeKeys(file, [key.publicJwk]);
    const set = await AssertionKeySet.open({ file });
    try {
      writeFileSync(file, '{"keys": [');
      await set.refresh();
      expect(set.kids()).toEqual([key.signing.kid]);
      expect((await verifyAssertion(set, await signWith(key.signing), 'minds')).principal).toEqual(principal);
    } finally {
      set.close();
    }
  });

  it('reads the older single-key file (one public JWK without a kid) as a set of one', async () => {
    const key = await newKey();
    const file = join(dir, 'single.jwk.json');
    writeFileSync(file, JSON.stringify(key.publicJwk));
    const set = await AssertionKeySet.open({ file, setting: 'ASSERTION_PUBLIC_KEY_FILE' });
    try {
      expect(set.kids()).toEqual([key.signing.kid]);
      expect((await verifyAssertion(set, await signWith(key.signing), 'minds')).principal).toEqual(principal);
    } finally {
      set.close();
    }
  });
});
