/**
 * The `WWW-Authenticate` value of a 401 (RFC 9110 §15.5.2 makes it mandatory;
 * §11.6.1 gives its grammar), chosen from two contract facts: the error code's
 * catalog challenge (`x-challenge`: which scheme carries the error, and the
 * error) and whether the operation takes DPoP proofs (`x-dpop-htm`, the agent
 * memory operations). RFC 6750 §3 shapes the Bearer challenge, RFC 9449 §7.1
 * the DPoP one (`algs`); spec/DECISIONS.md, "WWW-Authenticate on every 401".
 */
import { authentication, errorCatalog, type ErrorCode, type OperationFacts } from '@gateway-minds/contract';

type Param = readonly [name: string, value: string];

/** One challenge: auth-scheme, then auth-params as quoted strings (the contract keeps them free of `"` and `\`). */
function challenge(scheme: string, params: readonly Param[]): string {
  return `${scheme} ${params.map(([name, value]) => `${name}="${value}"`).join(', ')}`;
}

/** The challenges for a code on an operation, or undefined when the code is not a 401. */
export function wwwAuthenticateFor(code: ErrorCode, operation?: Pick<OperationFacts, 'dpopHtm'>): string | undefined {
  const facts = errorCatalog[code].challenge;
  if (!facts) return undefined;
  const realm: Param = ['realm', authentication.realm];
  const error: Param[] = facts.error ? [['error', facts.error]] : [];
  const dpop = challenge('DPoP', [realm, ...error, ['algs', authentication.dpopAlgorithms.join(' ')]]);
  // A refused proof concerns the DPoP scheme alone (RFC 9449 §7.1, §9).
  if (facts.scheme === 'DPoP') return dpop;
  const bearer = challenge('Bearer', [realm, ...error]);
  // Where a sender-constrained token may be sent with either scheme, both are offered (RFC 9449 §7.2).
  return operation?.dpopHtm ? `${bearer}, ${dpop}` : bearer;
}
