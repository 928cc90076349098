import type { HttpMethod } from './document-types.js';

export interface SecurityRequirementFacts {
  /** A key of components.securitySchemes. */
  scheme: string;
  /** Scopes the operation needs from a credential of that scheme. */
  scopes: readonly string[];
}

export interface ParameterFacts {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  /** x-missing-code: the code answered when a required parameter is absent (else the location's validation code). */
  missingCode: string | null;
}

/** What the spec says about one operation, flattened for code that routes, calls or lists operations. */
export interface OperationFacts {
  operationId: string;
  method: HttpMethod;
  /** The OpenAPI path template, e.g. /v1/minds/services/{mind_id}. */
  path: string;
  /** `gateway` for the gateway's own routes, else the `<service>` of /v1/<service>/... */
  service: string;
  tag: string;
  summary: string;
  description: string;
  /** GET, or a POST marked x-read-only (searches): safe to repeat. */
  readOnly: boolean;
  /**
   * A client may retry the operation by itself (on the codes it documents):
   * it is read-only and the spec does not forbid it (`x-automatic-retry: false`,
   * the interface's "no automatic retry" for owner management and agent operations).
   */
  automaticRetry: boolean;
  successStatus: number;
  errorStatuses: readonly number[];
  /** Alternatives; empty when the operation needs no credential. */
  security: readonly SecurityRequirementFacts[];
  parameters: readonly ParameterFacts[];
  hasRequestBody: boolean;
  /** x-credential-refusal: the code answered when the credential's kind is not one the operation accepts. */
  credentialRefusal: string | null;
  /** x-sandbox-selection: the session must carry a verified Sandbox selection. */
  requiresSandboxSelection: boolean;
  /** x-original-session: only the original signed-in session, not a derived credential. */
  requiresOriginalSession: boolean;
  /** x-admission-setting: the server setting that admits the operation (off by default). */
  admissionSetting: string | null;
  /** x-dpop-htm: the method a DPoP proof for this operation names (agent operations). */
  dpopHtm: string | null;
}
