/**
 * Which named example a handler answers with, chosen the way the Prism mock
 * (apps/mock) chooses: the first named example of the success status by
 * default; `Prefer: code=<status>` the first example of that status;
 * `Prefer: example=<name>` that example of the success status; both, that
 * status's example of that name. A request without a
 * credential on an operation that needs one gets the first 401 example, as
 * Prism's security check answers. A request that follows a cursor (`after`)
 * gets the list's last page, so a walk ends after one cursor.
 */
import type { Refusal } from './request-validation.js';

/** What the generated table says about one operation. */
export interface OperationExamples {
  readonly successStatus: number;
  readonly credential: boolean;
  /** Index of the success example whose next_cursor is null (paginated operations), else null. */
  readonly lastPage: number | null;
  /** [status, name] of every named example, in spec order. */
  readonly examples: readonly (readonly [number, string])[];
}

/** A selection, as the `Prefer` header or the `prefer` option gives it. */
export interface ExampleChoice {
  /** A status the operation declares, e.g. 401. */
  code?: number;
  /** A named example of the spec, e.g. CREDENTIAL_INVALID. */
  example?: string;
}

/** Reads `code=` and `example=` out of a Prefer header (RFC 7240 preferences, as Prism reads them); null when it names neither. */
export function parsePrefer(header: string | null): ExampleChoice | null {
  if (!header) return null;
  const choice: ExampleChoice = {};
  for (const preference of header.split(',')) {
    const [key, raw] = preference.split('=').map((part) => part.trim());
    const value = raw?.replace(/^"(.*)"$/, '$1');
    if (!value) continue;
    if (key === 'code' && /^\d{3}$/.test(value)) choice.code = Number(value);
    else if (key === 'example') choice.example = value;
  }
  return choice.code === undefined && choice.example === undefined ? null : choice;
}

/** Raised when a selection names no example of the operation; the handlers answer it with selectionRefusal. */
export class NoSuchExampleError extends Error {
  override name = 'NoSuchExampleError';

  constructor(
    readonly operationId: string,
    /** What was asked for. */
    readonly choice: ExampleChoice,
    /** Every selection the operation has, as `code=<status>, example=<name>`. */
    readonly available: readonly string[],
  ) {
    super(`${operationId}: no example for ${describeChoice(choice)}; it has ${available.join('; ')}`);
  }
}

function describeChoice(choice: ExampleChoice): string {
  return [choice.code === undefined ? undefined : `code=${choice.code}`, choice.example === undefined ? undefined : `example=${choice.example}`].filter(Boolean).join(', ');
}

/**
 * What both mocks answer a selection that names no example (an unknown name, a status the operation does
 * not declare): 400 BAD_REQUEST, the catalog's code for a header that failed validation, at `header.prefer`,
 * with every selection the operation has, in the message and one per `errors[]` entry
 * (spec/DECISIONS.md, "A selection that names no example"). The envelope holds at most 50 entries.
 */
export function selectionRefusal(error: NoSuchExampleError): Refusal {
  const asked = describeChoice(error.choice);
  const message = `Prefer: ${asked} names no example of ${error.operationId}. Its examples: ${error.available.join('; ')}.`;
  return {
    code: 'BAD_REQUEST',
    message: message.length > 1024 ? `${message.slice(0, 1023)}…` : message,
    errors: [
      { location: 'header.prefer', message: `${asked} names no example of this operation` },
      ...error.available.slice(0, 49).map((selection) => ({ location: 'header.prefer', message: `valid: ${selection}` })),
    ],
  };
}

/** The index, in `table.examples`, of the example to answer `request` with. */
export function chooseExample(operationId: string, table: OperationExamples, request: Request, fallback: ExampleChoice | undefined): number {
  const { examples } = table;
  if (table.credential && !request.headers.has('authorization')) {
    const unauthorized = examples.findIndex(([status]) => status === 401);
    if (unauthorized >= 0) return unauthorized;
  }
  const choice = parsePrefer(request.headers.get('prefer')) ?? fallback ?? {};
  // As Prism: without a code, only the success status's examples are looked at.
  const status = choice.code ?? table.successStatus;
  let index = examples.findIndex(([s, name]) => s === status && (choice.example === undefined || name === choice.example));
  if (index < 0) throw new NoSuchExampleError(operationId, choice, examples.map(([s, n]) => `code=${s}, example=${n}`));
  // Following a cursor ends the walk: the answer to a next-page request is the last page.
  if (table.lastPage !== null && examples[index]![0] === table.successStatus && new URL(request.url).searchParams.has('after')) index = table.lastPage;
  return index;
}
