/**
 * Subschemas and alternatives: JSON Schema 2020-12's subschema keywords (compared in place when both
 * sides have them; one added narrows, one removed widens), `prefixItems`, `oneOf`/`anyOf` branches
 * (matched by component name, title, const-valued properties or type), `allOf`, and the nullable
 * wrapping `oneOf: [{type: 'null'}, X]`, which is X made nullable, not a new set of alternatives.
 */
import { isObject, resolve, same, schemaRefName, type Doc, type Json } from '../model.js';
import { keywordPointer, type SchemaScope } from '../scope.js';
import { enumeration } from './schema-types.js';

const isNullSchema = (s: unknown) => isObject(s) && s.type === 'null' && Object.keys(s).every((k) => k === 'type' || k === 'description');

/** `{oneOf: [{type: null}, X]}` (or anyOf, either order): X and the index of X; otherwise undefined. */
export function nullableWrapped(schema: Json): { inner: unknown; keyword: 'oneOf' | 'anyOf'; index: number } | undefined {
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const alternatives = schema[keyword];
    if (!Array.isArray(alternatives) || alternatives.length !== 2) continue;
    const nullAt = alternatives.findIndex(isNullSchema);
    if (nullAt < 0) continue;
    return { inner: alternatives[1 - nullAt], keyword, index: 1 - nullAt };
  }
  return undefined;
}

const subschemaKeywords = ['items', 'contains', 'propertyNames', 'if', 'then', 'else', 'not', 'contentSchema', 'unevaluatedItems', 'unevaluatedProperties'] as const;
const dashed = (keyword: string) => keyword.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const annotations = new Set(['title', 'description', 'example', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment', 'default']);
const annotationOnly = (s: unknown) => isObject(s) && Object.keys(s).every((k) => annotations.has(k) || k.startsWith('x-'));
const trivial = (s: unknown) => s === true || (isObject(s) && Object.keys(s).length === 0);

function branchKey(doc: Doc, branch: unknown, index: number): string {
  const name = schemaRefName(branch);
  if (name) return `\`${name}\``;
  const schema = resolve(doc, branch) ?? {};
  if (typeof schema.title === 'string') return `\`${schema.title}\``;
  const consts = Object.entries((schema.properties as Json | undefined) ?? {})
    .map(([prop, s]) => (isObject(s) && 'const' in s ? `${prop}=${JSON.stringify(s.const)}` : undefined))
    .filter(Boolean);
  if (consts.length) return `\`${consts.join(',')}\``;
  if (typeof schema.type === 'string') return `\`${schema.type}\``;
  return `#${index + 1}`;
}

export function schemaComposition(scope: SchemaScope): void {
  const { base: b, head: h } = scope;
  const request = scope.direction === 'request';
  for (const keyword of subschemaKeywords) {
    const before = b[keyword];
    const after = h[keyword];
    if (before === undefined && after === undefined) continue;
    const name = dashed(keyword);
    if (before !== undefined && after !== undefined) {
      if (keyword === 'if' || keyword === 'not') {
        if (!same(before, after)) scope.add(`${name}-changed`, `\`${keyword}\` changed`, keyword);
      } else scope.compare(before, after, keyword === 'items' ? `${scope.where}[]` : `${scope.where}<${keyword}>`, keywordPointer(scope.pointer, keyword), keywordPointer(scope.basePointer, keyword));
    } else if (after !== undefined) {
      if (!trivial(after)) scope.add(`${name}-added`, `\`${keyword}\` added`, keyword);
    } else if (!trivial(before)) scope.addRemoved(`${name}-removed`, `\`${keyword}\` removed`, keyword);
  }
  for (const keyword of ['patternProperties', 'dependentSchemas'] as const) {
    const before = (isObject(b[keyword]) ? b[keyword] : {}) as Json;
    const after = (isObject(h[keyword]) ? h[keyword] : {}) as Json;
    const name = dashed(keyword);
    for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (k in before && k in after) scope.compare(before[k], after[k], `${scope.where}<${keyword} ${k}>`, keywordPointer(scope.pointer, [keyword, k]), keywordPointer(scope.basePointer, [keyword, k]));
      else if (k in after) scope.add(`${name}-added`, `${keyword} \`${k}\` added`, [keyword, k]);
      else scope.addRemoved(`${name}-removed`, `${keyword} \`${k}\` removed`, [keyword, k]);
    }
  }
  if (Array.isArray(b.prefixItems) || Array.isArray(h.prefixItems)) {
    const before = (b.prefixItems as unknown[] | undefined) ?? [];
    const after = (h.prefixItems as unknown[] | undefined) ?? [];
    for (let i = 0; i < Math.min(before.length, after.length); i++) {
      scope.compare(before[i], after[i], `${scope.where}[${i}]`, keywordPointer(scope.pointer, ['prefixItems', String(i)]), keywordPointer(scope.basePointer, ['prefixItems', String(i)]));
    }
    const n = after.length - before.length;
    if (n > 0) scope.add('prefix-items-added', `prefixItems gained ${n} position${n > 1 ? 's' : ''}`, 'prefixItems');
    if (n < 0) scope.add('prefix-items-removed', `prefixItems lost ${-n} position${n < -1 ? 's' : ''}`, 'prefixItems');
  }

  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const bAlt = b[keyword];
    const hAlt = h[keyword];
    if (enumeration(b) || enumeration(h)) continue;
    const name = keyword === 'oneOf' ? 'one-of' : 'any-of';
    if (!Array.isArray(bAlt) && Array.isArray(hAlt)) {
      scope.add(`${name}-added`, `now ${keyword} ${hAlt.length} alternatives${request ? ': a body valid before may match none, or more than one' : ': clients must handle each'}`, keyword);
      continue;
    }
    if (!Array.isArray(bAlt) || !Array.isArray(hAlt)) continue;
    const bKeys = bAlt.map((s, i) => branchKey(scope.baseDoc, s, i));
    const hKeys = hAlt.map((s, i) => branchKey(scope.headDoc, s, i));
    bAlt.forEach((branch, i) => {
      const j = hKeys.indexOf(bKeys[i]!);
      if (j < 0) scope.addRemoved(`${name}-variant-removed`, `${keyword} variant ${bKeys[i]} removed`, [keyword, String(i)]);
      else scope.compare(branch, hAlt[j], `${scope.where}<${bKeys[i]}>`, keywordPointer(scope.pointer, [keyword, String(j)]), keywordPointer(scope.basePointer, [keyword, String(i)]));
    });
    hAlt.forEach((_branch, j) => {
      if (!bKeys.includes(hKeys[j]!)) scope.add(`${name}-variant-added`, `${keyword} variant ${hKeys[j]} added${request ? '' : ': clients must handle it'}`, [keyword, String(j)]);
    });
  }
  if (Array.isArray(b.allOf) || Array.isArray(h.allOf)) {
    const before = (b.allOf as unknown[] | undefined) ?? [];
    const after = (h.allOf as unknown[] | undefined) ?? [];
    for (let i = 0; i < Math.min(before.length, after.length); i++) {
      scope.compare(before[i], after[i], `${scope.where}<allOf ${i}>`, keywordPointer(scope.pointer, ['allOf', String(i)]), keywordPointer(scope.basePointer, ['allOf', String(i)]));
    }
    // A subschema of annotations only (a title, a description) constrains nothing: it is prose, not a constraint.
    const constraining = (list: unknown[]) => list.filter((s) => !annotationOnly(s)).length;
    if (constraining(after) > constraining(before)) scope.add('all-of-added', 'allOf gained a constraint', 'allOf');
    else if (constraining(after) < constraining(before)) scope.add('all-of-removed', 'allOf lost a constraint', 'allOf');
    else if (after.length !== before.length) scope.add('schema-keyword-changed', `allOf ${after.length > before.length ? 'gained' : 'lost'} a subschema of annotations only`, 'allOf');
  }
}

export const compositionKeywords = [...subschemaKeywords, 'patternProperties', 'dependentSchemas', 'prefixItems', 'oneOf', 'anyOf', 'allOf'];
