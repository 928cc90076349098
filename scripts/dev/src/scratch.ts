/**
 * A scratch copy of the repository to change the spec in, build and run, so that a test or a
 * bench never touches the working tree, its data or its turbo cache. The copy has its own
 * workspaces (node_modules/@gateway-minds points into the copy) and borrows everything else that
 * `npm install` put in node_modules, by symbolic link. It is a git repository of its own, as turbo
 * and the spec review expect, ignoring those links as the repository ignores node_modules. Its
 * turbo cache starts as a copy of the repository's (a few megabytes): a build of the copy then
 * runs only the tasks whose inputs differ from a build the repository has cached.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { repoRoot } from './paths.js';

/** What a fresh clone would not have: installed packages, build outputs, caches, data. */
const skipped = new Set(['node_modules', 'dist', 'generated', '.turbo', '.git', '.test-results', 'data', '.readme-check']);

export interface ScratchRepository {
  root: string;
  remove(): void;
}

export function scratchRepository(prefix = 'gateway-minds-scratch-'): ScratchRepository {
  const root = mkdtempSync(join(tmpdir(), prefix));
  cpSync(repoRoot, root, {
    recursive: true,
    filter: (source) => !relative(repoRoot, source).split('/').some((part) => skipped.has(part)),
  });
  // The installed packages, shared; the workspaces' own links, pointing into the copy.
  const modules = join(repoRoot, 'node_modules');
  mkdirSync(join(root, 'node_modules'));
  for (const entry of readdirSync(modules)) {
    if (entry === '@gateway-minds' || entry === '.cache') continue;
    symlinkSync(join(modules, entry), join(root, 'node_modules', entry));
  }
  mkdirSync(join(root, 'node_modules/@gateway-minds'));
  for (const workspace of readdirSync(join(modules, '@gateway-minds'))) {
    // npm links each workspace relatively (../../packages/client): the same link resolves in the copy.
    symlinkSync(readlinkSync(join(modules, '@gateway-minds', workspace)), join(root, 'node_modules/@gateway-minds', workspace));
  }
  // Packages a workspace installed for itself alone (a version the others do not share).
  for (const group of ['apps', 'packages', 'scripts']) {
    for (const workspace of readdirSync(join(repoRoot, group))) {
      const own = join(repoRoot, group, workspace, 'node_modules');
      if (existsSync(own)) symlinkSync(own, join(root, group, workspace, 'node_modules'));
    }
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
  git('init', '-q');
  // The repository's .gitignore names node_modules/ as a directory; in the copy they are links.
  appendFileSync(join(root, '.git/info/exclude'), 'node_modules\n');
  git('add', '-A');
  git('-c', 'user.name=scratch', '-c', 'user.email=scratch@test.invalid', 'commit', '-qm', 'scratch copy');
  const cache = join(repoRoot, '.turbo/cache');
  if (existsSync(cache)) cpSync(cache, join(root, '.turbo/cache'), { recursive: true });
  // Retried: a process that has just exited may have left a file being written a moment ago.
  return { root, remove: () => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }) };
}

/**
 * Adds the operation of fixtures/new-operation to the scratch copy's spec: a Minds read
 * (`minds_getMindCapacity`, GET /v1/minds/services/{mind_id}/capacity) with a schema of its own
 * and a named example, lint-clean. Returns its operation id.
 */
export function addNewOperation(root: string): string {
  const fixture = join(repoRoot, 'scripts/dev/fixtures/new-operation');
  cpSync(join(fixture, 'path.yaml'), join(root, 'spec/paths/v1_minds_services_{mind_id}_capacity.yaml'));
  cpSync(join(fixture, 'schema.yaml'), join(root, 'spec/components/schemas/MindCapacityReport.yaml'));
  mkdirSync(dirname(join(root, 'spec/components/examples/minds/CapacityApplied.yaml')), { recursive: true });
  cpSync(join(fixture, 'example.yaml'), join(root, 'spec/components/examples/minds/CapacityApplied.yaml'));
  editFile(join(root, 'spec/openapi.yaml'), (text) =>
    text.replace(
      '  /v1/minds/services/{mind_id}:\n    $ref: paths/v1_minds_services_{mind_id}.yaml\n',
      '  /v1/minds/services/{mind_id}:\n    $ref: paths/v1_minds_services_{mind_id}.yaml\n  /v1/minds/services/{mind_id}/capacity:\n    $ref: paths/v1_minds_services_{mind_id}_capacity.yaml\n',
    ),
  );
  return 'minds_getMindCapacity';
}

/** Rewrites a file with `change`, failing when the change finds nothing to change. */
export function editFile(file: string, change: (text: string) => string): void {
  const before = readFileSync(file, 'utf8');
  const after = change(before);
  if (after === before) throw new Error(`the edit changed nothing in ${file}`);
  writeFileSync(file, after);
}
