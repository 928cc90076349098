import type { components } from './generated/schema.js';

export type ErrorType = components['schemas']['ErrorType'];
export type ErrorEnvelopeField = 'required_scope' | 'reason' | 'layer';

/** What the catalog (spec/components/schemas/ErrorCode.yaml) says about one code. */
export interface ErrorCatalogFacts {
  status: number;
  type: ErrorType;
  description: string;
  /** Responses with this code carry a Retry-After header. */
  retryAfter: boolean;
  /** Optional envelope fields always present with this code. */
  fields: readonly ErrorEnvelopeField[];
  /** After a mutation the outcome may be unknown. */
  outcomeUnknown: boolean;
}
