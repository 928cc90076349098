/**
 * The PGlite driver writes parameters into statements (src/inline-params.ts):
 * placeholders are found only where PostgreSQL would see them, values can
 * never end their literal, and whatever cannot be inlined goes the old way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineParams } from '../src/inline-params.js';
import type { Database } from '../src/index.js';
import { cleanUp, drivers, migrationsDir, target } from './support/db.js';

describe('inlineParams', () => {
  it('writes each value as a quoted literal, NULL for null, by placeholder number', () => {
    expect(inlineParams('SELECT $1, $2, $10, $1', ['a', null, 1, 2, 3, 4, 5, 6, 7, true])).toBe("SELECT 'a', NULL, 'true', 'a'");
    expect(inlineParams('SELECT $1::timestamptz', [new Date('2026-11-22T00:00:00Z')])).toBe("SELECT '2026-11-22T00:00:00.000Z'::timestamptz");
    expect(inlineParams("SELECT $1", ["it's"])).toBe("SELECT 'it''s'");
  });

  it('leaves $n alone inside literals, quoted identifiers, comments, dollar quotes and identifiers', () => {
    const sql = `SELECT '$1', "col$1", x$1, $body$ $1 $body$, $$ $1 $$ -- $1\n/* $1 */ , $1`;
    expect(inlineParams(sql, ['v'])).toBe(`SELECT '$1', "col$1", x$1, $body$ $1 $body$, $$ $1 $$ -- $1\n/* $1 */ , 'v'`);
    expect(inlineParams("SELECT 'it''s $1', $1", ['v'])).toBe("SELECT 'it''s $1', 'v'");
  });

  it('declines what it cannot write safely, so the extended protocol handles it', () => {
    expect(inlineParams('SELECT $1', [[1, 2]])).toBeUndefined();
    expect(inlineParams('SELECT $1', [{ a: 1 }])).toBeUndefined();
    expect(inlineParams('SELECT $1', [Buffer.from('x')])).toBeUndefined();
    expect(inlineParams('SELECT $1', ['a\0b'])).toBeUndefined();
    expect(inlineParams("SELECT E'\\'', $1", ['v'])).toBeUndefined(); // backslash escapes
    expect(inlineParams("SELECT 'unterminated, $1", ['v'])).toBeUndefined();
    expect(inlineParams('SELECT $1, $2', ['only one'])).toBeUndefined(); // the count must match
    expect(inlineParams('SELECT $1', ['a', 'extra'])).toBeUndefined();
  });
});

const hostile = [
  "'); DROP TABLE notes; --",
  "\\'; DROP TABLE notes; --",
  "''''",
  '$1 $2 $$ $tag$',
  '-- not a comment',
  '/* not a comment */',
  'back\\slash \\x00 \\n',
  'emoji 🤖 and ünïcödé and 中文',
  '"double" `tick`',
  ' ',
  '',
];

describe.each(drivers)('values round-trip unchanged through %s', (driver) => {
  let db: Database;
  beforeAll(async () => {
    db = await target(driver).open({ migrationsDir: migrationsDir({ '0001_notes.sql': 'CREATE TABLE notes (id integer PRIMARY KEY, body text NOT NULL);' }) });
  });
  afterAll(async () => {
    await db?.close();
    await cleanUp();
  });

  it('stores and finds every hostile string as sent, and runs nothing it carries', async () => {
    for (const [id, body] of hostile.entries()) {
      expect((await db.query('INSERT INTO notes (id, body) VALUES ($1, $2)', [id, body])).rowCount).toBe(1);
    }
    const { rows } = await db.query<{ id: number; body: string }>('SELECT id, body FROM notes ORDER BY id');
    expect(rows.map((r) => r.body)).toEqual(hostile);
    for (const body of hostile) {
      expect((await db.query<{ id: number }>('SELECT id FROM notes WHERE body = $1', [body])).rows).toHaveLength(1);
    }
    expect((await db.query('UPDATE notes SET body = $1 WHERE id = $2', ['x', 999])).rowCount).toBe(0);
  });
});
