/**
 * Which code and message answer which invalid request: one list of refusal rules, each with a
 * stable id, the request it covers, its catalog code and its message (the way a breaking-change
 * checker registers its checks). The services (service-kit, the gateway's own rules), the MSW
 * handlers and the conformance suites all refuse through it, so a code or a message is written
 * here once. The places and their codes are spec/DECISIONS.md's, "Which code for a validation
 * failure"; a code is a key of the spec's error catalog (the type refuses any other).
 *
 * Browser-safe: the MSW handlers import it.
 */
import type { components } from './generated/schema.js';
import { gatewayLimits } from './generated/gateway-limits.js';
import type { LocatedIssue } from './request-text.js';

type ErrorCode = components['schemas']['ErrorCode'];

/** One refusal rule. */
export interface RefusalRule {
  /** Stable: what code and tests name the rule by. */
  readonly id: string;
  /** The invalid request the rule answers. */
  readonly condition: string;
  /** The catalog code it answers with. */
  readonly code: ErrorCode;
  /**
   * A header parameter's own code, named by the spec, that answers instead of `code` when the
   * header has one (`x-missing-code` on the parameter, `x-invalid-code` on its schema).
   */
  readonly ownCode?: 'x-missing-code' | 'x-invalid-code';
  /** The catalog reason sent with the code, for codes that carry one. */
  readonly reason?: string;
  /** The envelope's `message`; `{name}` placeholders are filled in by `refusal`. */
  readonly message: string;
  /** The `errors[]` message, for rules that locate the problem themselves (`query.<name>`). */
  readonly issue?: string;
}

const bodyLimit = `The body exceeds this operation's limit of ${gatewayLimits.maxBodyBytes} bytes.`;
const queryFailed = 'The query parameters failed validation.';
const usageRead = 'The usage read {why}; it accepts only {accepts}.';

export const refusalRules = [
  // What the listener refuses before any handler runs (DECISIONS, "What Node itself refuses").
  { id: 'request-read-timeout', condition: 'the request, headers and body, is not received within the read deadline', code: 'BAD_REQUEST', reason: 'request_read_timeout', message: `The request was not received within ${gatewayLimits.requestReadTimeoutMs} ms.` },
  { id: 'header-block-too-large', condition: 'the request line and headers exceed the header block limit', code: 'BAD_REQUEST', reason: 'header_block_too_large', message: `The request line and headers exceed ${gatewayLimits.maxHeaderBlockBytes} bytes.` },
  { id: 'malformed-http', condition: 'the bytes received are not an HTTP/1.1 request', code: 'BAD_REQUEST', reason: 'malformed_http', message: 'The request is not well-formed HTTP/1.1.' },
  { id: 'path-too-long', condition: 'the path is longer than the path limit', code: 'PATH_INVALID', message: `The path exceeds ${gatewayLimits.maxPathLength} characters.` },
  { id: 'query-too-long', condition: 'the query string is longer than the query limit', code: 'QUERY_TOO_LONG', message: `The query string exceeds ${gatewayLimits.maxQueryLength} characters.` },
  { id: 'path-forbidden', condition: 'the path has a dot segment, an encoded slash or backslash, a control character or an empty segment', code: 'PATH_INVALID', message: 'The path contains forbidden characters or encodings.' },

  // Matching the request to an operation.
  { id: 'route-not-found', condition: 'no operation is at the path', code: 'ROUTE_NOT_FOUND', message: 'No service or operation at this path.' },
  { id: 'method-not-allowed', condition: 'operations are at the path, none with the method', code: 'METHOD_NOT_ALLOWED', message: 'The path does not accept {method}.' },
  { id: 'path-malformed-encoding', condition: 'an identifier in the path has a malformed percent-encoding', code: 'INVALID_IDENTIFIER', message: 'An identifier in the path has a malformed percent-encoding.' },

  // The query.
  { id: 'query-not-allowed', condition: 'a query string on an operation that takes no query parameters', code: 'QUERY_NOT_ALLOWED', message: 'This operation takes no query parameters.' },
  { id: 'query-malformed', condition: 'the query string cannot be read as name=value pairs', code: 'INVALID_QUERY', message: 'The query string is malformed.' },
  { id: 'query-unknown-parameter', condition: 'a query parameter the operation does not declare', code: 'INVALID_QUERY', message: queryFailed, issue: 'is not a parameter of this operation' },
  { id: 'query-repeated', condition: 'a query parameter given more than once', code: 'INVALID_QUERY', message: queryFailed, issue: 'is repeated' },
  { id: 'query-ill-formed-text', condition: 'a query value with U+0000 or text that is not well-formed Unicode', code: 'INVALID_QUERY', message: queryFailed, issue: 'contains U+0000 or text that is not well-formed Unicode' },
  { id: 'query-not-decimal', condition: 'an integer query parameter not written as a decimal whole number (0x10, 1e1, Infinity)', code: 'INVALID_QUERY', message: queryFailed, issue: 'must be a whole number written in decimal' },
  { id: 'query-invalid', condition: "a query parameter missing, or against its schema", code: 'INVALID_QUERY', message: queryFailed },

  // Path identifiers and headers.
  { id: 'path-invalid', condition: 'a path parameter against its schema', code: 'INVALID_IDENTIFIER', message: 'The identifier in the path is not valid.' },
  { id: 'header-missing', condition: 'a required header that names its own code (x-missing-code) is absent', code: 'BAD_REQUEST', ownCode: 'x-missing-code', message: 'The {name} header is required.' },
  { id: 'header-invalid-own-code', condition: 'a header whose schema names its own code (x-invalid-code) is against that schema', code: 'BAD_REQUEST', ownCode: 'x-invalid-code', message: 'The {name} header is not of the published shape.' },
  { id: 'header-invalid', condition: 'any other header missing or against its schema', code: 'BAD_REQUEST', message: 'A header failed validation.' },

  // The body.
  { id: 'body-not-allowed', condition: 'a body on an operation that takes none', code: 'BODY_NOT_ALLOWED', message: 'This operation takes no body.' },
  { id: 'json-required', condition: 'no body where one is required, or a Content-Type other than application/json (charset UTF-8 at most)', code: 'JSON_REQUIRED', message: 'The body must be application/json.' },
  { id: 'body-encoding-unsupported', condition: 'a Content-Encoding or charset the server does not read', code: 'JSON_REQUIRED', message: 'The body must be UTF-8 application/json.' },
  { id: 'payload-too-large', condition: 'a body, declared or read, over the body limit', code: 'PAYLOAD_TOO_LARGE', message: bodyLimit },
  { id: 'body-not-utf8', condition: 'a body that is not UTF-8', code: 'INVALID_ARGUMENT', message: 'The body is not valid UTF-8.' },
  { id: 'body-not-json', condition: 'a body that is not a JSON object or array', code: 'INVALID_ARGUMENT', message: 'The body is not valid JSON.' },
  { id: 'body-ill-formed-text', condition: 'a body string with U+0000 or a lone surrogate', code: 'INVALID_ARGUMENT', message: 'The body contains text that cannot be stored as sent.' },
  { id: 'body-invalid', condition: 'a body against its schema (shape, types, patterns, bounds, unknown fields)', code: 'INVALID_ARGUMENT', message: 'The JSON body is not exactly the published shape.' },
  { id: 'body-over-byte-limit', condition: 'a body field within its character bound and over its UTF-8 byte limit (x-max-bytes)', code: 'INVALID_ARGUMENT', message: 'A field exceeds its UTF-8 byte limit.' },

  // The organization usage read's own rule (DECISIONS, "The gateway usage body"): `{accepts}` is what it takes.
  { id: 'usage-read-body', condition: 'the usage read with a body', code: 'INVALID_ORG_READ', message: usageRead.replace('{why}', 'carried a body') },
  { id: 'usage-read-path', condition: 'the usage read on a path other than its canonical one', code: 'INVALID_ORG_READ', message: usageRead.replace('{why}', 'used a non-canonical path') },
  { id: 'usage-read-unknown-parameter', condition: 'the usage read with a query parameter it does not take', code: 'INVALID_ORG_READ', message: usageRead.replace('{why}', 'carried the query parameter {name}') },
  { id: 'usage-read-repeated', condition: 'the usage read with a query parameter given more than once', code: 'INVALID_ORG_READ', message: usageRead.replace('{why}', 'repeated {name}') },
  { id: 'usage-read-value', condition: 'the usage read asking for a value its enum does not list (days)', code: 'INVALID_ORG_READ', message: usageRead.replace('{why}', 'asked for {name}={value}') },

  // What a Minds handler refuses that no schema can say: an order between two fields, or a bound
  // measured from the server's clock. `{days}` is the operation's own extension (x-max-window-days,
  // x-max-days-ahead).
  { id: 'usage-window-invalid', condition: "the usage window's `to` not after `from`, or more than x-max-window-days after it", code: 'INVALID_QUERY', reason: 'window_invalid', message: '`to` must be after `from` and at most {days} days after it.' },
  { id: 'usage-window-not-started', condition: "the usage window's `from` not in the past (DECISIONS, \"A usage window reaching past now\")", code: 'INVALID_QUERY', reason: 'window_not_started', message: '`from` is not in the past: a window that has not started has no usage to report yet.' },
  { id: 'attachment-expiry-out-of-range', condition: "an attachment's `expiresAt` not in the future, or more than x-max-days-ahead after server time", code: 'INVALID_REQUEST', reason: 'expires_at_out_of_range', message: 'expiresAt must be in the future and at most {days} days after server time.' },
] as const satisfies readonly RefusalRule[];

export type RefusalRuleId = (typeof refusalRules)[number]['id'];

/** A refused request: the catalog code, its message, the reason (for codes that carry one) and every located problem. */
export interface Refusal {
  code: ErrorCode;
  message: string;
  reason?: string;
  errors?: LocatedIssue[];
}

const rulesById = new Map<string, RefusalRule>(refusalRules.map((rule) => [rule.id, rule]));

/** The rule of `id`; throws for an id the registry does not have. */
export function refusalRule(id: RefusalRuleId): RefusalRule {
  const rule = rulesById.get(id);
  if (!rule) throw new Error(`no refusal rule ${id}`);
  return rule;
}

/**
 * The refusal rule `id` answers with: its code (or the header's own code, `ownCode`, for a rule
 * that takes one), its message with `{name}` placeholders filled from `values`, and its reason.
 */
export function refusal(id: RefusalRuleId, values: Readonly<Record<string, string | number>> = {}, ownCode?: string | null): Refusal {
  const rule = refusalRule(id);
  if (ownCode && !rule.ownCode) throw new Error(`refusal rule ${id} answers with its own code only`);
  const message = rule.message.replace(/\{(\w+)\}/g, (placeholder, name: string) => (name in values ? String(values[name]) : placeholder));
  return { code: (ownCode || rule.code) as ErrorCode, message, ...(rule.reason ? { reason: rule.reason } : {}) };
}

/** The `errors[]` entry of a rule that locates its problem (`query-repeated` at `query.limit`). */
export function refusalIssue(id: RefusalRuleId, location: string): LocatedIssue {
  const { issue } = refusalRule(id);
  if (!issue) throw new Error(`refusal rule ${id} has no errors[] message`);
  return { location, message: issue };
}

/**
 * The Content-Types a JSON body may be sent with: application/json, with at most a UTF-8 charset
 * (the `json-required` rule).
 */
export const jsonContentType = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i;

export function isJsonContentType(value: string | null | undefined): boolean {
  return typeof value === 'string' && jsonContentType.test(value.trim());
}
