/**
 * Parameters (request direction): added, removed, made required or optional, their defaults (the
 * server fills an omitted parameter with its default, so any change to it changes behaviour), their
 * serialization, prose and lifecycle; and their schemas, compared as text on the wire. Path
 * parameters are matched by their place in the path, so a renamed one (`{bookId}` → `{id}`) is still
 * compared; one declared but not in the template is matched by name.
 */
import { escapeSegment } from '@gateway-minds/contract/json-pointer';
import { isObject, quote, resolve, same, show, type Change, type Doc, type Json } from '../model.js';
import { emit } from '../scope.js';
import type { Comparison, LocatedOperation } from '../compare.js';
import { invalidSunset, sunsetDate } from './lifecycle.js';
import { examplesOf } from './request-body.js';

function parameterKey(p: Json): string {
  return `${String(p.in)}:${String(p.in) === 'header' ? String(p.name).toLowerCase() : String(p.name)}`;
}

/** Where a parameter object sits in the document: in the operation, its path item, or a shared component. */
export function parameterPointer(doc: Doc, located: LocatedOperation, parameter: Json): string {
  const itemPointer = located.pointer.slice(0, located.pointer.lastIndexOf('/'));
  const item = resolve(doc, { $ref: `#${itemPointer}` }) ?? {};
  for (const [owner, entries] of [
    [located.pointer, located.operation.parameters],
    [itemPointer, item.parameters],
  ] as const) {
    const index = ((entries as unknown[] | undefined) ?? []).findIndex((p) => resolve(doc, p) === parameter);
    if (index < 0) continue;
    const entry = (entries as unknown[])[index];
    if (isObject(entry) && typeof entry.$ref === 'string' && entry.$ref.startsWith('#/')) return entry.$ref.slice(1);
    return `${owner}/parameters/${index}`;
  }
  return located.pointer;
}

/** A query or cookie parameter (form style, exploded: the defaults) whose scalar schema became an array: the old type(s), or undefined. */
function scalarBecameList(cmp: Comparison, parameter: Json, before: unknown, after: unknown): string | undefined {
  if (parameter.in !== 'query' && parameter.in !== 'cookie') return undefined;
  if ((parameter.style ?? 'form') !== 'form' || parameter.explode === false) return undefined;
  const b = resolve(cmp.base, before) ?? {};
  const h = resolve(cmp.head, after) ?? {};
  const types = (s: Json) => (Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type]).filter((t) => t !== 'null') as string[];
  if (types(b).length === 0 || types(b).includes('array') || types(h).join() !== 'array' || !isObject(h.items)) return undefined;
  return types(b).join(' | ');
}

export function compareParameters(cmp: Comparison, b: LocatedOperation, h: LocatedOperation, out: Change[], uses: Set<string>): void {
  const bParams = new Map(b.parameters.map((p) => [parameterKey(p), p]));
  const hParams = new Map(h.parameters.map((p) => [parameterKey(p), p]));
  const pathNames = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const bNames = pathNames(b.ref.path);
  const hNames = pathNames(h.ref.path);
  // Pairs of (base, head) parameters to compare: by in and name, path parameters of the template by position.
  const pairs: [Json, Json][] = [];
  const matched = new Set<Json>();
  hNames.forEach((name, i) => {
    const before = b.parameters.find((p) => p.in === 'path' && p.name === bNames[i]);
    const after = h.parameters.find((p) => p.in === 'path' && p.name === name);
    if (before && after) {
      pairs.push([before, after]);
      matched.add(before).add(after);
    }
  });
  for (const [key, p] of bParams) {
    if (matched.has(p)) continue;
    const now = hParams.get(key);
    if (now && !matched.has(now)) {
      pairs.push([p, now]);
      matched.add(p).add(now);
      continue;
    }
    if (p.in === 'path' && bNames.includes(String(p.name))) continue; // its path changed: reported as a move
    const where = `${String(p.in)} parameter \`${String(p.name)}\``;
    const sunset = sunsetDate(p['x-sunset']);
    if (p.deprecated === true && sunset === null) {
      emit(out, 'request-parameter-sunset-invalid', where, `removed; its x-sunset ${quote(p['x-sunset'])} is not a date`, parameterPointer(cmp.base, b, p), 'base');
      continue;
    }
    const early = p.deprecated === true && typeof sunset === 'string' && sunset > new Date().toISOString().slice(0, 10);
    emit(out, early ? 'request-parameter-removed-before-sunset' : 'request-parameter-removed', where, early ? `removed before its sunset ${sunset}` : 'removed: a client still sending it may be refused', parameterPointer(cmp.base, b, p), 'base');
  }
  for (const [, p] of hParams) {
    if (matched.has(p)) continue;
    const where = `${String(p.in)} parameter \`${String(p.name)}\``;
    const at = parameterPointer(cmp.head, h, p);
    if (p.in === 'path') emit(out, 'new-request-path-parameter', where, 'new path parameter', at);
    else emit(out, p.required === true ? 'new-required-request-parameter' : 'new-optional-request-parameter', where, p.required === true ? 'new required parameter' : 'new optional parameter', at);
  }

  for (const [p, now] of pairs) {
    const where = `${String(now.in)} parameter \`${String(now.name)}\``;
    const at = parameterPointer(cmp.head, h, now);
    const baseAt = parameterPointer(cmp.base, b, p);
    const fact = (name: string) => (now[name] === undefined ? at : `${at}/${escapeSegment(name)}`);
    if (p.required !== true && now.required === true && now.in !== 'path') emit(out, 'request-parameter-became-required', where, 'is now required', fact('required'));
    if (p.required === true && now.required !== true) emit(out, 'request-parameter-became-optional', where, 'is now optional', fact('required'));
    if (p['x-missing-code'] !== now['x-missing-code']) emit(out, 'request-parameter-x-missing-code-changed', where, `missing-code changed ${show(p['x-missing-code'] ?? null)} → ${show(now['x-missing-code'] ?? null)}`, fact('x-missing-code'));
    for (const field of ['style', 'explode', 'allowReserved', 'content'] as const) {
      if (!same(p[field], now[field])) emit(out, 'request-parameter-serialization-changed', where, `${field} changed ${show(p[field] ?? null)} → ${show(now[field] ?? null)}`, fact(field));
    }
    if (!same(p.description, now.description)) emit(out, 'request-parameter-description-changed', where, `description ${p.description === undefined ? 'added' : now.description === undefined ? 'removed' : 'changed'}: ${quote(now.description ?? p.description)}`, fact('description'));
    if (!same(examplesOf(cmp.base, p), examplesOf(cmp.head, now))) emit(out, 'request-parameter-example-changed', where, 'example changed', fact(!same(p.example, now.example) ? 'example' : 'examples'));
    if (p.deprecated !== true && now.deprecated === true) emit(out, 'request-parameter-deprecated', where, 'deprecated', fact('deprecated'));
    if (p.deprecated === true && now.deprecated !== true) emit(out, 'request-parameter-reactivated', where, 'no longer deprecated', at);
    if (String(p['x-sunset']) !== String(now['x-sunset'])) {
      if (invalidSunset(now['x-sunset']) || invalidSunset(p['x-sunset'])) emit(out, 'request-parameter-sunset-invalid', where, `x-sunset ${quote(invalidSunset(now['x-sunset']) ? now['x-sunset'] : p['x-sunset'])} is not a date`, invalidSunset(now['x-sunset']) ? fact('x-sunset') : `${baseAt}/x-sunset`, invalidSunset(now['x-sunset']) ? 'head' : 'base');
      else if (now['x-sunset'] === undefined && now.deprecated === true) emit(out, 'request-parameter-sunset-deleted', where, `sunset ${quote(p['x-sunset'])} removed from a deprecated parameter`, at);
    }
    const bDefault = resolve(cmp.base, p.schema)?.default;
    const hDefault = resolve(cmp.head, now.schema)?.default;
    // A required parameter is always sent: its default is never used, so a change to it is only recorded.
    if (!same(bDefault, hDefault) && now.required === true) {
      const check = bDefault === undefined ? 'added' : hDefault === undefined ? 'removed' : 'changed';
      emit(out, `request-default-value-${check}`, where, `default ${check}: ${show(bDefault ?? null)} → ${show(hDefault ?? null)} (a required parameter: never used)`, hDefault === undefined ? `${at}/schema` : `${at}/schema/default`);
    } else if (!same(bDefault, hDefault)) {
      const check = bDefault === undefined ? 'added' : hDefault === undefined ? 'removed' : 'changed';
      emit(out, `request-parameter-default-value-${check}`, where, `default ${check}: ${show(bDefault ?? null)} → ${show(hDefault ?? null)} (clients that omit it get other behaviour)`, hDefault === undefined ? `${at}/schema` : `${at}/schema/default`);
    }
    if (p.schema === undefined && now.schema === undefined) continue;
    const listed = scalarBecameList(cmp, now, p.schema, now.schema);
    // A parameter's default is judged above (the schema's own check leaves it out, so that one shared schema is compared once).
    const skip = ['default'];
    if (listed) {
      // `?color=red` is a one-element list under form/explode serialization: a scalar that became a list of the same values still takes every old request.
      emit(out, 'request-type-generalized', where, `now also accepts a list (${listed})`, `${at}/schema/type`);
      cmp.schema(p.schema, resolve(cmp.head, now.schema)!.items, 'request', where, out, uses, `${at}/schema/items`, `${baseAt}/schema`, 'weak', skip);
    } else cmp.schema(p.schema, now.schema, 'request', where, out, uses, `${at}/schema`, `${baseAt}/schema`, 'weak', skip);
  }
}
