/**
 * What a save changed in the contract, one line per change, in the spec review's words: the new
 * bundled contract compared with the last good one by @gateway-minds/spec-review, the same
 * comparison a pull request's review makes.
 */
import { compareSpecs, flatten, type Review } from '@gateway-minds/spec-review';

export interface ContractChanges {
  lines: string[];
  /** Operation ids the new contract has and the last good one did not. */
  addedOperations: string[];
  removedOperations: string[];
}

export function contractChanges(lastGood: object, next: object): ContractChanges {
  const review: Review = compareSpecs(lastGood, next);
  const lines = [
    ...review.added.map((o) => `+ new operation  ${o.operationId}  ${o.method.toUpperCase()} ${o.path}`),
    ...flatten(review).map((c) => `${c.level === 'breaking' ? '!' : c.level === 'warning' ? '~' : '·'} ${c.level.padEnd(8)} ${c.id}  ${c.operations.length > 0 ? `${c.operations.join(', ')}: ` : ''}${c.where} ${c.message}`.replace(/\s+$/, '')),
  ];
  return { lines, addedOperations: review.added.map((o) => o.operationId), removedOperations: review.removed.map((o) => o.operationId) };
}
