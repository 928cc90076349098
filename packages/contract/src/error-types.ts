import type { components } from './generated/schema.js';

export type ErrorType = components['schemas']['ErrorType'];
export type ErrorEnvelopeField = 'required_scope' | 'reason' | 'layer';

/** The WWW-Authenticate challenge a 401 code answers with (x-challenge). */
export interface ChallengeFacts {
  /** The scheme whose challenge carries the error: Bearer (RFC 6750 §3) or DPoP (RFC 9449 §7.1). */
  scheme: 'Bearer' | 'DPoP';
  /** The challenge's `error` attribute; null when the request carried no usable credential. */
  error: string | null;
}

/** info.x-authentication: what every challenge names. */
export interface AuthenticationFacts {
  /** The protection space (RFC 9110 §11.5), sent as `realm`. */
  realm: string;
  /** JWS algorithms a DPoP proof may use: the gateway accepts exactly these, and lists them in `algs`. */
  dpopAlgorithms: readonly string[];
}

/** What the catalog (spec/components/schemas/ErrorCode.yaml) says about one code. */
export interface ErrorCatalogFacts {
  status: number;
  type: ErrorType;
  description: string;
  /** Responses with this code carry a Retry-After header. */
  retryAfter: boolean;
  /** Optional envelope fields always present with this code. */
  fields: readonly ErrorEnvelopeField[];
  /** Every `reason` the code is sent with (x-reasons), with its meaning; empty when it never carries one. */
  reasons: Readonly<Record<string, string>>;
  /** After a mutation the outcome may be unknown. */
  outcomeUnknown: boolean;
  /** On every 401 (RFC 9110 §15.5.2): the challenge it answers with; null on other statuses. */
  challenge: ChallengeFacts | null;
}
