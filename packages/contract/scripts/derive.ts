/** Pure derivations from the bundled document, shared by the build and the tests. */
import { httpMethods, type OpenApiDocument, type OpenApiParameter } from '../src/document-types.js';
import type { AuthenticationFacts, ChallengeFacts, ErrorCatalogFacts, ErrorEnvelopeField, ErrorType } from '../src/error-types.js';
import type { OperationFacts, ParameterFacts } from '../src/operation-types.js';
import { lookupRef } from '../src/json-pointer.js';
import { operationParameters } from '../src/parameters.js';

export type { OpenApiDocument };

interface CatalogEntrySchema {
  const: string;
  description: string;
  'x-status': number;
  'x-type': ErrorType;
  'x-retry-after'?: boolean;
  'x-fields'?: ErrorEnvelopeField[];
  'x-outcome-unknown'?: boolean;
  'x-challenge'?: { scheme: ChallengeFacts['scheme']; error?: string };
  'x-reasons'?: Record<string, string>;
}

export function deriveErrorCatalog(doc: OpenApiDocument): Record<string, ErrorCatalogFacts> {
  const schema = doc.components?.schemas?.ErrorCode as { oneOf?: CatalogEntrySchema[] } | undefined;
  if (!schema?.oneOf) throw new Error('components.schemas.ErrorCode must be a oneOf of const entries');
  const catalog: Record<string, ErrorCatalogFacts> = {};
  // A listed reason must be one the envelope can carry: the Error schema's own rule for `reason`.
  const reasonSchema = (doc.components?.schemas?.Error as { properties?: Record<string, { pattern?: string; maxLength?: number }> } | undefined)?.properties?.reason;
  if (!reasonSchema?.pattern || !reasonSchema.maxLength) throw new Error('components.schemas.Error must give `reason` a pattern and a maxLength');
  const reasonPattern = new RegExp(reasonSchema.pattern, 'u');
  const reasonMaxLength = reasonSchema.maxLength;
  for (const entry of schema.oneOf) {
    if (catalog[entry.const]) throw new Error(`error code ${entry.const} is listed twice`);
    const challenge = entry['x-challenge'];
    // RFC 9110 §15.5.2: a 401 MUST carry WWW-Authenticate, so every 401 code says which challenge.
    if ((entry['x-status'] === 401) !== (challenge !== undefined)) throw new Error(`error code ${entry.const}: x-challenge belongs on exactly the 401 codes`);
    if (challenge && challenge.scheme !== 'Bearer' && challenge.scheme !== 'DPoP') throw new Error(`error code ${entry.const}: x-challenge.scheme is Bearer or DPoP`);
    const reasons = entry['x-reasons'] ?? {};
    for (const [reason, meaning] of Object.entries(reasons)) {
      if (!reasonPattern.test(reason) || reason.length > reasonMaxLength) throw new Error(`error code ${entry.const}: reason ${reason} does not match the Error schema's \`reason\` (${reasonSchema.pattern}, at most ${reasonMaxLength} characters)`);
      if (typeof meaning !== 'string' || meaning.trim() === '') throw new Error(`error code ${entry.const}: reason ${reason} needs a description`);
    }
    catalog[entry.const] = {
      status: entry['x-status'],
      type: entry['x-type'],
      description: entry.description,
      retryAfter: entry['x-retry-after'] ?? false,
      fields: entry['x-fields'] ?? [],
      reasons,
      outcomeUnknown: entry['x-outcome-unknown'] ?? false,
      challenge: challenge ? { scheme: challenge.scheme, error: challenge.error ?? null } : null,
    };
  }
  return catalog;
}

function resolveParameter(doc: OpenApiDocument, parameter: OpenApiParameter): OpenApiParameter {
  return parameter.$ref ? (lookupRef(doc, parameter.$ref) as OpenApiParameter) : parameter;
}

export function serviceOf(path: string): string {
  const segments = path.split('/').filter(Boolean);
  return segments.length > 2 && segments[1] ? segments[1] : 'gateway';
}

export function deriveOperationTable(doc: OpenApiDocument): Record<string, OperationFacts> {
  const table: Record<string, OperationFacts> = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of httpMethods) {
      const op = item[method];
      if (!op) continue;
      if (table[op.operationId]) throw new Error(`operation id ${op.operationId} is used twice`);
      const statuses = Object.keys(op.responses).map(Number);
      const success = statuses.filter((s) => s >= 200 && s < 300);
      if (success.length !== 1) throw new Error(`${op.operationId} must declare exactly one success status`);
      const parameters: ParameterFacts[] = operationParameters(item, op, (p) => resolveParameter(doc, p))
        .filter((p): p is OpenApiParameter & { in: ParameterFacts['in'] } => p.in !== 'cookie')
        .map((p) => ({ name: p.name, in: p.in, required: p.required ?? false, missingCode: (p['x-missing-code'] as string | undefined) ?? null }));
      const readOnly = method === 'get' || op['x-read-only'] === true;
      const retryExtension = op['x-automatic-retry'];
      if (retryExtension !== undefined && retryExtension !== false && !(retryExtension === true && readOnly)) {
        throw new Error(`${op.operationId}: x-automatic-retry must be false, or true on a read-only operation`);
      }
      table[op.operationId] = {
        operationId: op.operationId,
        method,
        path,
        service: serviceOf(path),
        tag: op.tags?.[0] ?? '',
        summary: op.summary ?? '',
        description: op.description ?? '',
        readOnly,
        automaticRetry: readOnly && retryExtension !== false,
        successStatus: success[0]!,
        errorStatuses: statuses.filter((s) => s >= 400).sort((a, b) => a - b),
        security: ((op.security ?? doc.security ?? []) as Record<string, string[]>[]).flatMap((requirement) =>
          Object.entries(requirement).map(([scheme, scopes]) => ({ scheme, scopes })),
        ),
        parameters,
        hasRequestBody: op.requestBody !== undefined,
        credentialRefusal: (op['x-credential-refusal'] as string | undefined) ?? null,
        requiresSandboxSelection: op['x-sandbox-selection'] === 'required',
        requiresOriginalSession: op['x-original-session'] === 'required',
        admissionSetting: (op['x-admission-setting'] as string | undefined) ?? null,
        dpopHtm: (op['x-dpop-htm'] as string | undefined) ?? null,
      };
    }
  }
  return table;
}

export interface CredentialSchemeFacts {
  /** The key of components.securitySchemes. */
  scheme: string;
  kind: string;
  /** What every token of this kind starts with (from bearerFormat `ak_<token>`). */
  tokenPrefix: string;
}

export function deriveCredentialSchemes(doc: OpenApiDocument): Record<string, CredentialSchemeFacts> {
  const table: Record<string, CredentialSchemeFacts> = {};
  for (const [scheme, definition] of Object.entries(doc.components?.securitySchemes ?? {})) {
    const kind = definition['x-credential-kind'];
    const format = definition.bearerFormat;
    if (typeof kind !== 'string' || typeof format !== 'string' || !format.endsWith('<token>')) {
      throw new Error(`security scheme ${scheme} needs x-credential-kind and a bearerFormat of the form <prefix><token>`);
    }
    table[kind] = { scheme, kind, tokenPrefix: format.slice(0, -'<token>'.length) };
  }
  return table;
}

export interface GatewayLimits {
  maxPathLength: number;
  maxQueryLength: number;
  maxBodyBytes: number;
  /** The largest answer the gateway relays from a service (BAD_GATEWAY, response_too_large, above it). */
  maxUpstreamResponseBytes: number;
  /** The request line plus headers a listener accepts (Node's maxHeaderSize): room for the longest path and query plus ordinary headers. */
  maxHeaderBlockBytes: number;
  /** How long a client may take to send a whole request, headers and body (Node's requestTimeout). */
  requestReadTimeoutMs: number;
}

export function deriveGatewayLimits(doc: OpenApiDocument): GatewayLimits {
  const limits = doc.info['x-gateway-limits'] as Partial<GatewayLimits> | undefined;
  for (const key of ['maxPathLength', 'maxQueryLength', 'maxBodyBytes', 'maxUpstreamResponseBytes', 'maxHeaderBlockBytes', 'requestReadTimeoutMs'] as const) {
    if (!Number.isInteger(limits?.[key])) throw new Error(`info.x-gateway-limits.${key} must be a whole number`);
  }
  return limits as GatewayLimits;
}

export function deriveAuthentication(doc: OpenApiDocument): AuthenticationFacts {
  const facts = doc.info['x-authentication'] as Partial<AuthenticationFacts> | undefined;
  // The realm is sent as an RFC 9110 quoted-string: keep it to characters that need no escaping.
  if (typeof facts?.realm !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e ]+$/.test(facts.realm)) throw new Error('info.x-authentication.realm must be a plain string');
  if (!Array.isArray(facts.dpopAlgorithms) || facts.dpopAlgorithms.length === 0 || !facts.dpopAlgorithms.every((a) => /^[A-Za-z0-9]+$/.test(a))) {
    throw new Error('info.x-authentication.dpopAlgorithms must list JWS algorithm names');
  }
  return { realm: facts.realm, dpopAlgorithms: facts.dpopAlgorithms };
}
