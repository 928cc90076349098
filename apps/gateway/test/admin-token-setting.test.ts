/**
 * The admin token as a setting (spec/DECISIONS.md, "Administration of several gateways"): every
 * gateway of a deployment can take the one token from ADMIN_TOKEN instead of its own file, and a
 * token too short to be a secret is refused at start rather than guarded by.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, MIN_ADMIN_TOKEN_LENGTH } from '../src/config.js';

describe('ADMIN_TOKEN', () => {
  it('is the admin token when set, trimmed; unset, the gateway keeps its own in ADMIN_TOKEN_FILE', () => {
    const token = `adm_${'a'.repeat(MIN_ADMIN_TOKEN_LENGTH)}`;
    expect(loadConfig({ ADMIN_TOKEN: ` ${token}\n` }).adminToken).toBe(token);
    expect(loadConfig({ ADMIN_TOKEN: '' }).adminToken).toBeUndefined();
    expect(loadConfig({}).adminToken).toBeUndefined();
  });

  it('refuses a token shorter than the generated ones, or with spaces in it', () => {
    expect(() => loadConfig({ ADMIN_TOKEN: 'a'.repeat(MIN_ADMIN_TOKEN_LENGTH - 1) })).toThrow(/ADMIN_TOKEN must be at least 32 characters/);
    expect(() => loadConfig({ ADMIN_TOKEN: `${'a'.repeat(MIN_ADMIN_TOKEN_LENGTH)} b` })).toThrow(/without spaces/);
  });
});
