/**
 * Judges a recorded exchange against the bundled contract: the status is one the operation
 * declares, and the answer is that response (testkit's contract judge: the body by Ajv with the
 * contract's byte-limit keywords, the declared headers). The same judge for the handlers, Prism
 * and the real stack, and for the Prism mock's own suite.
 */
import { operationTable, type OperationId } from '@gateway-minds/contract';
import { declaredResponse, responseProblems } from './index.js';
import type { Exchange } from './scenario.js';

/** Problems with one exchange; [] when the contract declares exactly this answer. */
export function specProblems(exchange: Exchange): string[] {
  const id = exchange.operationId as OperationId | undefined;
  if (!id || !Object.hasOwn(operationTable, id)) return [`${exchange.method} ${exchange.path} is no operation of the contract`];
  return responseProblems(exchange, declaredResponse(id, exchange.status)).map((problem) => `${id} ${exchange.status}: ${problem}`);
}
