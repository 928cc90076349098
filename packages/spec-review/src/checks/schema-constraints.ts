/**
 * Value constraints: bounds, patterns, formats, multipleOf, content keywords, uniqueItems, defaults.
 * A lowered upper bound or a raised lower bound narrows what is valid (breaks requests); the reverse,
 * or a bound removed, widens it (breaks responses: clients were sized by the old bounds). A bound set
 * where there was none is a request warning, as oasdiff has it: usually an existing limit written down.
 */
import { show, same } from '../model.js';
import type { SchemaScope } from '../scope.js';

const upperBounds = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties', 'maxContains', 'x-max-bytes'] as const;
const lowerBounds = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties', 'minContains', 'x-min-bytes'] as const;

const dashed = (keyword: string) => keyword.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** A pattern that matches every string (`.*`, `^.*$`, `[\s\S]*`, empty). */
function matchesEverything(pattern: unknown): boolean {
  return typeof pattern === 'string' && /^\^?(\.\*|\[\\s\\S\]\*|)\$?$/.test(pattern);
}

/** Formats that hold every value of another (oasdiff's list): widening one is no change for a sender. */
const widerFormat: Record<string, string[]> = { int32: ['int64', 'bigint'], int64: ['bigint'], float: ['double'], date: ['date-time'], time: ['date-time'] };

export function schemaConstraints(scope: SchemaScope): void {
  const { base: b, head: h } = scope;
  const request = scope.direction === 'request';
  const bound = (keyword: string, upper: boolean) => {
    const before = typeof b[keyword] === 'number' ? (b[keyword] as number) : undefined;
    const after = typeof h[keyword] === 'number' ? (h[keyword] as number) : undefined;
    if (before === after) return;
    const name = dashed(keyword);
    if (before === undefined) return scope.add(`${name}-set`, `\`${keyword}: ${after}\` added`, keyword);
    if (after === undefined) return scope.add(`${name}-unset`, `\`${keyword}\` removed (was ${before})${request ? '' : ': values may now be outside what clients were promised'}`, keyword);
    const lowered = after < before;
    const narrows = upper === lowered;
    scope.add(`${name}-${lowered ? 'decreased' : 'increased'}`, `\`${keyword}\` ${lowered ? 'lowered' : 'raised'} ${before} → ${after}${narrows ? '' : request ? '' : `: values may now be ${upper ? 'larger' : 'smaller'} than clients were promised`}`, keyword);
  };
  for (const keyword of upperBounds) bound(keyword, true);
  for (const keyword of lowerBounds) bound(keyword, false);

  if (b.pattern !== h.pattern) {
    if (matchesEverything(b.pattern) && h.pattern !== undefined && !matchesEverything(h.pattern)) scope.add('pattern-added', `pattern ${show(h.pattern)} set (was ${show(b.pattern)}, which matches everything)`, 'pattern');
    else if (h.pattern === undefined) scope.add('pattern-removed', `pattern ${show(b.pattern)} removed`);
    else if (matchesEverything(h.pattern)) scope.add('pattern-generalized', `pattern widened ${show(b.pattern ?? null)} → ${show(h.pattern)}`, 'pattern');
    else if (b.pattern === undefined) scope.add('pattern-added', `pattern ${show(h.pattern)} added`, 'pattern');
    else scope.add('pattern-changed', `pattern changed ${show(b.pattern)} → ${show(h.pattern)}`, 'pattern');
  }

  if (b.format !== h.format) {
    if (b.format === undefined) scope.add('format-added', `format ${show(h.format)} added`, 'format');
    else if (h.format === undefined) scope.add('format-removed', `format ${show(b.format)} removed`);
    else {
      const widens = (widerFormat[String(b.format)] ?? []).includes(String(h.format));
      const narrows = (widerFormat[String(h.format)] ?? []).includes(String(b.format));
      if (request && widens) scope.add('format-generalized', `format widened ${show(b.format)} → ${show(h.format)}`, 'format');
      else if (!request && narrows) scope.add('format-specialized', `format narrowed ${show(b.format)} → ${show(h.format)}`, 'format');
      else scope.add('format-changed', `format changed ${show(b.format)} → ${show(h.format)}`, 'format');
    }
  }
  for (const keyword of ['multipleOf', 'contentMediaType', 'contentEncoding'] as const) {
    const before = b[keyword];
    const after = h[keyword];
    if (before === after) continue;
    const name = dashed(keyword);
    if (before === undefined) scope.add(`${name}-added`, `${keyword} ${show(after)} added`, keyword);
    else if (after === undefined) scope.add(`${name}-removed`, `${keyword} ${show(before)} removed`);
    else scope.add(`${name}-changed`, `${keyword} changed ${show(before)} → ${show(after)}`, keyword);
  }
  if (b.uniqueItems !== h.uniqueItems && (b.uniqueItems === true || h.uniqueItems === true)) {
    const now = h.uniqueItems === true;
    scope.add(now ? 'unique-items-set' : 'unique-items-unset', now ? 'items must now be unique' : 'items no longer unique', 'uniqueItems');
  }
  if (!same(b.default, h.default)) {
    const check = b.default === undefined ? 'default-value-added' : h.default === undefined ? 'default-value-removed' : 'default-value-changed';
    scope.add(check, `default ${b.default === undefined ? 'added' : h.default === undefined ? 'removed' : 'changed'} ${show(b.default ?? null)} → ${show(h.default ?? null)}`, h.default === undefined ? undefined : 'default');
  }
}

export const constraintKeywords = [...upperBounds, ...lowerBounds, 'pattern', 'format', 'multipleOf', 'contentMediaType', 'contentEncoding', 'uniqueItems', 'default'];
