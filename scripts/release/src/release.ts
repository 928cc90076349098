/**
 * Cutting a release: the last release (a tag `v<x.y.z>`, or before tags the commit where
 * `info.version` took its value), the spec review between it and the working tree, the bump it asks
 * for, and the files a release writes. Versions are decided here, never in pull requests; a pull
 * request gets `previewMarkdown` in its spec review instead.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { buildReleaseHistory, lastRelease, reviewChanges } from '@gateway-minds/spec-history/changelog';
import { bundleSpec, extractAt } from '@gateway-minds/spec-history/sources';
import { bumpFor, bumpMeaning, nextVersion, type Bump } from './bump.js';
import { publishedDocsUrl, publishedPackages, writeChangelogs, writeSpecVersion, writeVersions } from './published.js';

export interface Plan {
  last: { version: string; commit: string; tag: string | null };
  bump: Bump | null;
  next: string | null;
  changes: number;
}

/** The last release, and what the changes since it ask for. */
export async function planRelease(root: string): Promise<Plan> {
  const last = lastRelease(root);
  if (!last) throw new Error('spec/openapi.yaml has never carried an info.version: nothing to release from');
  const dir = extractAt(root, last.commit, 'spec');
  try {
    const [base, head] = await Promise.all([bundleSpec(dir, 'spec/openapi.yaml'), bundleSpec(root, 'spec/openapi.yaml')]);
    const { review, changes } = reviewChanges(base, head);
    const bump = bumpFor(review);
    return { last, bump, next: bump ? nextVersion(last.version, bump) : null, changes: changes.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The pull request's view: which version merging makes the next release. */
export function previewMarkdown(plan: Plan): string {
  const since = `${plan.last.version}${plan.last.tag ? ` (tag \`${plan.last.tag}\`)` : ` (commit \`${plan.last.commit.slice(0, 12)}\`)`}`;
  if (!plan.bump) return `### Next release\n\nNo change to the API since the last release, ${since}: nothing to release.\n`;
  return (
    `### Next release\n\nWith this change, the next release is **${plan.next}** (${plan.bump}: ${bumpMeaning[plan.bump]}), ` +
    `from the ${plan.changes} change${plan.changes === 1 ? '' : 's'} to the API since the last release, ${since}. ` +
    'Versions and changelogs are written when a release is cut (`npm run release:cut`, or the Release workflow on main), not in pull requests.\n'
  );
}

function run(root: string, command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr.trim()}`);
}
const git = (root: string, args: string[]) => run(root, 'git', args);

/** Writes the release into the working tree (and, with `tag`, commits and tags it). Returns the version, or null when there is nothing to release. */
export async function cutRelease(root: string, docsBaseUrl: string | undefined, options: { tag?: boolean; date?: string } = {}): Promise<string | null> {
  const docs = publishedDocsUrl(docsBaseUrl);
  const plan = await planRelease(root);
  if (!plan.bump || !plan.next) return null;
  const history = await buildReleaseHistory(root);
  const date = options.date ?? new Date().toISOString().slice(0, 10);
  // The unreleased changes become the new release: the same entry the docs site lists under "Unreleased" until now.
  const released = { ...history.unreleased!, version: plan.next, date, bump: plan.bump, tag: `v${plan.next}` };
  writeSpecVersion(plan.next, root);
  writeVersions(plan.next, root);
  writeChangelogs({ unreleased: null, releases: [released, ...history.releases] }, docs, root);
  if (options.tag) {
    // The lock file records each workspace's version: it follows, so that `npm ci` on the tag agrees.
    if (existsSync(join(root, 'package-lock.json'))) run(root, 'npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund']);
    git(root, ['add', ...(existsSync(join(root, 'package-lock.json')) ? ['package-lock.json'] : []), 'spec/openapi.yaml', ...publishedPackages.flatMap((p) => [`${p.dir}/package.json`, `${p.dir}/CHANGELOG.md`])]);
    git(root, ['commit', '-q', '-m', `release: v${plan.next} (${plan.bump})`]);
    git(root, ['tag', '-a', `v${plan.next}`, '-m', `API ${plan.next} (${plan.bump}): ${bumpMeaning[plan.bump]}`]);
  }
  return plan.next;
}
