/** The part of `pg`'s internal utilities this package uses (exported by `pg` as `pg/lib/*`, untyped by @types/pg). */
declare module 'pg/lib/utils.js' {
  const utils: {
    /** A JavaScript value as `pg` sends it as a parameter: text, a Buffer (sent binary), or null. */
    prepareValue(value: unknown): string | Buffer | null;
  };
  export default utils;
}
