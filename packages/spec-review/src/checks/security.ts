/**
 * Security: which credentials an operation accepts (its `security`, or the document's), and the
 * security schemes in components. oasdiff levels every security change info; this repository's
 * review re-levels the ones that turn a working client away (see scripts/spec-history).
 */
import { list, resolve, show, type Change, type Doc, type Json } from '../model.js';
import { emit } from '../scope.js';

function securityOf(operation: Json, doc: Doc): Map<string, Set<string>>[] | undefined {
  const security = (operation.security ?? doc.security) as Record<string, string[]>[] | undefined;
  return security?.map((requirement) => new Map(Object.entries(requirement).map(([scheme, scopes]) => [scheme, new Set(scopes)])));
}

export function compareOperationSecurity(baseDoc: Doc, headDoc: Doc, b: Json, h: Json, out: Change[], pointer: string): void {
  const at = h.security !== undefined ? `${pointer}/security` : headDoc.security !== undefined ? '/security' : pointer;
  const add = (id: string, message: string) => emit(out, id, 'security', message, at);
  const bSec = securityOf(b, baseDoc);
  const hSec = securityOf(h, headDoc);
  const bOpen = !bSec || bSec.length === 0 || bSec.some((r) => r.size === 0);
  const hOpen = !hSec || hSec.length === 0 || hSec.some((r) => r.size === 0);
  if (bOpen && !hOpen) add('api-security-added', 'now needs a credential');
  else if (!bOpen && hOpen) add('api-security-removed', 'no longer needs a credential');
  else if (!bOpen && !hOpen) {
    for (const requirement of bSec!) {
      const schemes = [...requirement.keys()];
      const match = hSec!.find((r) => schemes.every((s) => r.has(s)));
      if (!match) {
        add('api-security-scheme-removed', `no longer accepts ${schemes.map((s) => `\`${s}\``).join(' + ')} credentials`);
        continue;
      }
      for (const scheme of schemes) {
        const newScopes = [...match.get(scheme)!].filter((s) => !requirement.get(scheme)!.has(s));
        if (newScopes.length) add('api-security-scope-added', `\`${scheme}\` now needs scope ${list(newScopes)}`);
        const dropped = [...requirement.get(scheme)!].filter((s) => !match.get(scheme)!.has(s));
        if (dropped.length) add('api-security-scope-removed', `\`${scheme}\` no longer needs scope ${list(dropped)}`);
      }
    }
    for (const requirement of hSec!) {
      if (!bSec!.some((r) => [...requirement.keys()].every((s) => r.has(s)))) add('api-security-scheme-added', `also accepts ${[...requirement.keys()].map((s) => `\`${s}\``).join(' + ')} credentials`);
    }
  }
}

export function compareSecuritySchemes(base: Doc, head: Doc, out: Change[]): void {
  const bSchemes = (base.components?.securitySchemes ?? {}) as Json;
  const hSchemes = (head.components?.securitySchemes ?? {}) as Json;
  for (const [name, scheme] of Object.entries(bSchemes)) {
    const pointer = `/components/securitySchemes/${name}`;
    const now = hSchemes[name];
    if (!now) {
      emit(out, 'api-security-component-removed', `security scheme \`${name}\``, 'removed', pointer, 'base');
      continue;
    }
    const before = resolve(base, scheme) ?? {};
    const after = resolve(head, now) ?? {};
    for (const field of ['type', 'scheme', 'in', 'name', 'bearerFormat', 'openIdConnectUrl', 'flows', 'x-credential-kind']) {
      if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) {
        emit(out, 'api-security-component-changed', `security scheme \`${name}\``, `${field} changed ${show(before[field] ?? null)} → ${show(after[field] ?? null)}`, after[field] === undefined ? pointer : `${pointer}/${field}`);
      }
    }
  }
  for (const name of Object.keys(hSchemes)) if (!(name in bSchemes)) emit(out, 'api-security-component-added', `security scheme \`${name}\``, 'added', `/components/securitySchemes/${name}`);
}
