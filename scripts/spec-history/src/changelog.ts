/**
 * The API's release history: each released version of the spec compared by the spec review with
 * the one before it, and the changes made since the last release (unreleased). A release is a git
 * tag `v<version>`; before the first tag, the commit where `info.version` first took a value stands
 * for that version's release. This one data set feeds the packages' CHANGELOG.md (written when a
 * release is cut, scripts/release) and the docs site's Changelog page (`npm run spec:changelog --
 * --format json`), so the two never say different things.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { parse } from 'yaml';
import { compareSpecs, flatten, generatedClientLevels, type FlatChange, type OperationRef, type Severity } from '@gateway-minds/spec-review';
import { bundleSpec, extractAt } from './sources.js';

export type Bump = 'major' | 'minor' | 'patch';

export interface ReleaseEntry {
  /** The version; null for the unreleased changes. */
  version: string | null;
  /** The release commit's date (YYYY-MM-DD); null when unreleased. */
  date: string | null;
  /** The release commit (the working tree's HEAD when unreleased). */
  commit: string;
  tag: string | null;
  /** The version it follows; null for the first. */
  previous: string | null;
  /** The first version: nothing to compare it with. */
  initial: boolean;
  /** What the version number says (major, minor, patch); null when unreleased (see scripts/release for the preview). */
  bump: Bump | null;
  added: OperationRef[];
  removed: OperationRef[];
  /** Every change the review reports, breaking first, in its words (the version line itself left out). */
  changes: FlatChange[];
}

export interface ReleaseHistory {
  /** Changes since the last release; null when there are none. */
  unreleased: ReleaseEntry | null;
  /** Released versions, newest first. */
  releases: ReleaseEntry[];
}

export interface ReleasePoint {
  version: string;
  commit: string;
  date: string;
  tag: string | null;
}

function git(root: string, args: string[]): string {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout;
}

const semver = (v: string) => v.split('.').map(Number) as [number, number, number];
export function compareVersions(a: string, b: string): number {
  const [x, y] = [semver(a), semver(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** What moving from one version to the next says about the change. */
export function bumpBetween(previous: string, version: string): Bump {
  const [p, v] = [semver(previous), semver(version)];
  return v[0] !== p[0] ? 'major' : v[1] !== p[1] ? 'minor' : 'patch';
}

function versionAt(root: string, commit: string, specPath: string): string | undefined {
  const result = spawnSync('git', ['show', `${commit}:${specPath}`], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) return undefined;
  try {
    const version = (parse(result.stdout) as { info?: { version?: unknown } })?.info?.version;
    return typeof version === 'string' && /^\d+\.\d+\.\d+$/.test(version) ? version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every release reachable from HEAD, oldest first: tags `v<x.y.z>`, and for versions without a tag,
 * the first commit whose spec carries that `info.version` (how releases were made before tags).
 */
export function releasePoints(root: string, specPath = 'spec/openapi.yaml'): ReleasePoint[] {
  const byVersion = new Map<string, ReleasePoint>();
  const commits = git(root, ['log', '--reverse', '--format=%H%x09%cs', '--', specPath]).split('\n').filter(Boolean);
  for (const line of commits) {
    const [commit, date] = line.split('\t') as [string, string];
    const version = versionAt(root, commit, specPath);
    if (version && !byVersion.has(version)) byVersion.set(version, { version, commit, date, tag: null });
  }
  for (const tag of git(root, ['tag', '--list', 'v*', '--merged', 'HEAD']).split('\n').filter(Boolean)) {
    const version = tag.slice(1);
    if (!/^\d+\.\d+\.\d+$/.test(version)) continue;
    const [commit, date] = git(root, ['log', '-1', '--format=%H%x09%cs', `${tag}^{commit}`]).trim().split('\t') as [string, string];
    byVersion.set(version, { version, commit, date, tag });
  }
  return [...byVersion.values()].sort((a, b) => compareVersions(a.version, b.version));
}

/** The last release reachable from HEAD, or undefined when the spec has never carried a version. */
export function lastRelease(root: string, specPath = 'spec/openapi.yaml'): ReleasePoint | undefined {
  return releasePoints(root, specPath).at(-1);
}

export interface ReviewedChanges {
  added: OperationRef[];
  removed: OperationRef[];
  changes: FlatChange[];
  review: ReturnType<typeof compareSpecs>;
}

/** The review between two bundled documents, as the history records it (this repository's levels; the version line left out). */
export function reviewChanges(base: object, head: object): ReviewedChanges {
  const review = compareSpecs(base, head, { levels: generatedClientLevels });
  return { added: review.added, removed: review.removed, changes: flatten(review).filter((c) => c.id !== 'api-version-changed'), review };
}

export interface HistoryOptions {
  specPath?: string;
  /** Leave out the unreleased changes (the working tree is not read). */
  releasedOnly?: boolean;
}

export async function buildReleaseHistory(root: string, options: HistoryOptions = {}): Promise<ReleaseHistory> {
  const specPath = options.specPath ?? 'spec/openapi.yaml';
  const specDir = specPath.split('/')[0]!;
  const points = releasePoints(root, specPath);
  const bundles = new Map<string, Promise<object>>();
  const bundleAt = (commit: string): Promise<object> => {
    if (!bundles.has(commit)) {
      bundles.set(
        commit,
        (async () => {
          const dir = extractAt(root, commit, specDir);
          try {
            return await bundleSpec(dir, specPath);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        })(),
      );
    }
    return bundles.get(commit)!;
  };

  const releases: ReleaseEntry[] = [];
  for (let i = 0; i < points.length; i++) {
    const point = points[i]!;
    const before = points[i - 1];
    const entry: ReleaseEntry = { version: point.version, date: point.date, commit: point.commit, tag: point.tag, previous: before?.version ?? null, initial: !before, bump: before ? bumpBetween(before.version, point.version) : null, added: [], removed: [], changes: [] };
    if (before) {
      const reviewed = reviewChanges(await bundleAt(before.commit), await bundleAt(point.commit));
      Object.assign(entry, { added: reviewed.added, removed: reviewed.removed, changes: reviewed.changes });
    }
    releases.unshift(entry);
  }

  let unreleased: ReleaseEntry | null = null;
  const last = points.at(-1);
  if (last && !options.releasedOnly) {
    const reviewed = reviewChanges(await bundleAt(last.commit), await bundleSpec(root, specPath));
    if (reviewed.changes.length > 0) {
      unreleased = { version: null, date: null, commit: git(root, ['rev-parse', 'HEAD']).trim(), tag: null, previous: last.version, initial: false, bump: null, added: reviewed.added, removed: reviewed.removed, changes: reviewed.changes };
    }
  }
  return { unreleased, releases };
}

const levelMark: Record<Severity, string> = { breaking: '**Breaking**', warning: 'Warning', info: 'Compatible' };
const bumpMeaning: Record<Bump, string> = {
  major: 'breaking: code written against the previous version may stop working',
  minor: 'additive: existing calls keep working',
  patch: 'a fix: nothing a client sends or receives changed shape',
};

/** A reference link for an operation (`<docs>/reference.html#operation/<id>`). */
export function operationLink(docsBaseUrl: string, operationId: string): string {
  return `${docsBaseUrl.replace(/\/+$/, '')}/reference.html#operation/${encodeURIComponent(operationId)}`;
}

/** One change, in the review's words: its operations linked to the reference, its level and check id. */
export function changeLine(change: FlatChange, docsBaseUrl: string): string {
  const operations = change.operations.length === 0 ? 'Whole API' : change.operations.length <= 5 ? change.operations.map((o) => `[\`${o}\`](${operationLink(docsBaseUrl, o)})`).join(', ') : `${change.operations.length} operations`;
  return `- ${levelMark[change.level]}: ${operations}: ${change.where}: ${change.message} (\`${change.id}\`)`;
}

/** A release's entry as Markdown, for a package's CHANGELOG.md (`## x.y.z (date)` then every change, breaking first). */
export function renderReleaseEntry(entry: ReleaseEntry, docsBaseUrl: string): string {
  const heading = entry.version ? `## ${entry.version} (${entry.date})` : '## Unreleased';
  const lines = [heading, ''];
  if (entry.initial) lines.push(`The first version of the API.`, '');
  else {
    if (entry.version && entry.bump) lines.push(`API ${entry.version} (${entry.bump}): ${bumpMeaning[entry.bump]}.`, '');
    for (const o of entry.added) lines.push(`- Added: [\`${o.operationId}\`](${operationLink(docsBaseUrl, o.operationId)}) \`${o.method} ${o.path}\`${o.summary ? `: ${o.summary}` : ''} (\`endpoint-added\`)`);
    for (const change of entry.changes.filter((c) => c.id !== 'endpoint-added')) lines.push(changeLine(change, docsBaseUrl));
    if (entry.changes.length === 0) lines.push('- No change to the document beyond its version.');
    lines.push('');
  }
  return lines.join('\n');
}

/** The whole history as Markdown (the same entries as the packages' changelogs), newest first, unreleased on top. */
export function renderChangelogMarkdown(history: ReleaseHistory, docsBaseUrl: string): string {
  const lines = ['# API changelog', '', 'Each released version of the API, newest first, with every change the spec review reports (check ids: packages/spec-review/README.md).', ''];
  if (history.unreleased) lines.push(renderReleaseEntry(history.unreleased, docsBaseUrl));
  for (const entry of history.releases) lines.push(renderReleaseEntry(entry, docsBaseUrl));
  return `${lines.join('\n').trimEnd()}\n`;
}
