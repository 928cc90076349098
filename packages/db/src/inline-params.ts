/**
 * PGlite answers a parameterised query with six protocol round trips into its
 * WebAssembly backend (parse, describe, bind, describe, execute, sync); the
 * simple protocol takes two. Measured on the Minds row read: 497 µs with
 * parameters, 289 µs as one simple query (scripts/bench, PGlite 0.5.16).
 * So the PGlite driver writes scalar parameters into the statement as quoted
 * literals and sends it as a simple query.
 *
 * A quoted literal has type `unknown` until its context decides it, exactly
 * as an untyped parameter does, so statements mean the same either way (a
 * value is written as `pg` would send it: String(value), a Date as ISO 8601).
 * The quoting is `pg`'s own escapeLiteral (quotes doubled; backslashes doubled
 * in an E'' literal), and `$n` is replaced only outside literals, quoted
 * identifiers, comments and dollar-quoted bodies. Anything else (arrays,
 * objects, buffers, a NUL) is not inlined: the caller falls back to the
 * extended protocol.
 */
import pg from 'pg';

export type Inlinable = string | number | bigint | boolean | Date | null | undefined;

function literal(value: Inlinable): string {
  if (value === null || value === undefined) return 'NULL';
  return pg.escapeLiteral(value instanceof Date ? value.toISOString() : String(value));
}

function inlinable(value: unknown): value is Inlinable {
  if (value === null || value === undefined || value instanceof Date) return true;
  if (typeof value === 'string') return !value.includes('\0');
  return typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean';
}

/** A statement split at its placeholders (text, a 0-based parameter index, text, ...) and how many it takes. */
interface Template {
  parts: (string | number)[];
  count: number;
}

const identifierChar = /[\w$]/;
const templates = new Map<string, Template | null>();

/** The statement with its parameters written in, or undefined when one of them cannot be. */
export function inlineParams(sql: string, params: readonly unknown[]): string | undefined {
  if (!params.every(inlinable)) return undefined;
  let template = templates.get(sql);
  if (template === undefined) {
    template = split(sql);
    // Statements are constants of the code, so the map stays small; the bound is for misuse.
    if (templates.size < 2000) templates.set(sql, template);
  }
  // A count mismatch is left to the extended protocol, which refuses it as before.
  if (template === null || template.count !== params.length) return undefined;
  let out = '';
  for (const part of template.parts) out += typeof part === 'string' ? part : literal(params[part] as Inlinable);
  return out;
}

/** Splits at $n outside literals, quoted identifiers, comments and dollar-quoted bodies; null if unsure. */
function split(sql: string): Template | null {
  const parts: (string | number)[] = [];
  let count = 0;
  let text = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    let end = i + 1;
    if (c === "'" || c === '"') {
      // An E'...' string takes backslash escapes, which this scanner does not read.
      if (c === "'" && (sql[i - 1] === 'E' || sql[i - 1] === 'e') && !identifierChar.test(sql[i - 2] ?? ' ')) return null;
      // A quoted literal or identifier; a doubled quote inside continues it.
      for (;;) {
        const close = sql.indexOf(c, end);
        if (close === -1) return null;
        if (sql[close + 1] === c) end = close + 2;
        else {
          end = close + 1;
          break;
        }
      }
    } else if (c === '-' && next === '-') {
      const newline = sql.indexOf('\n', i);
      end = newline === -1 ? sql.length : newline;
    } else if (c === '/' && next === '*') {
      const close = sql.indexOf('*/', i + 2);
      if (close === -1) return null;
      end = close + 2;
    } else if (c === '$' && !identifierChar.test(sql[i - 1] ?? ' ')) {
      const placeholder = /^\$(\d+)(?![\w$])/.exec(sql.slice(i, i + 12));
      if (placeholder) {
        const index = Number(placeholder[1]) - 1;
        if (index < 0) return null;
        parts.push(text, index);
        count = Math.max(count, index + 1);
        text = '';
        i += placeholder[0].length;
        continue;
      }
      const tag = /^\$(?:[A-Za-z_]\w*)?\$/.exec(sql.slice(i, i + 64));
      if (tag) {
        // A dollar-quoted body: copied up to its closing tag untouched.
        const close = sql.indexOf(tag[0], i + tag[0].length);
        if (close === -1) return null;
        end = close + tag[0].length;
      }
    }
    text += sql.slice(i, end);
    i = end;
  }
  parts.push(text);
  return { parts, count };
}
