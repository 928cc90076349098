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

/** Raised (MSW answers it as a 500) when a selection names no example of the operation. */
export class NoSuchExampleError extends Error {
  override name = 'NoSuchExampleError';
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
  if (index < 0) {
    const available = examples.map(([s, n]) => `code=${s}, example=${n}`).join('; ');
    throw new NoSuchExampleError(`${operationId}: no example for ${JSON.stringify(choice)}; it has ${available}`);
  }
  // Following a cursor ends the walk: the answer to a next-page request is the last page.
  if (table.lastPage !== null && examples[index]![0] === table.successStatus && new URL(request.url).searchParams.has('after')) index = table.lastPage;
  return index;
}
