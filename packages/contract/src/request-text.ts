/**
 * Two request rules of the contract that JSON Schema does not hold, shared by the servers and the
 * MSW handlers (browser-safe): text that cannot be stored as sent (spec/DECISIONS.md, "Input
 * hygiene") and how an error's `errors[].location` is written (DECISIONS, "The envelope").
 */

/** One violated constraint, as the envelope's `errors[]` lists it. */
export interface LocatedIssue {
  location: string;
  message: string;
}

/** No U+0000 (PostgreSQL cannot store it) and no lone surrogate. */
export function isWellFormedText(value: string): boolean {
  return !value.includes('\u0000') && (value as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Every string of a parsed JSON body that is not well-formed text, with its location (at most 10). */
export function illFormedStrings(value: unknown, location: string, found: LocatedIssue[] = []): LocatedIssue[] {
  if (found.length >= 10) return found;
  if (typeof value === 'string') {
    if (!isWellFormedText(value)) found.push({ location, message: 'contains U+0000 or text that is not well-formed Unicode' });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => illFormedStrings(item, `${location}[${i}]`, found));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) illFormedStrings(item, `${location}.${key}`, found);
  }
  return found;
}

/**
 * A location as the envelope writes it: where it is (`body`, or a parameter's `in` and name such as
 * `query.limit`), then the property path dotted, an array index of the body in brackets
 * (`body.event.tags[0]`).
 */
export function envelopeLocation(where: string, segments: readonly string[]): string {
  const inBody = where === 'body' || where.startsWith('body.');
  return segments.reduce((location, segment) => (inBody && /^\d+$/.test(segment) ? `${location}[${segment}]` : `${location}.${segment}`), where);
}
