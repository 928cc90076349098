/**
 * The review against a corpus of small before/after pairs, one per check of
 * oasdiff's public check list (test/corpus/*.yaml: `check` names the oasdiff
 * check id the pair follows, `breaking` its verdict; written here, not copied
 * from oasdiff). A pair counts as flagged when the review reports at least
 * one breaking change. Issue 20 asks for at least 95% of the breaking pairs
 * found and at most 5% of the others flagged.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compareSpecs, flatten } from '../src/index.js';

interface CorpusCase {
  file: string;
  check: string;
  breaking: boolean;
  note?: string;
  base: object;
  head: object;
}

const folder = join(import.meta.dirname, 'corpus');
const cases: CorpusCase[] = readdirSync(folder)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((file) => ({ file, ...(parse(readFileSync(join(folder, file), 'utf8')) as Omit<CorpusCase, 'file'>) }));

function verdict(c: CorpusCase) {
  const review = compareSpecs(c.base, c.head);
  return { flagged: review.breaking.length > 0, review };
}

describe('the oasdiff-derived corpus', () => {
  it('holds enough pairs of both kinds, each labelled with an oasdiff check id', () => {
    expect(cases.filter((c) => c.breaking).length).toBeGreaterThanOrEqual(90);
    expect(cases.filter((c) => !c.breaking).length).toBeGreaterThanOrEqual(60);
    for (const c of cases) expect(c.check, c.file).toMatch(/^[a-z0-9-]+( \(.+\))?$/);
  });

  it('finds at least 95% of the breaking changes with at most 5% false alarms', () => {
    const breaking = cases.filter((c) => c.breaking);
    const compatible = cases.filter((c) => !c.breaking);
    const missed = breaking.filter((c) => !verdict(c).flagged);
    const falseAlarms = compatible.filter((c) => verdict(c).flagged);
    const detection = (breaking.length - missed.length) / breaking.length;
    const falseAlarmRate = falseAlarms.length / compatible.length;
    console.log(
      `corpus: ${cases.length} pairs; detection ${(detection * 100).toFixed(1)}% (${breaking.length - missed.length}/${breaking.length}), ` +
        `false alarms ${(falseAlarmRate * 100).toFixed(1)}% (${falseAlarms.length}/${compatible.length})`,
    );
    for (const c of missed) console.log(`  missed: ${c.file}`);
    for (const c of falseAlarms) console.log(`  false alarm: ${c.file}: ${verdict(c).review.breaking.map((b) => `${b.id} ${b.where}: ${b.message}`).join('; ')}`);
    expect(detection).toBeGreaterThanOrEqual(0.95);
    expect(falseAlarmRate).toBeLessThanOrEqual(0.05);
  });

  it('gives every change a check id and a level, and a pointer into the document', () => {
    for (const c of cases) {
      for (const change of flatten(compareSpecs(c.base, c.head))) {
        expect(change.id, c.file).toMatch(/^[a-z0-9-]+$/);
        expect(['breaking', 'warning', 'info'], c.file).toContain(change.level);
        expect(change.pointer, `${c.file} ${change.id}`).toMatch(/^(\/|$)/);
      }
    }
  });
});
