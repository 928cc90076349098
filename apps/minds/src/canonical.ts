import { hash } from 'node:crypto';

/** JSON with object keys sorted at every level and no whitespace: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/**
 * `context_sha256`: the fingerprint of the verified human selection, sha256 (hex) of the
 * canonical JSON of {org, project, workspace, sandbox}. It grants nothing: creation only
 * checks that the caller asserts the selection it is verified for.
 */
export function contextSha256(selection: { org: string; project: string; workspace: string | null; sandbox: string }): string {
  return sha256Hex(canonicalJson({ org: selection.org, project: selection.project, workspace: selection.workspace, sandbox: selection.sandbox }));
}
