/** Renders a review as Markdown, ready to post on a pull request; each change line ends with its check id. */
import type { Change, Review, Severity } from './compare.js';
import { flatten, type LintSummary, type Locator } from './formats.js';

export type LintResult = LintSummary;

export interface ReportContext {
  base: string;
  head: string;
  /** The head document's lint result, when it was linted. */
  lint?: LintResult;
  acknowledged?: boolean;
  /** How a reviewer acknowledges breaking changes, e.g. the PR label. */
  acknowledgeHint?: string;
  /** What a new operation needs beyond the document (a server handler, say), shown under "Operations added". */
  addedOperationNote?: (operation: { operationId: string; method: string; path: string }) => string | undefined;
  /** A sentence under the added operations (what picks a new operation up by itself, say). */
  addedOperationsFooter?: string;
  /** Sections put after the summary table (a preview of the next release's version, say). */
  extraSections?: string[];
  /** Maps a change to its file and line, shown beside it. */
  locate?: Locator;
  /** The commands a reader runs to lint the spec and to rerun the review (`{base}` is replaced by the base ref). */
  commands?: { lint: string; review: string };
}

const marker: Record<Severity, string> = { breaking: '🔴 **breaking**', warning: '🟡 warning', info: '⚪' };
const MAX_LINES = 400;

function bySeverity(changes: Change[]): Change[] {
  const rank: Record<Severity, number> = { breaking: 0, warning: 1, info: 2 };
  return [...changes].sort((a, b) => rank[a.severity] - rank[b.severity]);
}

function names(operations: string[], max = 8): string {
  const shown = operations.slice(0, max).map((o) => `\`${o}\``);
  return operations.length > max ? `${shown.join(', ')} and ${operations.length - max} more` : shown.join(', ');
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function hasBlockingProblems(review: Review, ctx: Pick<ReportContext, 'lint' | 'acknowledged'>): boolean {
  return (ctx.lint?.errors ?? 0) > 0 || (review.breaking.length > 0 && !ctx.acknowledged);
}

/** Lint problems as a Markdown section (the first 50), each with its file and line; none, no section. */
function lintSection(lint: LintResult | undefined): string[] {
  if (!lint || lint.problems.length === 0) return [];
  const lines = ['### Lint problems', ''];
  for (const p of lint.problems.slice(0, 50)) lines.push(`- ${p.severity} \`${p.ruleId}\`: ${p.message} (${p.location})`);
  if (lint.problems.length > 50) lines.push(`- … and ${lint.problems.length - 50} more`);
  lines.push('');
  return lines;
}

function lintRow(lint: LintResult | undefined): string[] {
  return lint ? [`| Lint (\`redocly lint\`) | ${plural(lint.errors, 'error')}, ${plural(lint.warnings, 'warning')} |`] : [];
}

/**
 * The report when the head spec does not bundle (an unresolved `$ref`, a file that does not parse):
 * there is nothing to compare, and the reader needs the bundler's own words and the lint problems,
 * on the pull request as for any other failure.
 */
export function renderBundleFailure(ctx: Pick<ReportContext, 'base' | 'head' | 'lint' | 'commands'>, bundleError: string): string {
  const lines = ['## Spec review', '', `Comparing \`${ctx.base}\` (base) with \`${ctx.head}\` (head).`, ''];
  lines.push(`❌ **The head spec does not bundle, so it was not compared.** Fix it (\`${ctx.commands?.lint ?? 'redocly lint'}\`).`, '');
  lines.push('```', bundleError.trim(), '```', '');
  if (ctx.lint) lines.push('| | |', '|---|---|', ...lintRow(ctx.lint), '');
  lines.push(...lintSection(ctx.lint));
  return `${lines.join('\n').trimEnd()}\n`;
}

/**
 * The review as Markdown, for a pull request: a verdict, a summary table, then every change (breaking
 * first), each with its check id and, given `locate`, the file and line it is on.
 */
export function renderMarkdown(review: Review, ctx: ReportContext): string {
  const lines: string[] = [];
  const breaking = review.breaking.length;
  const where = (change: Pick<Change, 'pointer' | 'side'>) => {
    const at = ctx.locate?.(change.pointer, change.side);
    return at ? ` <sub>${at.file}:${at.line}</sub>` : '';
  };
  const changeLine = (change: Change, prefix = '') => {
    const place = change.where === '(the schema)' ? prefix.trim() : `${prefix}${change.where}`.trim();
    return `- ${marker[change.severity]} ${place ? `${place}: ` : ''}${change.message} <sub>\`${change.id}\`</sub>${where(change)}`;
  };
  lines.push('## Spec review', '');
  lines.push(`Comparing \`${ctx.base}\` (base) with \`${ctx.head}\` (head).`, '');
  if ((ctx.lint?.errors ?? 0) > 0) {
    lines.push(`❌ **The head spec does not lint: ${plural(ctx.lint!.errors, 'error')}.** Fix them (\`${ctx.commands?.lint ?? 'redocly lint'}\`).`, '');
  }
  if (breaking === 0) lines.push('✅ **No breaking changes.**');
  else if (ctx.acknowledged) lines.push(`⚠️ **${plural(breaking, 'breaking change')}, acknowledged.**`);
  else lines.push(`❌ **${plural(breaking, 'breaking change')}, not acknowledged.**${ctx.acknowledgeHint ? ` ${ctx.acknowledgeHint}` : ''}`);
  lines.push('');

  const all = flatten(review);
  const count = (level: Severity) => all.filter((c) => c.level === level).length;
  lines.push('| | |', '|---|---|');
  lines.push(...lintRow(ctx.lint));
  lines.push(`| Operations added / removed / changed | ${review.added.length} / ${review.removed.length} / ${review.changed.length} |`);
  lines.push(`| Changes: breaking / warning / info | ${count('breaking')} / ${count('warning')} / ${count('info')} |`);
  lines.push('');
  for (const section of ctx.extraSections ?? []) lines.push(section.trimEnd(), '');
  lines.push(...lintSection(ctx.lint));

  if (breaking > 0) {
    lines.push('### Breaking changes', '');
    for (const b of review.breaking) {
      const id = ` <sub>\`${b.id}\`</sub>${where(b)}`;
      if (b.operations.length === 1) lines.push(`- \`${b.operations[0]}\` ${b.where}: ${b.message}${id}`);
      else if (b.operations.length > 1) lines.push(`- ${b.where}: ${b.message} (${b.operations.length} operations: ${names(b.operations)})${id}`);
      else lines.push(`- ${b.where}: ${b.message}${id}`);
    }
    lines.push('');
  }

  if (review.added.length > 0) {
    lines.push('### Operations added', '');
    for (const o of review.added) {
      const note = ctx.addedOperationNote?.(o);
      lines.push(`- \`${o.operationId}\` \`${o.method} ${o.path}\`${o.summary ? `: ${o.summary}` : ''}${where({ pointer: o.pointer ?? '' })}${note ? `\n  ${note}` : ''}`);
    }
    if (ctx.addedOperationsFooter) lines.push('', ctx.addedOperationsFooter);
    lines.push('');
  }
  if (review.removals.length > 0) {
    lines.push('### Operations removed', '');
    for (const r of review.removals) lines.push(`- ${marker[r.severity]} \`${r.operation.operationId}\` \`${r.operation.method} ${r.operation.path}\`: ${r.message} <sub>\`${r.id}\`</sub>${where(r)}`);
    lines.push('');
  }

  let budget = MAX_LINES;
  const changedCount = review.changed.length;
  if (changedCount > 0) {
    lines.push('### Operations changed', '');
    const through = (o: Review['changed'][number]) => o.sharedSchemas.map((s) => `\`${s.schema}\` (${s.direction}${s.severity === 'info' ? '' : `, ${s.severity}`})`).join(', ');
    const own = review.changed.filter((o) => o.changes.length > 0);
    const onlyShared = review.changed.filter((o) => o.changes.length === 0);
    for (const o of own) {
      lines.push(`#### \`${o.operation.operationId}\` \`${o.operation.method} ${o.operation.path}\` (${o.severity})`, '');
      for (const change of bySeverity(o.changes)) if (budget-- > 0) lines.push(changeLine(change));
      if (o.sharedSchemas.length > 0) lines.push(`- also through shared schemas ${through(o)}: see below`);
      lines.push('');
    }
    if (onlyShared.length > 0) {
      lines.push(own.length > 0 ? '#### Changed only through shared schemas' : 'Changed only through shared schemas (see below):', '');
      for (const o of onlyShared) if (budget-- > 0) lines.push(`- ${marker[o.severity]} \`${o.operation.operationId}\` \`${o.operation.method} ${o.operation.path}\`: ${through(o)}`);
      lines.push('');
    }
  }
  if (review.sharedSchemas.length > 0) {
    lines.push('### Shared schemas changed', '');
    for (const s of review.sharedSchemas) {
      lines.push(`#### \`${s.schema}\` in ${s.direction}s, used by ${plural(s.operations.length, 'operation')}`, '');
      if (s.operations.length) lines.push(`Used by ${names(s.operations)}.`, '');
      for (const change of bySeverity(s.changes)) if (budget-- > 0) lines.push(changeLine(change, `\`${s.schema}\``));
      lines.push('');
    }
  }
  if (review.document.length > 0) {
    lines.push('### Document', '');
    for (const change of bySeverity(review.document)) if (budget-- > 0) lines.push(changeLine(change));
    lines.push('');
  }
  if (budget < 0) lines.push(`_${-budget} more change lines left out; run \`${(ctx.commands?.review ?? 'the review with --format json').replace('{base}', ctx.base)}\` for all of them._`, '');
  if (all.length === 0) lines.push('No change to operations, schemas or the document.', '');
  lines.push(
    '<sub>Breaking is judged by direction: in requests, accepting less breaks clients (a new required field or parameter, a removed enum value, a narrowed constraint); in responses, promising more does (a removed or retyped field, a widened bound, a new oneOf alternative). Levels follow oasdiff\'s; each change ends with its check id (the package README lists them and says how to re-level one).</sub>',
  );
  return `${lines.join('\n')}\n`;
}
