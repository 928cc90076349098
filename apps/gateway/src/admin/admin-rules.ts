/**
 * What the admin API accepts and where a running gateway's admin listener is:
 * shared by the admin API (which enforces it) and the admin command (which
 * says so before sending). Light on purpose: the command loads only this and
 * the contract.
 */
import { dirname, join } from 'node:path';
import { credentialSchemes, operationTable, type OperationFacts } from '@gateway-minds/contract';
import type { CredentialKind } from '@gateway-minds/service-kit/assertion';

/** Every scope an operation asks of a credential kind's scheme: a new credential of that kind gets them by default. */
export function defaultScopes(kind: CredentialKind): string[] {
  const scheme = credentialSchemes[kind].scheme;
  const scopes = new Set<string>();
  for (const operation of Object.values(operationTable) as OperationFacts[]) {
    for (const requirement of operation.security) if (requirement.scheme === scheme) requirement.scopes.forEach((s) => scopes.add(s));
  }
  return [...scopes].sort();
}

/** Every scope any operation of the contract asks for: the only scopes a credential can usefully carry. */
export function knownScopes(): string[] {
  const scopes = new Set<string>();
  for (const operation of Object.values(operationTable) as OperationFacts[]) {
    for (const requirement of operation.security) requirement.scopes.forEach((s) => scopes.add(s));
  }
  return [...scopes].sort();
}

/** The scopes of a list that the contract does not know (empty when all are known). */
export function unknownScopes(scopes: readonly unknown[]): string[] {
  const known = new Set(knownScopes());
  return scopes.filter((s) => typeof s !== 'string' || !known.has(s)).map(String);
}

/**
 * An RFC 7638 JWK thumbprint as RFC 9449 binds a token with (`cnf.jkt`): the
 * base64url encoding, without padding, of a SHA-256 digest (32 bytes), so
 * exactly 43 characters of the base64url alphabet.
 */
export function isJwkThumbprint(value: unknown): value is string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(value)) return false;
  // 43 characters carry 258 bits: the canonical encoding of 32 bytes leaves the last two zero.
  return Buffer.from(value, 'base64url').toString('base64url') === value;
}

export const JWK_THUMBPRINT_RULE = 'an RFC 7638 JWK SHA-256 thumbprint (43 base64url characters)';

/** The file beside the admin token where a running gateway writes its admin listener's URL. */
export function adminUrlFile(adminTokenFile: string): string {
  return join(dirname(adminTokenFile), 'admin-url');
}
