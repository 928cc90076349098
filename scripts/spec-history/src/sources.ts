/**
 * Getting the two documents: the spec at a git ref (extracted with
 * `git archive` into a temporary folder) or in the working tree, bundled with
 * @redocly/openapi-core as packages/contract/scripts/build.ts does; and the
 * head spec linted with the repository's `redocly lint`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve as resolvePath } from 'node:path';
import { bundle, createConfig, loadConfig } from '@redocly/openapi-core';
import type { LintResult } from '@gateway-minds/spec-review';

const require = createRequire(import.meta.url);
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

export async function bundleSpec(root: string, entry: string): Promise<object> {
  const configPath = join(root, 'redocly.yaml');
  const config = existsSync(configPath) ? await loadConfig({ configPath }) : await createConfig({});
  const result = await bundle({ ref: join(root, entry), config });
  const errors = result.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) {
    // Files named from the repository's root, as the lint names them (not the temporary copy's path).
    const lines = errors.map((p) => `- ${p.message} (${p.location[0] ? relative(root, p.location[0].source.absoluteRef) : '?'}${p.location[0]?.pointer ?? ''})`);
    throw new Error(`${entry} does not bundle:\n${lines.join('\n')}`);
  }
  return result.bundle.parsed as object;
}

interface RedoclyJsonProblem {
  ruleId: string;
  severity: string;
  message: string;
  location?: { source?: { ref?: string }; pointer?: string; start?: { line?: number } }[];
}

/** `redocly lint --format=json` on the spec in `root`, with the configuration there. */
export function lintSpec(root: string, entry: string): LintResult {
  const cli = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin/cli.js');
  const result = spawnSync(process.execPath, [cli, 'lint', entry, '--format=json'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' },
  });
  const start = result.stdout.indexOf('{');
  if (start < 0) throw new Error(`redocly lint printed no report (${result.status}):\n${result.stderr}`);
  const report = JSON.parse(result.stdout.slice(start)) as { totals: { errors: number; warnings: number }; problems: RedoclyJsonProblem[] };
  return {
    errors: report.totals.errors,
    warnings: report.totals.warnings,
    problems: report.problems.map((p) => {
      const at = p.location?.[0];
      // Files named from the repository's root, as annotations name them.
      const file = at?.source?.ref ? relative(root, resolvePath(root, at.source.ref)) : entry;
      return {
        severity: p.severity,
        ruleId: p.ruleId,
        message: p.message,
        location: `${file}${at?.start?.line ? `:${at.start.line}` : ''}${at?.pointer ? ` ${at.pointer}` : ''}`,
        file,
        ...(at?.start?.line ? { line: at.start.line } : {}),
        ...(at?.pointer ? { pointer: at.pointer } : {}),
      };
    }),
  };
}
