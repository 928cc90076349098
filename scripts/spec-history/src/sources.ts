/**
 * Getting the two documents: the spec at a git ref (extracted with
 * `git archive` into a temporary folder) or in the working tree, bundled with
 * @redocly/openapi-core as packages/contract/scripts/build.ts does; and the
 * head spec linted with the repository's lint configuration, as `redocly lint` lints it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { BaseResolver, bundle, createConfig, getLineColLocation, getTotals, lint, loadConfig, type Config } from '@redocly/openapi-core';
import type { LintResult } from '@gateway-minds/spec-review';

/** Files besides spec/ the bundle and the lint read. */
const configFiles = ['redocly.yaml', '.redocly.lint-ignore.yaml'];

function run(command: string, args: string[], cwd: string, input?: Buffer): Buffer {
  const result = spawnSync(command, args, { cwd, input, maxBuffer: 256 * 1024 * 1024 });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr.toString().trim()}`);
  }
  return result.stdout;
}

export function repoRoot(cwd: string): string {
  return run('git', ['rev-parse', '--show-toplevel'], cwd).toString().trim();
}

/** The full commit id of a ref, or an error naming the ref. */
export function resolveCommit(root: string, ref: string): string {
  try {
    return run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], root).toString().trim();
  } catch {
    throw new Error(`unknown git ref ${ref} (in CI, fetch it first: actions/checkout with fetch-depth: 0)`);
  }
}

/** Writes spec/ and the lint configuration as they are at `commit` into a new temporary folder. */
export function extractAt(root: string, commit: string, specDir: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'spec-review-'));
  const present = run('git', ['ls-tree', '--name-only', commit, '--', specDir, ...configFiles], root)
    .toString()
    .split('\n')
    .filter(Boolean);
  if (!present.includes(specDir)) throw new Error(`${specDir}/ does not exist at ${commit}`);
  const archive = run('git', ['archive', '--format=tar', commit, '--', ...present], root);
  run('tar', ['-x', '-f', '-', '-C', dir], dir, archive);
  return dir;
}

/** The repository's redocly.yaml in `root` (and its lint-ignore file beside it), or the defaults. */
function redoclyConfig(root: string): Promise<Config> {
  const configPath = join(root, 'redocly.yaml');
  return existsSync(configPath) ? loadConfig({ configPath }) : createConfig({});
}

export async function bundleSpec(root: string, entry: string): Promise<object> {
  const config = await redoclyConfig(root);
  const result = await bundle({ ref: join(root, entry), config });
  const errors = result.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) {
    // Files named from the repository's root, as the lint names them (not the temporary copy's path).
    const lines = errors.map((p) => `- ${p.message} (${p.location[0] ? relative(root, p.location[0].source.absoluteRef) : '?'}${p.location[0]?.pointer ?? ''})`);
    throw new Error(`${entry} does not bundle:\n${lines.join('\n')}`);
  }
  return result.bundle.parsed as object;
}

/**
 * The spec in `root` linted as `redocly lint` lints it (the same @redocly/openapi-core, with the
 * configuration and ignore file there), in this process: a second process would cost a Node start
 * and the CLI's imports for every review. Errors come first, as the CLI lists them; problems the
 * ignore file lists are left out.
 */
export async function lintSpec(root: string, entry: string): Promise<LintResult> {
  const config = await redoclyConfig(root);
  const problems = (await lint({ ref: join(root, entry), config, externalRefResolver: new BaseResolver(config.resolve) }))
    .filter((p) => !p.ignored)
    .sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  const totals = getTotals(problems);
  return {
    errors: totals.errors,
    warnings: totals.warnings,
    problems: problems.map((p) => {
      const at = p.location[0];
      // Files named from the repository's root, as annotations name them.
      const file = at ? relative(root, at.source.absoluteRef) : entry;
      const line = at ? getLineColLocation(at).start.line : undefined;
      return {
        severity: p.severity,
        ruleId: p.ruleId,
        message: p.message,
        location: `${file}${line ? `:${line}` : ''}${at?.pointer ? ` ${at.pointer}` : ''}`,
        file,
        ...(line ? { line } : {}),
        ...(at?.pointer ? { pointer: at.pointer } : {}),
      };
    }),
  };
}
