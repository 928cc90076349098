/**
 * What a save changed in the contract, one line per change, in the spec review's words: the new
 * bundled contract compared with the last good one by @gateway-minds/spec-review, judged as the
 * pull request's review judges it (`generatedClientLevels`: this API's clients are generated).
 */
import { compareSpecs, flatten, generatedClientLevels } from '@gateway-minds/spec-review';

const marks = { breaking: '!', warning: '~', info: '·' } as const;

export function contractChanges(lastGood: object, next: object): string[] {
  const review = compareSpecs(lastGood, next, { levels: generatedClientLevels });
  return flatten(review).map((c) => `${marks[c.level]} ${c.level.padEnd(8)} ${c.id}  ${c.operations.length > 0 ? `${c.operations.join(', ')}: ` : ''}${c.where} ${c.message}`.replace(/\s+$/, ''));
}
