/**
 * What a save changed in the contract, one line per change, in the spec review's words: the new
 * bundled contract compared with the last good one by @gateway-minds/spec-review, judged as the
 * pull request's review judges it (`generatedClientLevels`: this API's clients are generated).
 */
import { compareSpecs, flatten, generatedClientLevels } from '@gateway-minds/spec-review';

const marks = { breaking: '!', warning: '~', info: '·' } as const;

export function contractChanges(lastGood: object, next: object): string[] {
  const review = compareSpecs(lastGood, next, { levels: generatedClientLevels });
  // The pull request's report writes a change as `where: message (check id)`; so does the loop, after its level and operations.
  return flatten(review).map((c) => {
    const place = c.where === '(the schema)' ? '' : `${c.where}: `;
    return `${marks[c.level]} ${c.level.padEnd(8)} ${c.operations.length > 0 ? `${c.operations.join(', ')}  ` : ''}${place}${c.message}  (${c.id})`;
  });
}
