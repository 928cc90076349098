/**
 * Facts of the contract this service needs as values. Everything that the
 * contract states as data (enums, consts, schema defaults, operation facts)
 * is read from `@gateway-minds/contract`; the few limits the spec states only
 * in prose are defined here once, each with the place it comes from.
 */
import { lookupRef, operationTable, type OperationFacts, type Schemas } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';

type JsonSchema = Record<string, unknown>;

function schema(name: string): JsonSchema {
  const found = openapiDocument.components?.schemas?.[name];
  if (!found) throw new Error(`the contract has no schema ${name}`);
  return found;
}

function property(schemaName: string, name: string): JsonSchema {
  const properties = schema(schemaName).properties as Record<string, JsonSchema> | undefined;
  const found = properties?.[name];
  if (!found) throw new Error(`the contract's ${schemaName} has no property ${name}`);
  return found;
}

function constOf<T>(schemaName: string, name: string): T {
  const value = property(schemaName, name).const;
  if (value === undefined) throw new Error(`${schemaName}.${name} is not a const in the contract`);
  return value as T;
}

function enumOf<T>(schemaName: string): readonly T[] {
  const values = schema(schemaName).enum;
  if (!Array.isArray(values)) throw new Error(`${schemaName} is not an enum in the contract`);
  return values as T[];
}

/** `minds.controller.v1`, carried by every controller result. */
export const SCHEMA_VERSION = constOf<Schemas['Mind']['schema_version']>('Mind', 'schema_version');
/** `host_confirmed_intervals`: the basis of the usage report. */
export const USAGE_BASIS = constOf<Schemas['MindUsageReport']['basis']>('MindUsageReport', 'basis');

export type Permissions = Schemas['AttachmentPermissions'];
export type Permission = Permissions[number];
/** The only two accepted permission arrays: read, and read + write (AttachmentPermissions.enum, in that order). */
export const PERMISSION_SETS = enumOf<Permissions>('AttachmentPermissions');
export const READ_PERMISSIONS: readonly Permission[] = PERMISSION_SETS[0]!;
export const READ_WRITE_PERMISSIONS: readonly Permission[] = PERMISSION_SETS[1]!;
export const PERMISSION_READ: Permission = READ_PERMISSIONS[0]!;
export const PERMISSION_WRITE: Permission = READ_WRITE_PERMISSIONS.find((p) => p !== PERMISSION_READ)!;

export type Plan = Schemas['MindPlan'];
export type ProfileId = Schemas['MindProfileId'];
export const PLANS = enumOf<Plan>('MindPlan');
export const PROFILE_IDS = enumOf<ProfileId>('MindProfileId');
/** `plan` when the create body omits it (CreateMindRequest.plan.default). */
export const DEFAULT_PLAN = property('CreateMindRequest', 'plan').default as Plan;

export type EventType = Schemas['EventType'];
export const EVENT_TYPES = enumOf<EventType>('EventType');

export const DAY_MS = 24 * 60 * 60 * 1000;

function extension<T>(holder: Record<string, unknown> | undefined, name: string, where: string): T {
  const value = holder?.[name];
  if (value === undefined) throw new Error(`the contract's ${where} has no ${name}`);
  return value as T;
}

/** The operation object of an operation in the contract document, found by its path and method. */
function operationObject(operation: OperationFacts) {
  return openapiDocument.paths[operation.path]?.[operation.method];
}

/** An x- extension on an operation object. */
function operationExtension<T>(operation: OperationFacts, name: string): T {
  return extension<T>(operationObject(operation) as Record<string, unknown> | undefined, name, operation.operationId);
}

/** Usage window: positive and at most x-max-window-days (93) on minds_getUsage. */
export const USAGE_WINDOW_MAX_MS = operationExtension<number>(operationTable.minds_getUsage, 'x-max-window-days') * DAY_MS;

/** The most Minds one Sandbox holds (x-max-minds-per-sandbox on minds_createMind). */
export const MAX_MINDS_PER_SANDBOX = operationExtension<number>(operationTable.minds_createMind, 'x-max-minds-per-sandbox');

/** A memory search ranks only the newest x-ranking-window matching events, per search operation. */
export const SEARCH_RANKING_WINDOW = {
  owner: operationExtension<number>(operationTable.minds_searchMemory, 'x-ranking-window'),
  agent: operationExtension<number>(operationTable.minds_agentSearchMemory, 'x-ranking-window'),
};

/** Attachment `expiresAt`: in the future and at most x-max-days-ahead (30) days after server time. */
export const ATTACHMENT_MAX_LIFETIME_MS = extension<number>(property('AttachMindRequest', 'expiresAt'), 'x-max-days-ahead', 'AttachMindRequest.expiresAt') * DAY_MS;

/** Stored `event_type` when the insert omits it (x-stored-default on EpisodicEvent.event_type). */
export const DEFAULT_EVENT_TYPE = extension<EventType>(property('EpisodicEvent', 'event_type'), 'x-stored-default', 'EpisodicEvent.event_type');

/** The operations of this service, in spec order. */
export const mindsOperations: OperationFacts[] = Object.values(operationTable).filter((o: OperationFacts) => o.service === 'minds');

/** The admission settings (x-admission-setting) the Minds operations name: each off unless configured on. */
export const admissionSettings: string[] = [...new Set(mindsOperations.map((o) => o.admissionSetting).filter((s): s is string => s !== null))];

/** A header parameter of an operation, found by the code the contract answers when it is missing. */
export function headerNamed(operation: OperationFacts, missingCode: string): string {
  const found = operation.parameters.find((p) => p.in === 'header' && p.missingCode === missingCode);
  if (!found) throw new Error(`${operation.operationId} has no header whose absence is ${missingCode}`);
  return found.name.toLowerCase();
}

export const IDEMPOTENCY_HEADER = headerNamed(operationTable.minds_createMind, 'IDEMPOTENCY_KEY_REQUIRED');
export const CREATION_CONTEXT_HEADER = headerNamed(operationTable.minds_createMind, 'CREATION_CONTEXT_OR_KEY_REQUIRED');

/** The schema default of a query parameter of an operation (e.g. the Mind list's `limit`). */
export function queryParameterDefault(operation: OperationFacts, name: string): unknown {
  const parameter = operationObject(operation)?.parameters?.find((p) => p.name === name && p.in === 'query');
  const value = parameter?.schema?.default;
  if (value === undefined) throw new Error(`${operation.operationId} has no default for query parameter ${name}`);
  return value;
}

/** Mind list `limit` default (spec: 1..100, default 20). */
export const LIST_LIMIT_DEFAULT = queryParameterDefault(operationTable.minds_listMinds, 'limit') as number;
/** Search `limit` default (SearchMemoryRequest.limit.default). */
export const SEARCH_LIMIT_DEFAULT = property('SearchMemoryRequest', 'limit').default as number;

/**
 * The key that makes a write of this operation replayable: its Idempotency-Key header (lifecycle
 * writes), the `operationId` its body requires (owner-management writes), or none (memory writes).
 */
export function replayKeyOf(operation: OperationFacts): 'Idempotency-Key' | 'operationId' | null {
  const header = operation.parameters.find((p) => p.in === 'header' && p.missingCode === 'IDEMPOTENCY_KEY_REQUIRED');
  if (header) return 'Idempotency-Key';
  const body = operationObject(operation)?.requestBody?.content?.['application/json']?.schema as { $ref?: string } | undefined;
  const named = body?.$ref ? (lookupRef(openapiDocument, body.$ref) as JsonSchema) : undefined;
  return (named?.required as string[] | undefined)?.includes('operationId') ? 'operationId' : null;
}
