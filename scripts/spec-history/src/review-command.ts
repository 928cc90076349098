/**
 * The repository's spec review, `npm run spec:review -- --base <git ref> [options]` (src/cli.ts
 * runs it on the process's arguments and output): lints the head spec, bundles it and the spec at
 * the base ref, and reports with @gateway-minds/spec-review (this API's levels:
 * generatedClientLevels), as Markdown, JSON or GitHub annotations on the changed spec lines.
 * `--output` writes the format `--format` names; `--markdown` also writes the Markdown report (CI
 * posts it on the pull request). Exits 1 when the head spec has lint errors, does not bundle, or
 * has a breaking change that is not acknowledged (--accept-breaking, or
 * SPEC_REVIEW_ACCEPT_BREAKING=1, which CI sets from the label `breaking-change-accepted`); 2 on a
 * usage error or a base spec that does not bundle.
 */
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  compareSpecs,
  createLocator,
  generatedClientLevels,
  hasBlockingProblems,
  isRegistered,
  renderAnnotations,
  renderBundleFailure,
  renderBundleFailureAnnotation,
  renderJson,
  renderMarkdown,
  type Severity,
} from '@gateway-minds/spec-review';
import { bundleSpec, extractAt, lintSpec, repoRoot, resolveCommit } from './sources.js';

const usage = `usage: npm run spec:review -- --base <git ref> [--head <git ref>] [--spec spec/openapi.yaml]
                            [--format markdown|json|github] [--output file] [--markdown file]
                            [--append file]... [--accept-breaking] [--level <check id>=<level>]...

  --base             the ref to compare with (a PR's base sha, origin/main)
  --head             compare this ref instead of the working tree
  --spec             the root document, relative to the repository (default spec/openapi.yaml)
  --format           markdown (default), json (every change with its check id, level, operations,
                     file, line and pointer, and every lint problem with its location), or github
                     (workflow annotations on the changed lines of spec/, for CI)
  --output           write the report in that format to this file instead of stdout
  --markdown         also write the Markdown report to this file (and to $GITHUB_STEP_SUMMARY when
                     it is set)
  --append           a Markdown section put into the Markdown report (the next version's preview)
  --accept-breaking  breaking changes are acknowledged: annotated as warnings, exit 0
                     (also SPEC_REVIEW_ACCEPT_BREAKING=1)
  --level            re-level a check: --level api-operation-id-renamed=info
                     (levels: breaking, warning, info; check ids: packages/spec-review/README.md)`;

function truthy(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes)$/i.test(value.trim());
}

/**
 * What a new operation needs beyond the spec: a handler in the service that serves its path. The
 * client, CLI, MCP server, MSW handlers, mock and docs are generated from the contract.
 */
function handlerNote(operation: { operationId: string; path: string }): string {
  const where = operation.path.startsWith('/v1/minds') ? 'bound in `apps/minds/src/service.ts`' : 'bound in `apps/gateway/src/routes/gateway-routes.ts`';
  return `↳ needs a server handler: \`npm run scaffold:handler -- ${operation.operationId}\` writes a stub, ${where}.`;
}
const generatedNote = 'The typed client, the CLI, the MCP server, the MSW handlers, the Prism mock and the docs pick new operations up by themselves: they are built from the contract.';

/** Where a review runs and writes: the process's own in the CLI, a test's in a test. */
export interface ReviewIO {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Runs the review `argv` asks for (the CLI's arguments) and resolves with its exit code. */
export async function runReview(argv: string[], io: ReviewIO): Promise<number> {
  const { cwd, env } = io;
  const printError = (text: string) => io.stderr(`${text}\n`);
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        base: { type: 'string' },
        head: { type: 'string' },
        spec: { type: 'string', default: 'spec/openapi.yaml' },
        'accept-breaking': { type: 'boolean', default: false },
        output: { type: 'string' },
        markdown: { type: 'string' },
        append: { type: 'string', multiple: true, default: [] },
        format: { type: 'string', default: 'markdown' },
        level: { type: 'string', multiple: true, default: [] },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
    }).values;
  } catch (error) {
    printError(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if (args.help) {
    io.stdout(`${usage}\n`);
    return 0;
  }
  if (!args.base) {
    printError(`--base is required\n\n${usage}`);
    return 2;
  }
  if (!['markdown', 'json', 'github'].includes(args.format!)) {
    printError(`--format must be markdown, json or github\n\n${usage}`);
    return 2;
  }
  // This API's clients are generated from its document: the checks that break them are breaking here (spec/DECISIONS.md, Versioning).
  const levels: Record<string, Severity> = { ...generatedClientLevels };
  for (const setting of args.level ?? []) {
    const match = /^([a-z0-9-]+)=(breaking|warning|info)$/.exec(setting);
    if (!match || !isRegistered(match[1]!)) {
      printError(`--level takes <registered check id>=breaking|warning|info, not ${setting}\n\n${usage}`);
      return 2;
    }
    levels[match[1]!] = match[2] as Severity;
  }
  const appended = (args.append ?? []).filter((file) => existsSync(file)).map((file) => readFileSync(file, 'utf8'));

  const root = repoRoot(cwd);
  const specPath = args.spec!;
  const specDir = specPath.split('/')[0]!;
  const temporary: string[] = [];
  const emit = (report: string, markdown: string) => {
    if (args.output) writeFileSync(resolve(cwd, args.output), report);
    else io.stdout(report);
    if (args.markdown) writeFileSync(resolve(cwd, args.markdown), markdown);
    if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, markdown);
  };
  try {
    const baseCommit = resolveCommit(root, args.base);
    const baseRoot = extractAt(root, baseCommit, specDir);
    temporary.push(baseRoot);
    let headRoot = root;
    let headLabel = 'working tree';
    if (args.head) {
      const headCommit = resolveCommit(root, args.head);
      headRoot = extractAt(root, headCommit, specDir);
      temporary.push(headRoot);
      headLabel = `${args.head} (${headCommit.slice(0, 12)})`;
    }

    const lint = await lintSpec(headRoot, specPath);
    const baseLabel = `${args.base}${args.base.startsWith(baseCommit.slice(0, 7)) ? '' : ` (${baseCommit.slice(0, 12)})`}`;
    const commands = { lint: 'npm run lint:spec', review: 'npm run spec:review -- --base {base} --format json' };
    const [base, head] = await Promise.all([bundleSpec(baseRoot, specPath), bundleSpec(headRoot, specPath).catch((error: Error) => error)]);
    if (head instanceof Error) {
      // The pull request's own spec is broken: a failure of the change (exit 1), reported where every other one is.
      const markdown = renderBundleFailure({ base: baseLabel, head: headLabel, lint, commands }, head.message);
      const report =
        args.format === 'json'
          ? `${JSON.stringify({ base: args.base, baseCommit, head: headLabel, bundleError: head.message, lint }, null, 2)}\n`
          : args.format === 'github'
            ? renderBundleFailureAnnotation(specPath, head.message)
            : markdown;
      emit(report, markdown);
      printError(`spec review: the head spec does not bundle, lint ${lint.errors} errors -> FAIL`);
      return 1;
    }
    const review = compareSpecs(base, head, { levels });
    const acknowledged = args['accept-breaking'] === true || truthy(env.SPEC_REVIEW_ACCEPT_BREAKING);
    // Annotations and JSON name files relative to the repository root, as GitHub expects; a ref's extracted copy maps to the same names.
    const locate = createLocator(resolve(headRoot, specPath), headRoot, { base });
    const markdown = renderMarkdown(review, {
      base: baseLabel,
      head: headLabel,
      lint,
      acknowledged,
      acknowledgeHint:
        'If they are intended, a maintainer adds the label `breaking-change-accepted` to the pull request ' +
        '(locally: `--accept-breaking`); the next release is then a major version (spec/DECISIONS.md, Versioning).',
      commands,
      locate,
      addedOperationNote: handlerNote,
      addedOperationsFooter: generatedNote,
      extraSections: appended,
    });
    const report =
      args.format === 'json'
        ? renderJson(review, { locate, lint, context: { base: args.base, baseCommit, head: headLabel, acknowledged } })
        : args.format === 'github'
          ? renderAnnotations(review, locate, specPath, { acknowledged })
          : markdown;
    emit(report, markdown);
    const blocked = hasBlockingProblems(review, { lint, acknowledged });
    printError(
      `spec review: ${review.added.length} added, ${review.removed.length} removed, ${review.changed.length} changed, ` +
        `${review.breaking.length} breaking${review.breaking.length && acknowledged ? ' (acknowledged)' : ''}, ` +
        `lint ${lint.errors} errors -> ${blocked ? 'FAIL' : 'ok'}` +
        (args.output ? ` (report: ${relative(cwd, resolve(cwd, args.output)) || args.output})` : ''),
    );
    return blocked ? 1 : 0;
  } catch (error) {
    printError(`spec review: ${(error as Error).message}`);
    return 2;
  } finally {
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  }
}

