/**
 * Handlers for the operations the gateway answers itself, bound by operation
 * id: status, whoami, usage, errors, openapi.json, and credential verification.
 */
import type { RequestHandler } from 'express';
import { errorCatalog, errorCodes, errorDocsUrl, operationTable, type OperationFacts, type RefusalRuleId, type Schemas, type ServiceOperationId } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { isDatabaseUnavailable, type Database } from '@gateway-minds/db';
import { ServiceError, refused, requestContext, type HandlerTable, type VerifiedPrincipal } from '@gateway-minds/service-kit';
import type { CredentialStore } from '../iam/credentials.js';
import type { AdmissionProbe } from '../routing/admission-probe.js';
import type { StatusProbe } from '../routing/status-probe.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import { servedDocument } from './served-document.js';

export interface GatewayRouteDeps {
  db: Database;
  store: CredentialStore;
  probe: StatusProbe;
  usage: UsageRecorder;
  admissions: AdmissionProbe;
  /** The base of every `docs_url`, read per request: with port 0 it is known only once the gateway listens. */
  docsBaseUrl: () => string;
  /** The gateway's public URL, the served document's server. */
  publicBaseUrl: () => string;
  /** Services the gateway answers itself. */
  builtInServices: readonly string[];
}

const usageDays = (openapiDocument.components!.schemas!.UsageDays as { enum: number[] }).enum;
const usageOperation = operationTable.gateway_getUsage;
/** "days=7 or days=30", from the spec's UsageDays, for the refusal's message. */
const acceptedDays = usageDays.map((days) => `days=${days}`).join(' or ');

/**
 * An organization usage read takes only `days` (UsageDays) and `service`, each
 * once, on the canonical path, with no body; anything else is INVALID_ORG_READ
 * (spec/DECISIONS.md, "The gateway usage body").
 */
export const usageReadGuard: RequestHandler = (req, _res, next) => {
  const refuse = (id: RefusalRuleId, values: Record<string, string> = {}) => next(refused(id, { values: { ...values, accepts: `${acceptedDays} and an optional service` } }));
  if (req.headers['content-length'] && req.headers['content-length'] !== '0') return refuse('usage-read-body');
  if (req.headers['transfer-encoding']) return refuse('usage-read-body');
  if (req.path !== usageOperation.path) return refuse('usage-read-path');
  const raw = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
  const params = new URLSearchParams(raw);
  const allowed = new Set<string>(usageOperation.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  for (const name of new Set(params.keys())) {
    if (!allowed.has(name)) return refuse('usage-read-unknown-parameter', { name });
    if (params.getAll(name).length > 1) return refuse('usage-read-repeated', { name });
  }
  const days = params.get('days');
  if (days !== null && !usageDays.map(String).includes(days)) return refuse('usage-read-value', { name: 'days', value: days });
  next();
};

function principalOf(res: Parameters<RequestHandler>[1]): VerifiedPrincipal {
  return res.locals.principal as VerifiedPrincipal;
}

/**
 * One handler per operation the gateway answers itself (services `gateway` and `iam`). An operation
 * added to the spec for either is a type error here, naming it, until its handler is bound
 * (`npm run scaffold:handler -- <operationId>` writes one).
 */
export function gatewayHandlers(deps: GatewayRouteDeps): HandlerTable<ServiceOperationId<'gateway' | 'iam'>> {
  return {
    gateway_getStatus: async (_req, res) => {
      res.json(await deps.probe.status());
    },

    gateway_getPrincipal: (_req, res) => {
      const principal = principalOf(res);
      const body: Schemas['Principal'] = {
        object: 'principal',
        kind: principal.kind as Schemas['PrincipalKind'],
        org: principal.org,
        principal: principal.principal,
        scopes: principal.scopes,
      };
      res.json(body);
    },

    gateway_getUsage: async (req, res) => {
      const principal = principalOf(res);
      const days = Number(req.query.days ?? usageDays.at(-1));
      const service = typeof req.query.service === 'string' ? req.query.service : null;
      // A database lost meanwhile is USAGE_UNAVAILABLE (a read: retry it), not a 500.
      const unavailable = (error: unknown): never => {
        if (!isDatabaseUnavailable(error)) throw error;
        throw new ServiceError('USAGE_UNAVAILABLE', 'Usage could not be read from the database; nothing was changed. Retry the read.', { reason: 'database_unavailable' });
      };
      await deps.usage.flush().catch(unavailable);
      const to = new Date();
      const from = new Date(to.getTime() - days * 86_400_000);
      const { rows } = await deps.db
        .query<{ service: string; requests: number; client_errors: number; server_errors: number; last_request_at: Date }>(
          `select service, sum(requests)::bigint as requests, sum(client_errors)::bigint as client_errors,
                  sum(server_errors)::bigint as server_errors, max(last_request_at) as last_request_at
             from request_counts
            where organization_id = $1 and day >= $2::date and ($3::text is null or service = $3)
            group by service order by service`,
          [principal.org, from.toISOString().slice(0, 10), service],
        )
        .catch(unavailable);
      const services = rows.map((row) => ({
        service: row.service,
        requests: Number(row.requests),
        client_errors: Number(row.client_errors),
        server_errors: Number(row.server_errors),
        last_request_at: row.last_request_at.toISOString(),
      }));
      if (service && services.length === 0) {
        services.push({ service, requests: 0, client_errors: 0, server_errors: 0, last_request_at: null as never });
      }
      const body: Schemas['GatewayUsage'] = {
        object: 'gateway_usage',
        organization_id: principal.org,
        days: days as Schemas['UsageDays'],
        from: from.toISOString(),
        to: to.toISOString(),
        services,
      };
      res.json(body);
    },

    gateway_listErrors: (_req, res) => {
      const body: Schemas['ErrorCatalog'] = {
        object: 'error_catalog',
        errors: errorCodes.map((code) => {
          const facts = errorCatalog[code];
          return {
            code,
            status: facts.status,
            type: facts.type,
            description: facts.description,
            docs_url: errorDocsUrl(deps.docsBaseUrl(), code),
            retry_after: facts.retryAfter,
            fields: [...facts.fields],
            reasons: Object.entries(facts.reasons).map(([reason, description]) => ({ reason, description })),
            outcome_unknown: facts.outcomeUnknown,
          };
        }),
      };
      res.json(body);
    },

    gateway_getOpenApi: async (_req, res) => {
      const served: OperationFacts[] = [];
      const admittedBy = new Map<string, Set<string>>();
      for (const operation of Object.values(operationTable) as OperationFacts[]) {
        if (deps.builtInServices.includes(operation.service)) {
          served.push(operation);
          continue;
        }
        if (!admittedBy.has(operation.service)) admittedBy.set(operation.service, await deps.admissions.admitted(operation.service));
        if (admittedBy.get(operation.service)!.has(operation.operationId)) served.push(operation);
      }
      res.json(servedDocument(served, deps.publicBaseUrl()));
    },

    iam_verifyCredential: async (req, res) => {
      const { credential } = req.body as Schemas['VerifyCredentialRequest'];
      const record = await deps.store.lookup(credential);
      const now = Date.now();
      const active = !!record && !record.revokedAt && !(record.expiresAt && record.expiresAt.getTime() <= now);
      const body: Schemas['CredentialVerification'] =
        active && record
          ? {
              object: 'credential_verification',
              active: true,
              kind: record.kind,
              org: record.organizationId,
              ...(record.projectId ? { project: record.projectId } : {}),
              principal: record.principalId,
              scopes: record.scopes,
              expires_at: record.expiresAt?.toISOString() ?? null,
            }
          : { object: 'credential_verification', active: false };
      res.json(body);
    },
    // npm run scaffold:handler binds a new operation's handler above this line.
  };
}

export function requestOperation(res: Parameters<RequestHandler>[1]): OperationFacts {
  return requestContext(res).operation;
}
