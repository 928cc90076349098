/**
 * The version rule: the spec review's verdict on what changed since the last release decides the
 * next version of the API (`info.version`) and, in lockstep, of every published package. Breaking
 * (or an operation removed) → major; anything else the review reports beyond prose and examples →
 * minor; prose or examples only (descriptions, summaries, titles, examples) → patch.
 */
import type { Review } from '@gateway-minds/spec-review';
import { flatten } from '@gateway-minds/spec-review';

export type Bump = 'major' | 'minor' | 'patch';

/** What the review reports of prose and examples: a fix to documentation, not a change of shape. */
const PROSE = /(^|-)(summary|description|title|example|examples|info|tags)-changed$|^api-tag-(added|removed)$|^request-parameter-(description|example)-changed$/;

/** The bump a reviewed spec change asks for; `null` when nothing but `info.version` changed. */
export function bumpFor(review: Review): Bump | null {
  const changes = flatten(review).filter((c) => c.id !== 'api-version-changed');
  if (changes.length === 0) return null;
  if (review.breaking.length > 0 || review.removed.length > 0) return 'major';
  return changes.every((c) => PROSE.test(c.id)) ? 'patch' : 'minor';
}

export function nextVersion(current: string, bump: Bump): string {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(current);
  if (!match) throw new Error(`info.version ${JSON.stringify(current)} is not major.minor.patch`);
  const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number];
  if (bump === 'major') return `${major + 1}.0.0`;
  if (bump === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

export const bumpMeaning: Record<Bump, string> = {
  major: 'breaking: code written against the previous version may stop working',
  minor: 'additive: existing calls keep working',
  patch: 'a fix: descriptions or examples only; nothing a client sends or receives changed shape',
};
