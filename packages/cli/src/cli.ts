/**
 * gateway-minds <operation id> [flags]: calls one operation through
 * @gateway-minds/client and prints the JSON result. Exit codes: 0 success,
 * 1 the API answered an error (or no answer came), 2 a usage error.
 */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
// The same format checks the servers' validator (express-openapi-validator, through Ajv) applies.
import { fullFormats } from 'ajv-formats/dist/formats.js';
import {
  APIError,
  APIConnectionError,
  createClient,
  importDpopKey,
  GatewayMindsError,
  WaitFailedError,
  WaitTimeoutError,
  type DpopKeyPair,
  type GatewayMindsClient,
  type Mind,
} from '@gateway-minds/client';
import { toCallInput } from '@gateway-minds/client/inputs';
import { errorCatalog } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { commands, GLOBAL_FLAGS, type Command, type Flag } from './commands.js';
import { commandHelp, mainHelp } from './help.js';

export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface Io {
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export class UsageError extends Error {}

const FORMAT_NAMES: Record<string, string> = { 'date-time': 'an RFC 3339 date-time', date: 'an RFC 3339 date', uuid: 'a UUID', uri: 'an absolute URI' };

/** Whether a string has the spec's `format` (undefined: a format the checker does not know, left to the server). */
function hasFormat(format: string, value: string): boolean | undefined {
  const check = (fullFormats as Record<string, unknown>)[format];
  const test = (rule: unknown): boolean | undefined =>
    rule instanceof RegExp ? rule.test(value) : typeof rule === 'function' ? Boolean((rule as (v: string) => unknown)(value)) : undefined;
  if (check && typeof check === 'object' && !(check instanceof RegExp) && 'validate' in check) return test((check as { validate: unknown }).validate);
  return test(check);
}

function parseScalar(flag: Flag, raw: string): unknown {
  if (flag.nullable && raw === 'null') return null;
  const format = flag.kind === 'string' ? (flag.field.schema.format as string | undefined) : undefined;
  if (format && hasFormat(format, raw) === false) {
    // Said here, before sending: the server's INVALID_QUERY would not say which form it wanted.
    const example = typeof flag.example === 'string' ? ` such as ${flag.example}` : '';
    throw new UsageError(`--${flag.flag} takes ${FORMAT_NAMES[format] ?? `a value of format ${format}`}${example}; got ${JSON.stringify(raw)}`);
  }
  switch (flag.kind) {
    case 'integer':
    case 'number': {
      const value = Number(raw);
      if (raw.trim() === '' || Number.isNaN(value) || (flag.kind === 'integer' && !Number.isSafeInteger(value))) {
        throw new UsageError(`--${flag.flag} takes ${flag.kind === 'integer' ? 'an integer' : 'a number'}, got ${JSON.stringify(raw)}`);
      }
      return value;
    }
    case 'boolean':
      if (raw === 'true' || raw === 'false') return raw === 'true';
      throw new UsageError(`--${flag.flag} takes true or false`);
    case 'json':
      return parseJson(`--${flag.flag}`, raw);
    default:
      return raw;
  }
}

function parseJson(what: string, raw: string): unknown {
  const text = raw.startsWith('@') ? readFileSync(raw.slice(1), 'utf8') : raw;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON: ${(error as Error).message}`);
  }
}

function valueOf(flag: Flag, raw: unknown): unknown {
  if (typeof raw === 'boolean') return raw;
  const values = Array.isArray(raw) ? (raw as string[]) : [raw as string];
  if (flag.multiple) {
    if (values.length === 1 && values[0]!.trim().startsWith('[')) return parseJson(`--${flag.flag}`, values[0]!);
    return values.flatMap((v) => v.split(',')).map((v) => parseScalar(flag, v.trim()));
  }
  const value = parseScalar(flag, values.at(-1)!);
  if (flag.enumValues && !flag.enumValues.includes(value) && !(flag.nullable && value === null)) {
    throw new UsageError(`--${flag.flag} must be one of ${flag.enumValues.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value;
}

async function loadDpopKey(file: string): Promise<DpopKeyPair> {
  try {
    return await importDpopKey(JSON.parse(readFileSync(file, 'utf8')));
  } catch (error) {
    throw new UsageError(`--dpop-key ${file}: ${(error as Error).message}`);
  }
}

const print = (out: Output, value: unknown, pretty: boolean) => out.write(`${JSON.stringify(value, null, pretty ? 2 : undefined)}\n`);

/** Writes an error the way a person reads it: code, message, docs, request id. */
export function describeError(error: unknown): string {
  if (error instanceof APIError) {
    const lines = [`error: ${error.code ?? 'HTTP_' + error.status} (${error.status}${error.type ? ` ${error.type}` : ''}): ${error.code ? (error.body as { message: string }).message : error.message}`];
    if (error.docsUrl) lines.push(`  docs_url:   ${error.docsUrl}`);
    if (error.requestId) lines.push(`  request_id: ${error.requestId}`);
    if (error.requiredScope) lines.push(`  required_scope: ${error.requiredScope}`);
    if (error.reason) {
      // What the catalog says the reason means (ErrorCode.yaml, x-reasons), when this client's catalog lists it.
      const meaning = error.code ? (errorCatalog[error.code].reasons as Record<string, string>)[error.reason] : undefined;
      lines.push(`  reason:     ${error.reason}${meaning ? ` (${meaning})` : ''}`);
    }
    if (error.layer) lines.push(`  layer:      ${error.layer}`);
    for (const violation of error.errors ?? []) lines.push(`  - ${violation.location}: ${violation.message}`);
    if (error.retryAfter !== undefined) lines.push(`  retry after ${error.retryAfter} s`);
    if (error.outcomeUnknown) {
      lines.push(error.idempotencyKey ? `  the outcome is unknown: retry with --idempotency-key ${error.idempotencyKey}` : '  the outcome is unknown: read the state before trying again');
    }
    return lines.join('\n');
  }
  if (error instanceof APIConnectionError) {
    const cause = (error.cause as Error | undefined)?.cause as { code?: string } | undefined;
    const lines = [`error: ${error.message}${cause?.code ? ` (${cause.code})` : ''}`];
    if (error.outcomeUnknown) lines.push(error.idempotencyKey ? `  the outcome is unknown: retry with --idempotency-key ${error.idempotencyKey}` : '  the outcome is unknown: read the state before trying again');
    return lines.join('\n');
  }
  if (error instanceof WaitTimeoutError || error instanceof WaitFailedError) return `error: ${error.message}`;
  if (error instanceof GatewayMindsError) return `error: ${error.message}`;
  return `error: ${(error as Error)?.message ?? String(error)}`;
}

function progress(stderr: Output) {
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let frame = 0;
  let last = '';
  return {
    update(mind: Mind, elapsedMs: number, target: string) {
      const text = `Mind ${mind.mind_id}: ${mind.status} (desired ${mind.desired_state}, observed ${mind.observed_state}), waiting for ${target}`;
      if (stderr.isTTY) {
        stderr.write(`\r\x1b[2K${frames[frame++ % frames.length]} ${text}  ${(elapsedMs / 1000).toFixed(1)} s`);
      } else if (text !== last) {
        stderr.write(`${text}  ${(elapsedMs / 1000).toFixed(1)} s\n`);
      }
      last = text;
    },
    done() {
      if (stderr.isTTY) stderr.write('\n');
    },
  };
}

function optionsFor(command: Command | undefined): ParseArgsConfig['options'] {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries(GLOBAL_FLAGS)) options[name] = { type: spec.type, ...('short' in spec ? { short: spec.short } : {}) };
  for (const flag of command?.flags ?? []) {
    for (const name of [flag.flag, ...flag.aliases]) options[name] = { type: flag.kind === 'boolean' && !flag.multiple ? 'boolean' : 'string', multiple: flag.multiple };
  }
  return options;
}

export async function run(argv: readonly string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  const table = commands();
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(mainHelp());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-V') {
    // The package's version is the API version it speaks: the spec's info.version.
    io.stdout.write(`${openapiDocument.info.version}\n`);
    return 0;
  }
  const command = table.get(name);
  if (!command) {
    const near = [...table.keys()].filter((id) => id.toLowerCase().includes(name.toLowerCase().replace(/^.*_/, '')));
    io.stderr.write(`error: no command ${name}${near.length ? `; did you mean ${near.slice(0, 3).join(', ')}?` : ''}\nRun gateway-minds --help for the list.\n`);
    return 2;
  }

  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    ({ values } = parseArgs({ args: [...rest], options: optionsFor(command), strict: true, allowPositionals: false }));
  } catch (error) {
    io.stderr.write(`error: ${(error as Error).message}\nRun gateway-minds ${name} --help for its flags.\n`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(commandHelp(command));
    return 0;
  }

  const pretty = values.pretty ? true : values.compact ? false : !!io.stdout.isTTY;
  let client: GatewayMindsClient;
  let input: ReturnType<typeof toCallInput>;
  const seconds = (flag: string, fallback: number) => {
    const raw = values[flag];
    if (raw === undefined) return fallback * 1000;
    const value = Number(raw);
    if (!(value >= 0)) throw new UsageError(`--${flag} takes a number of seconds`);
    return value * 1000;
  };
  let waitFor: string | undefined;
  let waitTimeoutMs = 300_000;
  try {
    const flat: Record<string, unknown> = {};
    if (typeof values.body === 'string') {
      if (!command.inputs.body) throw new UsageError(`${name} takes no body`);
      flat.body = parseJson('--body', values.body);
    }
    for (const flag of command.flags) {
      const raw = [flag.flag, ...flag.aliases].map((n) => values[n]).find((v) => v !== undefined);
      if (raw !== undefined) flat[flag.field.name] = valueOf(flag, raw);
    }
    const fromBody = flat.body && typeof flat.body === 'object' ? (flat.body as Record<string, unknown>) : {};
    const missing = command.flags.filter((f) => f.required && flat[f.field.name] === undefined && !(f.field.in === 'body' && f.field.name in fromBody));
    if (missing.length) throw new UsageError(`${name} needs ${missing.map((f) => `--${f.flag}`).join(', ')}`);
    if (command.inputs.body?.required && !command.inputs.bodyFlattened && flat.body === undefined) throw new UsageError(`${name} needs --body`);
    input = toCallInput(command.inputs, flat);

    waitFor = values['wait-for'] as string | undefined;
    if (waitFor !== undefined) {
      if (!command.waitStatuses) throw new UsageError(`--wait-for works on commands whose result is a Mind; ${name} is not one`);
      if (!command.waitStatuses.includes(waitFor)) throw new UsageError(`--wait-for takes one of ${command.waitStatuses.join(', ')}`);
      waitTimeoutMs = seconds('wait-timeout', 300);
    }
    const token = (values.token as string | undefined) ?? io.env.GATEWAY_MINDS_TOKEN;
    const maxRetries = values['max-retries'] === undefined ? 2 : Number(values['max-retries']);
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new UsageError('--max-retries takes a whole number');
    const dpopFile = (values['dpop-key'] as string | undefined) ?? io.env.GATEWAY_MINDS_DPOP_KEY;
    client = createClient({
      baseUrl: (values['base-url'] as string | undefined) ?? io.env.GATEWAY_MINDS_URL ?? DEFAULT_BASE_URL,
      ...(token ? { token } : {}),
      timeoutMs: seconds('timeout', 60),
      retry: { maxRetries },
      ...(dpopFile ? { dpop: { key: await loadDpopKey(dpopFile), retryWithNonce: values['dpop-nonce-retry'] === true } } : {}),
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`error: ${error.message}\nRun gateway-minds ${name} --help for its flags.\n`);
    return 2;
  }

  try {
    const method = client[command.name] as unknown as (input: unknown) => Promise<unknown>;
    let result = await method(input);
    if (waitFor !== undefined) {
      const mind = result as Mind;
      const display = progress(io.stderr);
      try {
        result = await client.waitForMind(mind.mind_id, waitFor as Mind['status'], {
          timeoutMs: waitTimeoutMs,
          intervalMs: Number(io.env.GATEWAY_MINDS_POLL_MS ?? 1000),
          onProgress: (m, elapsed) => display.update(m, elapsed, waitFor!),
          request: { maxRetries: Math.max(2, Number(values['max-retries'] ?? 2)) },
        });
      } finally {
        display.done();
      }
    }
    print(io.stdout, result ?? null, pretty);
    return 0;
  } catch (error) {
    io.stderr.write(`${describeError(error)}\n`);
    if (error instanceof WaitTimeoutError || error instanceof WaitFailedError) print(io.stdout, error.last ?? null, pretty);
    return 1;
  }
}
