import { ulid } from 'ulid';

/** `req_` and a ULID: sortable by time, matching the contract's RequestId pattern. */
export function newRequestId(): string {
  return `req_${ulid()}`;
}

/** A prefixed ULID id (`agp_`, `mat_`, `a_`): the contract's id patterns start with [0-7], which a ULID's first character always is. */
export function newPrefixedId(prefix: string): string {
  return `${prefix}${ulid()}`;
}
