/**
 * The API's changelog from the history of spec/: every commit that touched
 * it, compared with its parent by @gateway-minds/spec-review, newest first.
 * A commit's entry lists operations added and removed, breaking changes and
 * warnings (with their check ids); info-level changes are counted.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { compareSpecs, flatten, generatedClientLevels, type FlatChange, type OperationRef } from '@gateway-minds/spec-review';
import { bundleSpec, extractAt } from './sources.js';

export interface ChangelogEntry {
  commit: string;
  date: string;
  subject: string;
  /** The first version of the spec: nothing to compare with. */
  initial: boolean;
  added: OperationRef[];
  removed: OperationRef[];
  breaking: FlatChange[];
  warnings: FlatChange[];
  infoCount: number;
}

function git(root: string, args: string[]): string {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

export async function buildChangelog(root: string, specPath = 'spec/openapi.yaml', limit = Infinity): Promise<ChangelogEntry[]> {
  const specDir = specPath.split('/')[0]!;
  const commits = git(root, ['log', '--format=%H%x09%cs%x09%s', '--', specDir])
    .split('\n')
    .filter(Boolean)
    .slice(0, limit)
    .map((line) => {
      const [commit, date, ...subject] = line.split('\t');
      return { commit: commit!, date: date!, subject: subject.join('\t') };
    });
  const bundles = new Map<string, object | null>();
  const bundleAt = async (commit: string): Promise<object | null> => {
    if (!bundles.has(commit)) {
      let dir: string | undefined;
      try {
        dir = extractAt(root, commit, specDir);
        bundles.set(commit, await bundleSpec(dir, specPath));
      } catch {
        bundles.set(commit, null); // no spec there, or one that does not bundle
      } finally {
        if (dir) rmSync(dir, { recursive: true, force: true });
      }
    }
    return bundles.get(commit)!;
  };

  const entries: ChangelogEntry[] = [];
  for (const { commit, date, subject } of commits) {
    const parent = git(root, ['rev-list', '--parents', '-n', '1', commit]).trim().split(' ')[1];
    const head = await bundleAt(commit);
    const base = parent ? await bundleAt(parent) : null;
    if (!head) continue;
    if (!base) {
      entries.push({ commit, date, subject, initial: true, added: [], removed: [], breaking: [], warnings: [], infoCount: 0 });
      continue;
    }
    const review = compareSpecs(base, head, { levels: generatedClientLevels });
    const changes = flatten(review);
    entries.push({
      commit,
      date,
      subject,
      initial: false,
      added: review.added,
      removed: review.removed,
      breaking: changes.filter((c) => c.level === 'breaking'),
      warnings: changes.filter((c) => c.level === 'warning'),
      infoCount: changes.filter((c) => c.level === 'info').length,
    });
  }
  return entries;
}

function describe(change: FlatChange): string {
  const who = change.operations.length === 0 ? '' : change.operations.length <= 3 ? `${change.operations.map((o) => `\`${o}\``).join(', ')} ` : `${change.operations.length} operations, `;
  return `${who}${change.where}: ${change.message} (\`${change.id}\`)`;
}

export function renderChangelogMarkdown(entries: ChangelogEntry[]): string {
  const lines = ['# API changelog', '', 'Every change to `spec/`, newest first, as the spec review judges it (check ids: packages/spec-review/README.md). Commits that changed no operation or schema are left out.', ''];
  for (const e of entries) {
    if (!e.initial && e.added.length + e.removed.length + e.breaking.length + e.warnings.length + e.infoCount === 0) continue;
    lines.push(`## ${e.date}: ${e.subject} (\`${e.commit.slice(0, 12)}\`)`, '');
    if (e.initial) {
      lines.push('- The first version of the spec.', '');
      continue;
    }
    for (const o of e.added) lines.push(`- Added \`${o.operationId}\` \`${o.method} ${o.path}\``);
    for (const o of e.removed) lines.push(`- **Removed** \`${o.operationId}\` \`${o.method} ${o.path}\``);
    for (const c of e.breaking.filter((c) => c.id !== 'api-removed')) lines.push(`- **Breaking**: ${describe(c)}`);
    for (const c of e.warnings) lines.push(`- Warning: ${describe(c)}`);
    if (e.infoCount > 0) lines.push(`- ${e.infoCount} compatible change${e.infoCount > 1 ? 's' : ''} (descriptions, new optional fields, wider requests…)`);
    lines.push('');
  }
  return `${lines.join('\n')}`;
}
