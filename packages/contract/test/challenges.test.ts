/**
 * The contract says what RFC 9110 §15.5.2 requires of a 401 ("The server
 * generating a 401 response MUST send a WWW-Authenticate header field"): every
 * 401 response declares the header as required, and every 401 code in the
 * catalog names its challenge (spec/DECISIONS.md, "WWW-Authenticate on every 401").
 */
import { expect, it } from 'vitest';
import { authentication, errorCatalog, errorCodes } from '../src/index.js';
import { dereferenced } from './support/spec.js';
import { httpMethods } from '../src/document-types.js';

it('every 401 response declares a required WWW-Authenticate header', () => {
  const missing: string[] = [];
  let seen = 0;
  for (const [path, item] of Object.entries(dereferenced.paths)) {
    for (const method of httpMethods) {
      const response = item[method]?.responses['401'] as { headers?: Record<string, { required?: boolean }> } | undefined;
      if (!response) continue;
      seen++;
      if (response.headers?.['WWW-Authenticate']?.required !== true) missing.push(`${method.toUpperCase()} ${path}`);
    }
  }
  expect(seen).toBeGreaterThan(0);
  expect(missing).toEqual([]);
});

it('every 401 code names its challenge (RFC 6750 §3.1 and RFC 9449 §7.1 error values), and no other code does', () => {
  const allowed = { Bearer: [null, 'invalid_request', 'invalid_token'], DPoP: [null, 'invalid_token', 'invalid_dpop_proof', 'use_dpop_nonce'] };
  for (const code of errorCodes) {
    const { status, challenge } = errorCatalog[code];
    expect({ code, challenged: challenge !== null }).toEqual({ code, challenged: status === 401 });
    if (challenge) expect(allowed[challenge.scheme], code).toContain(challenge.error);
  }
  // The nonce code's challenge is the one RFC 9449 §9 shows.
  expect(errorCatalog.DPOP_NONCE_REQUIRED.challenge).toEqual({ scheme: 'DPoP', error: 'use_dpop_nonce' });
});

it('the realm and the DPoP algorithms are plain tokens a challenge can quote', () => {
  expect(authentication.realm).toMatch(/^[a-z][a-z0-9-]*$/);
  // EdDSA and its fully specified name Ed25519 (RFC 9449 §7.1 algs; DECISIONS "The DPoP authorization scheme and Ed25519").
  expect(authentication.dpopAlgorithms).toEqual(expect.arrayContaining(['ES256', 'EdDSA', 'Ed25519']));
  expect(authentication.dpopAlgorithms).not.toContain('none');
});
