/**
 * Types, nullability and enumerations of a schema. A request is hurt when it accepts less (a type
 * or enum value no longer accepted, `null` refused); a response when it returns more (a new type,
 * `null`, a new enum value clients switch on). Where the wire is text (parameters, headers, XML),
 * every value is a string: a type may become `string` without breaking anyone (oasdiff's
 * "not strongly typed" rule).
 */
import { isObject, list, plural, show, type Json } from '../model.js';
import type { SchemaScope } from '../scope.js';

/** The values a schema admits when it is an enumeration (`enum`, `const`, or a oneOf/anyOf of consts). */
export function enumeration(schema: Json): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  const alternatives = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0 && alternatives.every((a) => isObject(a) && 'const' in a)) {
    return alternatives.map((a) => (a as Json).const);
  }
  return undefined;
}

/** The declared types, `null` included (3.1 `type: [x, 'null']`, 3.0 `nullable: true`); undefined when the schema declares none. */
export function typesOf(schema: Json): Set<string> | undefined {
  const types = new Set<string>();
  if (typeof schema.type === 'string') types.add(schema.type);
  else if (Array.isArray(schema.type)) for (const t of schema.type) types.add(String(t));
  else return undefined;
  if (schema.nullable === true) types.add('null');
  return types;
}

/** Every value of `sub` is a value of `sup`: the same type, or an integer within number. */
const within = (sub: string, sup: string) => sub === sup || (sub === 'integer' && sup === 'number');
const covered = (t: string, types: Set<string>) => [...types].some((u) => within(t, u));

/** `to` takes every value of `from`; on a text wire, `string` takes anything. */
function accepts(from: Set<string>, to: Set<string>, weak: boolean): boolean {
  return [...from].every((t) => covered(t, to)) || (weak && to.has('string'));
}

export function schemaTypes(scope: SchemaScope): void {
  const { base: b, head: h, direction } = scope;
  const request = direction === 'request';
  const bTypes = typesOf(b);
  const hTypes = typesOf(h);
  const declared = (s: Json) => list(Array.isArray(s.type) ? s.type : [s.type]);

  if (bTypes && hTypes) {
    // Nullability first, on its own: a wrapping as `oneOf: [{type: null}, X]` is judged the same way (see schema-composition).
    if (!bTypes.has('null') && hTypes.has('null')) scope.add('became-nullable', request ? 'now also accepts `null`' : 'may now be `null`: clients reading it must handle it', h.nullable === true ? 'nullable' : 'type');
    if (bTypes.has('null') && !hTypes.has('null')) scope.add('became-not-nullable', request ? 'no longer accepts `null`' : 'is no longer `null`', b.nullable === true ? 'nullable' : 'type');
    const bare = (s: Set<string>) => new Set([...s].filter((t) => t !== 'null'));
    const bNon = bare(bTypes);
    const hNon = bare(hTypes);
    const changed = [...bNon].some((t) => !hNon.has(t)) || [...hNon].some((t) => !bNon.has(t));
    if (changed) {
      // Requests: the new types must take every value the old ones did. Responses: the mirror (what the server may now send).
      const [from, to] = request ? [bNon, hNon] : [hNon, bNon];
      const strongOk = accepts(from, to, false);
      const weakOk = accepts(from, to, true);
      const widened = [...from].every((t) => covered(t, to)) && [...to].some((t) => !covered(t, from));
      const retyped = `retyped ${declared(b)} → ${declared(h)}`;
      const ok = scope.typing === 'strong' ? strongOk : weakOk;
      if (scope.typing === 'uncertain' && weakOk && !strongOk) scope.add('type-changed-uncertain', `${retyped}: breaks clients that send it as JSON`, 'type');
      else if (!ok) scope.add('type-changed', request ? `no longer accepts every value it did (${retyped})` : `may now return another type (${retyped})`, 'type');
      else if (widened) scope.add(request ? 'type-generalized' : 'type-specialized', request ? `also accepts ${retyped.replace('retyped ', '')}` : `returns fewer types (${retyped})`, 'type');
      else scope.add('type-compatible', `${retyped}: the wire is text, so every value is still accepted`, 'type');
    }
  } else if (!bTypes && hTypes && !enumeration(b)) {
    scope.add('type-set', `now restricted to type ${declared(h)}`, 'type');
  } else if (bTypes && !hTypes && !enumeration(h) && !isObject(h.$ref)) {
    scope.add('type-unset', `no longer restricted to ${declared(b)}`, 'type');
  }

  // Enumerations (enum, const, a oneOf of consts).
  const bEnum = enumeration(b);
  const hEnum = enumeration(h);
  const key = (v: unknown) => JSON.stringify(v);
  if (bEnum && hEnum) {
    const hKeys = new Set(hEnum.map(key));
    const bKeys = new Set(bEnum.map(key));
    const removed = bEnum.filter((v) => !hKeys.has(key(v)));
    const added = hEnum.filter((v) => !bKeys.has(key(v)));
    if ('const' in b && 'const' in h && key(b.const) !== key(h.const)) {
      scope.add('const-changed', `const changed ${show(b.const)} → ${show(h.const)}`, 'const');
    } else if (request) {
      if (removed.length) scope.add('enum-value-removed', `${plural(removed.length, 'enum value')} ${list(removed)} no longer accepted`, 'enum');
      if (added.length) scope.add('enum-value-added', `${plural(added.length, 'enum value')} ${list(added)} added`, 'enum');
    } else {
      if (added.length) scope.add('enum-value-added', `may now return ${plural(added.length, 'enum value')} ${list(added)}: clients that switch exhaustively must handle ${added.length > 1 ? 'them' : 'it'}`, 'enum');
      if (removed.length) scope.add('enum-value-removed', `no longer returns ${plural(removed.length, 'enum value')} ${list(removed)}`, 'enum');
    }
  } else if (!bEnum && hEnum) {
    scope.add('became-enum', `now limited to the values ${list(hEnum)}`, 'const' in h ? 'const' : 'enum');
  } else if (bEnum && !hEnum) {
    scope.add('enum-removed', `no longer limited to ${list(bEnum)}${request ? '' : ': clients sized to those values break'}`);
  }
  const bExtensible = Array.isArray(b['x-extensible-enum']) ? (b['x-extensible-enum'] as unknown[]) : [];
  const hExtensible = Array.isArray(h['x-extensible-enum']) ? (h['x-extensible-enum'] as unknown[]) : [];
  const extensibleRemoved = bExtensible.filter((v) => !hExtensible.map(key).includes(key(v)));
  const extensibleAdded = hExtensible.filter((v) => !bExtensible.map(key).includes(key(v)));
  if (extensibleRemoved.length) scope.add('x-extensible-enum-value-removed', `x-extensible-enum ${plural(extensibleRemoved.length, 'value')} ${list(extensibleRemoved)} removed`, 'x-extensible-enum');
  if (extensibleAdded.length) scope.add('x-extensible-enum-value-added', `x-extensible-enum ${plural(extensibleAdded.length, 'value')} ${list(extensibleAdded)} added`, 'x-extensible-enum');
}

export const typeKeywords = ['type', 'nullable', 'enum', 'const', 'x-extensible-enum'];
