import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';

/**
 * ulid's default PRNG draws one crypto.randomFillSync per character: 16
 * system calls per id, 8% of a request's CPU in the benchmark profile. This
 * one serves the same cryptographic randomness from a pooled buffer.
 */
const pool = Buffer.alloc(4096);
let offset = pool.length;
function pooledRandom(): number {
  if (offset + 4 > pool.length) {
    randomBytes(pool.length).copy(pool);
    offset = 0;
  }
  const value = pool.readUInt32BE(offset) / 0x1_0000_0000;
  offset += 4;
  return value;
}

/** `req_` and a ULID: sortable by time, matching the contract's RequestId pattern. */
export function newRequestId(): string {
  return `req_${ulid(undefined, pooledRandom)}`;
}

/** A prefixed ULID id (`agp_`, `mat_`, `a_`): the contract's id patterns start with [0-7], which a ULID's first character always is. */
export function newPrefixedId(prefix: string): string {
  return `${prefix}${ulid(undefined, pooledRandom)}`;
}
