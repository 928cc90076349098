/**
 * The review against the package's corpus of before/after pairs (test/corpus/): one file per pair
 * (`breaking-NNN-…`, `compatible-NNN-…`: whole documents) and one file of compact pairs per check
 * family (a schema, an operation or a partial document, wrapped here). Every pair names the oasdiff
 * check id it follows (`check`) and oasdiff's verdict (`breaking`); a compact pair also names the id
 * the review must report (`emits`). Written for this package, not copied from oasdiff.
 *
 * The goal the review is held to: at least 97% of the breaking pairs found, at most 3% of the others
 * flagged. Every registered check id has a pair that emits it, and every emitted id is registered.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compareSpecs, flatten, isRegistered, registry } from '../src/index.js';

interface CorpusCase {
  name: string;
  check: string;
  breaking: boolean;
  emits?: string;
  note?: string;
  base: object;
  head: object;
}

interface CompactPair {
  check: string;
  emits: string;
  breaking: boolean;
  in: 'request' | 'response' | 'parameter' | 'operation' | 'document';
  mediaType?: string;
  base: Record<string, unknown>;
  head: Record<string, unknown>;
}

/** Puts a compact pair's schema, operation or partial document into a whole document. */
function wrap(pair: CompactPair, side: 'base' | 'head'): object {
  const value = pair[side];
  const document = (paths: object, extra: Record<string, unknown> = {}) => ({ openapi: '3.1.0', info: { title: 'Corpus', version: '1.0.0' }, paths, ...extra });
  const media = pair.mediaType ?? 'application/json';
  switch (pair.in) {
    case 'request':
      return document({ '/items': { post: { operationId: 'createItem', requestBody: { required: true, content: { [media]: { schema: value } } }, responses: { '200': { description: 'ok' } } } } });
    case 'response':
      return document({ '/items': { get: { operationId: 'listItems', responses: { '200': { description: 'ok', content: { [media]: { schema: value } } } } } } });
    case 'parameter':
      return document({ '/items': { get: { operationId: 'listItems', parameters: [{ name: 'filter', in: 'query', schema: value }], responses: { '200': { description: 'ok' } } } } });
    case 'operation':
      return document({ '/items/{id}': { get: { operationId: 'getItem', ...value } } });
    case 'document':
      return { ...document({}), ...value };
  }
}

const folder = join(import.meta.dirname, 'corpus');
const files = readdirSync(folder).filter((f) => f.endsWith('.yaml')).sort();
const cases: CorpusCase[] = files.flatMap((file): CorpusCase[] => {
  const content = parse(readFileSync(join(folder, file), 'utf8')) as Omit<CorpusCase, 'name'> | CompactPair[];
  if (!Array.isArray(content)) return [{ name: file, ...content }];
  return content.map((pair, i) => ({ name: `${file}#${i + 1} ${pair.emits}`, check: pair.check, breaking: pair.breaking, emits: pair.emits, base: wrap(pair, 'base'), head: wrap(pair, 'head') }));
});
const results = new Map(cases.map((c) => [c, flatten(compareSpecs(c.base, c.head))]));
const flagged = (c: CorpusCase) => results.get(c)!.some((change) => change.level === 'breaking');

describe('the corpus', () => {
  it('holds pairs of both kinds, each labelled with the oasdiff check id it follows', () => {
    expect(cases.filter((c) => c.breaking).length).toBeGreaterThanOrEqual(150);
    expect(cases.filter((c) => !c.breaking).length).toBeGreaterThanOrEqual(150);
    for (const c of cases) expect(c.check, c.name).toMatch(/^[a-z0-9-]+( \(.+\))?$/);
  });

  it('finds at least 97% of the breaking changes with at most 3% false alarms', () => {
    const breaking = cases.filter((c) => c.breaking);
    const compatible = cases.filter((c) => !c.breaking);
    const missed = breaking.filter((c) => !flagged(c));
    const falseAlarms = compatible.filter(flagged);
    const detection = (breaking.length - missed.length) / breaking.length;
    const falseAlarmRate = falseAlarms.length / compatible.length;
    console.log(
      `corpus: ${cases.length} pairs; detection ${(detection * 100).toFixed(1)}% (${breaking.length - missed.length}/${breaking.length}), ` +
        `false alarms ${(falseAlarmRate * 100).toFixed(1)}% (${falseAlarms.length}/${compatible.length})`,
    );
    for (const c of missed) console.log(`  missed: ${c.name}`);
    for (const c of falseAlarms) console.log(`  false alarm: ${c.name}: ${results.get(c)!.filter((b) => b.level === 'breaking').map((b) => `${b.id} ${b.where}: ${b.message}`).join('; ')}`);
    expect(detection).toBeGreaterThanOrEqual(0.97);
    expect(falseAlarmRate).toBeLessThanOrEqual(0.03);
  });

  it('each compact pair makes the review report the id it names', () => {
    const wrong = cases.filter((c) => c.emits && !results.get(c)!.some((change) => change.id === c.emits));
    expect(wrong.map((c) => `${c.name}: got ${results.get(c)!.map((x) => x.id).join(', ') || 'nothing'}`)).toEqual([]);
  });

  it('every id the review emits is registered, with a level, and a pointer into a document', () => {
    for (const [c, changes] of results) {
      for (const change of changes) {
        expect(isRegistered(change.id), `${c.name}: ${change.id}`).toBe(true);
        expect(['breaking', 'warning', 'info'], c.name).toContain(change.level);
        expect(change.pointer, `${c.name} ${change.id}`).toMatch(/^(\/|$)/);
      }
    }
  });

  it('every registered id has a pair in the corpus that emits it', () => {
    const emitted = new Set([...results.values()].flatMap((changes) => changes.map((c) => c.id)));
    expect(registry.filter((c) => !emitted.has(c.id)).map((c) => c.id)).toEqual([]);
  });
});
