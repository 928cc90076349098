/**
 * This repository's error catalog, kept as `components.schemas.ErrorCode` (a oneOf of consts with
 * `x-` facts: status, type, fields, retry, reasons). Compared as a catalog (at document level),
 * not as an enum in every error response.
 */
import { isObject, list, plural, show, type Change, type Doc, type Json } from '../model.js';
import { emit } from '../scope.js';

type CatalogEntry = Record<string, unknown>;

export function catalogOf(doc: Doc): Map<string, { facts: CatalogEntry; index: number }> | undefined {
  const schema = doc.components?.schemas?.ErrorCode;
  if (!isObject(schema) || !Array.isArray(schema.oneOf)) return undefined;
  const entries = new Map<string, { facts: CatalogEntry; index: number }>();
  schema.oneOf.forEach((entry, index) => {
    if (!isObject(entry) || typeof entry.const !== 'string') return;
    entries.set(entry.const, { facts: Object.fromEntries(Object.entries(entry).filter(([k]) => k.startsWith('x-'))), index });
  });
  return entries;
}

export function compareErrorCatalog(base: Doc, head: Doc, out: Change[]): void {
  const bCatalog = catalogOf(base);
  const hCatalog = catalogOf(head);
  if (!bCatalog || !hCatalog) return;
  const at = (index: number, fact?: string) => `/components/schemas/ErrorCode/oneOf/${index}${fact ? `/${fact}` : ''}`;
  const added = [...hCatalog.keys()].filter((c) => !bCatalog.has(c));
  const removed = [...bCatalog.keys()].filter((c) => !hCatalog.has(c));
  if (added.length) emit(out, 'api-error-code-added', 'error catalog', `${plural(added.length, 'code')} added: ${list(added)}`, at(hCatalog.get(added[0]!)!.index));
  if (removed.length) emit(out, 'api-error-code-removed', 'error catalog', `${plural(removed.length, 'code')} no longer emitted: ${list(removed)}`, at(bCatalog.get(removed[0]!)!.index), 'base');
  for (const [code, { facts: before }] of bCatalog) {
    const now = hCatalog.get(code);
    if (!now) continue;
    const after = now.facts;
    for (const fact of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (JSON.stringify(before[fact]) === JSON.stringify(after[fact])) continue;
      if (fact === 'x-reasons') {
        compareReasons(code, before[fact], after[fact], out, at(now.index, 'x-reasons'));
        continue;
      }
      // A client matches (status, code) and reads the listed fields: changing them breaks it.
      const id = fact === 'x-status' || fact === 'x-type' ? 'api-error-code-status-changed' : fact === 'x-fields' || fact === 'x-retry-after' ? 'api-error-code-fields-changed' : 'api-error-code-changed';
      emit(out, id, `error code \`${code}\``, `${fact.slice(2)} changed ${show(before[fact] ?? null)} → ${show(after[fact] ?? null)}`, after[fact] === undefined ? at(now.index) : at(now.index, fact));
    }
  }
}

/**
 * A code's `reason`s (x-reasons), one by one. A client branches on a reason: one that is no longer
 * sent leaves its branch dead (a warning, as a changed `x-fields`); a new one reaches a client's
 * default branch (info); a reworded meaning is prose (info).
 */
function compareReasons(code: string, before: unknown, after: unknown, out: Change[], pointer: string): void {
  const reasonsOf = (value: unknown): Json => (isObject(value) ? value : {});
  const b = reasonsOf(before);
  const h = reasonsOf(after);
  const where = `error code \`${code}\``;
  const removed = Object.keys(b).filter((r) => !(r in h));
  const added = Object.keys(h).filter((r) => !(r in b));
  const reworded = Object.keys(b).filter((r) => r in h && JSON.stringify(b[r]) !== JSON.stringify(h[r]));
  if (removed.length) emit(out, 'api-error-reason-removed', where, `${plural(removed.length, 'reason')} no longer sent: ${list(removed)}`, pointer);
  if (added.length) emit(out, 'api-error-reason-added', where, `${plural(added.length, 'reason')} added: ${list(added)}`, pointer);
  if (reworded.length) emit(out, 'api-error-reason-changed', where, `meaning reworded: ${list(reworded)}`, pointer);
}
