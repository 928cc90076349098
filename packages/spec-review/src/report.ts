/** Renders a review as Markdown, ready to post on a pull request; each change line ends with its check id. */
import type { Change, Review, Severity } from './compare.js';

export interface LintResult {
  errors: number;
  warnings: number;
  problems: { severity: string; ruleId: string; message: string; location: string }[];
}

export interface ReportContext {
  base: string;
  head: string;
  lint: LintResult;
  acknowledged: boolean;
  /** How a reviewer acknowledges breaking changes, e.g. the PR label. */
  acknowledgeHint: string;
  /** The commands a reader runs to lint the spec and to rerun the review (`{base}` is replaced by the base ref). */
  commands?: { lint: string; review: string };
}

const marker: Record<Severity, string> = { breaking: '🔴 **breaking**', warning: '🟡 warning', info: '⚪' };
const MAX_LINES = 400;

function changeLine(change: Change, prefix = ''): string {
  const where = change.where === '(the schema)' ? prefix.trim() : `${prefix}${change.where}`.trim();
  return `- ${marker[change.severity]} ${where ? `${where}: ` : ''}${change.message} <sub>\`${change.id}\`</sub>`;
}

function bySeverity(changes: Change[]): Change[] {
  const rank: Record<Severity, number> = { breaking: 0, warning: 1, info: 2 };
  return [...changes].sort((a, b) => rank[a.severity] - rank[b.severity]);
}

function names(operations: string[], max = 8): string {
  const shown = operations.slice(0, max).map((o) => `\`${o}\``);
  return operations.length > max ? `${shown.join(', ')} and ${operations.length - max} more` : shown.join(', ');
}

export function hasBlockingProblems(review: Review, ctx: Pick<ReportContext, 'lint' | 'acknowledged'>): boolean {
  return ctx.lint.errors > 0 || (review.breaking.length > 0 && !ctx.acknowledged);
}

/** Lint problems as a Markdown section (the first 50); none, no section. */
function lintSection(lint: LintResult): string[] {
  if (lint.problems.length === 0) return [];
  const lines = ['### Lint problems', ''];
  for (const p of lint.problems.slice(0, 50)) lines.push(`- ${p.severity} \`${p.ruleId}\`: ${p.message} (${p.location})`);
  if (lint.problems.length > 50) lines.push(`- … and ${lint.problems.length - 50} more`);
  lines.push('');
  return lines;
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
  lines.push('| | |', '|---|---|');
  lines.push(`| Lint (\`redocly lint\`) | ${ctx.lint.errors} error${ctx.lint.errors === 1 ? '' : 's'}, ${ctx.lint.warnings} warning${ctx.lint.warnings === 1 ? '' : 's'} |`, '');
  lines.push(...lintSection(ctx.lint));
  return `${lines.join('\n').trimEnd()}\n`;
}

export function renderMarkdown(review: Review, ctx: ReportContext): string {
  const lines: string[] = [];
  const breaking = review.breaking.length;
  lines.push('## Spec review', '');
  lines.push(`Comparing \`${ctx.base}\` (base) with \`${ctx.head}\` (head).`, '');
  if (ctx.lint.errors > 0) {
    lines.push(`❌ **The head spec does not lint: ${ctx.lint.errors} error${ctx.lint.errors > 1 ? 's' : ''}.** Fix them (\`${ctx.commands?.lint ?? 'redocly lint'}\`).`, '');
  }
  if (breaking === 0) lines.push('✅ **No breaking changes.**');
  else if (ctx.acknowledged) lines.push(`⚠️ **${breaking} breaking change${breaking > 1 ? 's' : ''}, acknowledged.** Announce ${breaking > 1 ? 'them' : 'it'} in the changelog.`);
  else lines.push(`❌ **${breaking} breaking change${breaking > 1 ? 's' : ''}, not acknowledged.** ${ctx.acknowledgeHint}`);
  lines.push('');

  const changedCount = review.changed.length;
  lines.push('| | |', '|---|---|');
  lines.push(`| Lint (\`redocly lint\`) | ${ctx.lint.errors} error${ctx.lint.errors === 1 ? '' : 's'}, ${ctx.lint.warnings} warning${ctx.lint.warnings === 1 ? '' : 's'} |`);
  lines.push(`| Operations added | ${review.added.length} |`);
  lines.push(`| Operations removed | ${review.removed.length} |`);
  lines.push(`| Operations changed | ${changedCount} |`);
  lines.push(`| Breaking changes | ${breaking} |`);
  lines.push('');

  lines.push(...lintSection(ctx.lint));

  if (breaking > 0) {
    lines.push('### Breaking changes', '');
    for (const b of review.breaking) {
      const id = ` <sub>\`${b.id}\`</sub>`;
      if (b.operations.length === 1) lines.push(`- \`${b.operations[0]}\` ${b.where}: ${b.message}${id}`);
      else if (b.operations.length > 1) lines.push(`- ${b.where}: ${b.message} (${b.operations.length} operations: ${names(b.operations)})${id}`);
      else lines.push(`- ${b.where}: ${b.message}${id}`);
    }
    lines.push('');
  }

  if (review.added.length > 0) {
    lines.push('### Operations added', '');
    for (const o of review.added) lines.push(`- \`${o.operationId}\` \`${o.method} ${o.path}\`${o.summary ? `: ${o.summary}` : ''}`);
    lines.push('');
  }
  if (review.removed.length > 0) {
    lines.push('### Operations removed', '');
    for (const o of review.removed) lines.push(`- 🔴 \`${o.operationId}\` \`${o.method} ${o.path}\`${o.summary ? `: ${o.summary}` : ''}`);
    lines.push('');
  }

  let budget = MAX_LINES;
  if (changedCount > 0) {
    lines.push('### Operations changed', '');
    const through = (o: Review['changed'][number]) =>
      o.sharedSchemas.map((s) => `\`${s.schema}\` (${s.direction}${s.severity === 'info' ? '' : `, ${s.severity}`})`).join(', ');
    const own = review.changed.filter((o) => o.changes.length > 0);
    const onlyShared = review.changed.filter((o) => o.changes.length === 0);
    for (const o of own) {
      lines.push(`#### \`${o.operation.operationId}\` \`${o.operation.method} ${o.operation.path}\` (${o.severity})`, '');
      for (const change of bySeverity(o.changes)) {
        if (budget-- > 0) lines.push(changeLine(change));
      }
      if (o.sharedSchemas.length > 0) lines.push(`- also through shared schemas ${through(o)}: see below`);
      lines.push('');
    }
    if (onlyShared.length > 0) {
      lines.push(own.length > 0 ? '#### Changed only through shared schemas' : 'Changed only through shared schemas (see below):', '');
      for (const o of onlyShared) {
        if (budget-- > 0) lines.push(`- ${marker[o.severity]} \`${o.operation.operationId}\` \`${o.operation.method} ${o.operation.path}\`: ${through(o)}`);
      }
      lines.push('');
    }
  }
  if (review.sharedSchemas.length > 0) {
    lines.push('### Shared schemas changed', '');
    for (const s of review.sharedSchemas) {
      lines.push(`#### \`${s.schema}\` in ${s.direction}s, used by ${s.operations.length} operation${s.operations.length === 1 ? '' : 's'}`, '');
      lines.push(`Used by ${names(s.operations)}.`, '');
      for (const change of bySeverity(s.changes)) {
        if (budget-- > 0) lines.push(changeLine(change, `\`${s.schema}\``));
      }
      lines.push('');
    }
  }
  if (review.document.length > 0) {
    lines.push('### Document', '');
    for (const change of bySeverity(review.document)) if (budget-- > 0) lines.push(changeLine(change));
    lines.push('');
  }
  if (budget < 0) lines.push(`_${-budget} more change lines left out; run \`${(ctx.commands?.review ?? 'the review with --format json').replace('{base}', ctx.base)}\` locally for all of them._`, '');
  if (review.added.length + review.removed.length + changedCount + review.document.length === 0) {
    lines.push('No change to operations, schemas or the error catalog.', '');
  }
  lines.push(
    '<sub>Breaking is judged by direction: in requests, accepting less breaks clients (a new required field or parameter, a removed enum value, a narrowed constraint); in responses, promising less does (a removed, optional or retyped field; a widened bound, a dropped format, a changed const, a new oneOf alternative). A new response enum value or error status is a warning. Each change ends with its check id (see the package README to re-level one).</sub>',
  );
  return `${lines.join('\n')}\n`;
}
