/**
 * The version rule: the spec review's verdict on a change to spec/ decides the next version of the
 * API (`info.version`) and, in lockstep, of every published package. Breaking → major, additive →
 * minor, a fix (prose or examples: the review reports nothing, or only an operation's summary or
 * description) → patch.
 */
import type { OperationRef, Review } from '@gateway-minds/spec-review';

export type Bump = 'major' | 'minor' | 'patch';

/** The review's findings, without the `info.version` line itself (the bump must not feed on its own result). */
function documentChanges(review: Review) {
  return review.document.filter((change) => change.where !== 'info.version');
}

/** What the review reports of an operation's prose: a fix to documentation, not a change of shape. */
const PROSE_CHANGES = new Set(['api-summary-changed', 'api-description-changed']);

/** The bump a reviewed spec change asks for; `null` when base and head bundle to the same document. */
export function bumpFor(review: Review, specChanged: boolean): Bump | null {
  if (review.breaking.length > 0 || review.removed.length > 0) return 'major';
  const changedBeyondProse = review.changed.some((o) => o.sharedSchemas.length > 0 || o.changes.some((c) => !PROSE_CHANGES.has(c.id)));
  const additive = review.added.length > 0 || changedBeyondProse || review.sharedSchemas.length > 0 || documentChanges(review).length > 0;
  if (additive) return 'minor';
  return specChanged ? 'patch' : null;
}

export function nextVersion(current: string, bump: Bump): string {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(current);
  if (!match) throw new Error(`info.version ${JSON.stringify(current)} is not major.minor.patch`);
  const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number];
  if (bump === 'major') return `${major + 1}.0.0`;
  if (bump === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

const bumpMeaning: Record<Bump, string> = {
  major: 'breaking: code written against the previous version may stop working',
  minor: 'additive: existing calls keep working',
  patch: 'a fix: descriptions, examples or documentation only; no request or response changes shape',
};

/** The consumer-facing changelog entry of one release: what changed in the API, each operation linked to the reference. */
export function changelogEntry(version: string, bump: Bump, review: Review, docsUrl: string, date: string): string {
  const link = (op: OperationRef | string) => {
    const id = typeof op === 'string' ? op : op.operationId;
    const route = typeof op === 'string' ? '' : ` (\`${op.method.toUpperCase()} ${op.path}\`)`;
    return `[\`${id}\`](${docsUrl.replace(/\/$/, '')}/reference.html#operation/${id})${route}`;
  };
  const lines = [`## ${version} (${date})`, '', `API ${version} (${bump}): ${bumpMeaning[bump]}.`, ''];
  const breakingByOperation = new Map<string, string[]>();
  for (const b of review.breaking) for (const op of b.operations.length ? b.operations : ['(document)']) {
    breakingByOperation.set(op, [...(breakingByOperation.get(op) ?? []), `${b.where}: ${b.message}`]);
  }
  if (review.removed.length) lines.push('### Removed operations', '', ...review.removed.map((op) => `- ${link(op)}`), '');
  if (breakingByOperation.size) {
    lines.push('### Breaking changes', '');
    for (const [op, messages] of breakingByOperation) lines.push(`- ${op === '(document)' ? 'Whole API' : link(op)}: ${messages.join('; ')}`);
    lines.push('');
  }
  if (review.added.length) lines.push('### Added operations', '', ...review.added.map((op) => `- ${link(op)}${op.summary ? `: ${op.summary}` : ''}`), '');
  const changed = review.changed.filter((c) => c.severity !== 'breaking');
  if (changed.length) {
    lines.push('### Changed operations', '');
    for (const c of changed) {
      const details = [...c.changes.map((x) => `${x.where}: ${x.message}`), ...c.sharedSchemas.map((s) => `schema ${s.schema} (${s.direction})`)];
      lines.push(`- ${link(c.operation)}${details.length ? `: ${details.join('; ')}` : ''}`);
    }
    lines.push('');
  }
  const document = documentChanges(review).filter((c) => c.severity !== 'breaking');
  if (document.length) lines.push('### Whole API', '', ...document.map((c) => `- ${c.where}: ${c.message}`), '');
  if (bump === 'patch') lines.push('No operation changed shape.', '');
  return lines.join('\n');
}
