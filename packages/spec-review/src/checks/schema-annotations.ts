/**
 * What a schema says rather than what it accepts: descriptions, titles, examples, `deprecated`,
 * `readOnly`/`writeOnly`, a property's `x-sunset` and `x-stability-level`; and every other keyword
 * no family examines (a discriminator, `xml`, an `x-` extension), so that no change goes unreported.
 */
import { quote, same } from '../model.js';
import type { SchemaScope } from '../scope.js';
import { invalidSunset, stabilityRank } from './lifecycle.js';

export function schemaAnnotations(scope: SchemaScope, examined: Set<string>): void {
  const { base: b, head: h } = scope;
  if (!same(b.description, h.description)) scope.add('description-changed', `description ${b.description === undefined ? 'added' : h.description === undefined ? 'removed' : 'changed'}: ${quote(h.description ?? b.description)}`, h.description === undefined ? undefined : 'description');
  if (!same(b.title, h.title)) scope.add('title-changed', `title ${quote(b.title)} → ${quote(h.title)}`, h.title === undefined ? undefined : 'title');
  if (!same(b.example, h.example) || !same(b.examples, h.examples)) {
    const keyword = !same(b.example, h.example) ? 'example' : 'examples';
    scope.add('example-changed', `${keyword} ${h[keyword] === undefined ? 'removed' : b[keyword] === undefined ? 'added' : 'changed'}`, h[keyword] === undefined ? undefined : keyword);
  }
  if (b.deprecated !== true && h.deprecated === true) scope.add('property-deprecated', 'deprecated', 'deprecated');
  if (b.deprecated === true && h.deprecated !== true) scope.add('property-reactivated', 'no longer deprecated');
  if (!same(b['x-sunset'], h['x-sunset']) && h.deprecated === true && invalidSunset(h['x-sunset'])) scope.add('property-sunset-invalid', `x-sunset ${quote(h['x-sunset'])} is not a date (YYYY-MM-DD)`, 'x-sunset');
  const bStability = stabilityRank(b['x-stability-level']);
  const hStability = stabilityRank(h['x-stability-level']);
  if (bStability !== undefined && hStability !== undefined && hStability < bStability) scope.add('property-stability-decreased', `x-stability-level lowered ${quote(b['x-stability-level'])} → ${quote(h['x-stability-level'])}`, 'x-stability-level');
  for (const keyword of ['readOnly', 'writeOnly'] as const) {
    if (b[keyword] !== h[keyword]) scope.add('read-only-changed', `${keyword} ${h[keyword] === true ? 'set' : 'dropped'}`, h[keyword] === undefined ? undefined : keyword);
  }
  const handled = new Set([...examined, 'description', 'title', 'example', 'examples', 'deprecated', 'x-sunset', 'x-stability-level', 'readOnly', 'writeOnly', '$ref', '$schema', '$id', '$defs', '$comment']);
  const others = [...new Set([...Object.keys(b), ...Object.keys(h)])].filter((k) => !handled.has(k) && !same(b[k], h[k]));
  if (others.length) scope.add('schema-keyword-changed', `${others.map((k) => `\`${k}\``).join(', ')} changed`, others.length === 1 && h[others[0]!] !== undefined ? others[0] : undefined);
}
