/**
 * Result parsing shared by both drivers, so a row reads the same whichever one produced it: both
 * read rows with `pg`'s text-format parsers (typeParsers), with these overrides for the types whose
 * `pg` default would surprise application code (int8 and numeric as strings, date as a local-midnight
 * Date). Timestamps (Date), json/jsonb (parsed) and bytea (Buffer) keep `pg`'s defaults.
 */
import pg from 'pg';

const OID = {
  int8: 20,
  date: 1082,
  numeric: 1700,
  int8Array: 1016,
} as const;

/**
 * int8 → number. Counts and bigint columns are numbers in application code; a value JS cannot
 * represent exactly throws rather than coming back as a different type or a rounded number.
 * Select such a column as `::text` if it can really exceed 2^53 - 1.
 */
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`int8 value ${text} is outside JavaScript's safe integer range; select it as ::text`);
  }
  return value;
}

/** numeric → number (a double: fine for amounts and ratios; select ::text where exact decimals matter). */
function parseNumeric(text: string): number {
  return Number(text);
}

/** date → 'YYYY-MM-DD': a calendar day is not an instant, and pg's default Date picks a local midnight. */
function parseDate(text: string): string {
  return text;
}

/** Applies parse to every leaf of a (possibly nested) array that a driver already split into strings. */
function mapArray(value: unknown, parse: (text: string) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => mapArray(item, parse));
  return typeof value === 'string' ? parse(value) : value;
}

/**
 * `pg`'s text-format parsers with the overrides above: the PostgreSQL pool's, and the one PGlite's
 * prepared statements read rows with. Its own instance, so other pg users in the process keep the
 * library defaults.
 */
export function typeParsers(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  // pg's text[] parser splits any array literal into (nested) strings and nulls; the elements are then parsed like their scalar.
  const getDefaultParser = pg.types.getTypeParser as (oid: number) => (text: string) => unknown;
  const splitTextArray = getDefaultParser(1009 /* text[] */);
  types.setTypeParser(OID.int8, parseInt8);
  types.setTypeParser(OID.int8Array, (text: string) => mapArray(splitTextArray(text), parseInt8));
  types.setTypeParser(OID.numeric, parseNumeric);
  types.setTypeParser(OID.date, parseDate);
  types.setTypeParser(1182 /* date[] */, (text: string) => mapArray(splitTextArray(text), parseDate));
  return types;
}
