import { describe, expect, it } from 'vitest';
import { generateAssertionKeys, importAssertionKey, signAssertion, verifyAssertion, type VerifiedPrincipal } from '../src/assertion.js';

const principal: VerifiedPrincipal = {
  credentialId: 'cred_1', kind: 'bridge_session', principal: 'usr_1', org: 'org_1', project: 'prj_1',
  workspace: 'wsp_1', sandbox: 'sbx_1', scopes: ['minds:read'], originalSession: true, agentId: null,
};

describe('gateway assertion', () => {
  it('round-trips the verified principal for its audience', async () => {
    const keys = await generateAssertionKeys();
    const token = await signAssertion(await importAssertionKey(keys.privateJwk), principal, { audience: 'minds', requestId: 'req_1' });
    const verified = await verifyAssertion(await importAssertionKey(keys.publicJwk), token, 'minds');
    expect(verified).toEqual({ principal, requestId: 'req_1', expiresAt: expect.any(Number) });
  });

  it('is refused for another audience, another key, after expiry, or when tampered with', async () => {
    const keys = await generateAssertionKeys();
    const other = await generateAssertionKeys();
    const privateKey = await importAssertionKey(keys.privateJwk);
    const publicKey = await importAssertionKey(keys.publicJwk);
    const token = await signAssertion(privateKey, principal, { audience: 'minds', requestId: 'req_1' });
    await expect(verifyAssertion(publicKey, token, 'billing')).rejects.toThrow();
    await expect(verifyAssertion(await importAssertionKey(other.publicJwk), token, 'minds')).rejects.toThrow();
    const expired = await signAssertion(privateKey, principal, { audience: 'minds', requestId: 'req_1', ttlSeconds: -30 });
    await expect(verifyAssertion(publicKey, expired, 'minds')).rejects.toThrow();
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), principal: { ...principal, org: 'org_2' } })).toString('base64url');
    await expect(verifyAssertion(publicKey, `${header}.${forged}.${signature}`, 'minds')).rejects.toThrow();
  });
});

describe('assertion signer', () => {
  it('reuses an assertion per principal and audience, and signs anew for another', async () => {
    const { createAssertionSigner } = await import('../src/assertion.js');
    const keys = await generateAssertionKeys();
    const sign = createAssertionSigner({ key: await importAssertionKey(keys.privateJwk), kid: 'k1' });
    const first = await sign(principal, 'minds', 'req_1');
    expect(await sign(principal, 'minds', 'req_2')).toBe(first);
    expect(await sign({ ...principal, org: 'org_2' }, 'minds', 'req_3')).not.toBe(first);
    expect(await sign(principal, 'billing', 'req_4')).not.toBe(first);
    const verified = await verifyAssertion(await importAssertionKey(keys.publicJwk), first, 'minds');
    expect(verified.principal).toEqual(principal);
  });
});
