/**
 * The contract's build, as an object that can be kept warm. It lints spec/ (the repository's
 * redocly.yaml and its ignore file), bundles it (@redocly/openapi-core), writes the derived
 * sources (TypeScript types from openapi-typescript, the error catalog, the operation table, the
 * document as a module) and the bundled document (JSON and YAML), and compiles the package with
 * the TypeScript compiler API on tsconfig.build.json.
 *
 * Two callers: `npm run build` builds once from a clean dist (build.ts); `npm run dev` keeps one
 * builder alive (`build.ts --serve`) and asks it again on every save. Kept alive, the tools stay
 * loaded and the compiler reuses every unchanged source file (an incremental builder program),
 * so a saved edit reaches dist in about a second instead of the several a cold build takes.
 * Nothing in src/generated or dist is edited by hand or committed.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseResolver, bundle, getLineColLocation, lint, loadConfig, type NormalizedProblem } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { stringify } from 'yaml';
import { deriveAuthentication, deriveCredentialSchemes, deriveErrorCatalog, deriveGatewayLimits, deriveOperationTable, type OpenApiDocument } from './derive.js';

export const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = resolve(packageDir, '../..');
export const specDir = join(repoRoot, 'spec');
const specEntry = join(specDir, 'openapi.yaml');
const redoclyConfig = join(repoRoot, 'redocly.yaml');
const distDir = join(packageDir, 'dist');
const generatedDir = join(packageDir, 'src/generated');
/** What the last successful build was built from (see inputsDigest); lets a build skip work already done. */
const stampFile = join(distDir, '.inputs.sha256');

const banner = '// Generated from spec/ by packages/contract/scripts/build.ts. Do not edit.\n';

/** A lint problem with the file and line it points at. */
export interface SpecProblem {
  severity: 'error' | 'warn';
  rule: string;
  message: string;
  /** Relative to the repository root. */
  file: string;
  line: number;
  column: number;
  pointer: string;
}

export interface StepTimes {
  [step: string]: number;
}

export type BuildOutcome =
  | { ok: true; problems: SpecProblem[]; operations: number; errorCodes: number; ms: StepTimes }
  | { ok: false; stage: 'lint' | 'bundle' | 'compile'; problems: SpecProblem[]; message: string; ms: StepTimes };

function since(start: number): number {
  return Math.round(performance.now() - start);
}

function problemOf(problem: NormalizedProblem): SpecProblem {
  const location = problem.location[0];
  const at = location ? getLineColLocation(location) : undefined;
  return {
    severity: problem.severity === 'error' ? 'error' : 'warn',
    rule: problem.ruleId,
    message: problem.message,
    file: location ? relative(repoRoot, location.source.absoluteRef) : 'spec/openapi.yaml',
    line: at?.start.line ?? 1,
    column: at?.start.col ?? 1,
    pointer: location?.pointer ?? '',
  };
}

/** One line per problem, as a terminal or an editor's problem matcher reads it: `file:line:col severity rule message`. */
export function formatProblem(problem: SpecProblem): string {
  return `${problem.file}:${problem.line}:${problem.column}  ${problem.severity === 'error' ? 'error' : 'warning'}  ${problem.rule}  ${problem.message}`;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/**
 * A digest of everything the build reads: spec/, the lint configuration, the package's own
 * sources and scripts, its TypeScript settings and the lockfile (the tools' versions).
 */
export async function inputsDigest(): Promise<string> {
  const handWritten = (await filesUnder(join(packageDir, 'src'))).filter((f) => !f.startsWith(generatedDir));
  const files = [
    ...(await filesUnder(specDir)),
    ...handWritten,
    ...(await filesUnder(join(packageDir, 'scripts'))),
    redoclyConfig,
    join(repoRoot, '.redocly.lint-ignore.yaml'),
    join(repoRoot, 'tsconfig.base.json'),
    join(repoRoot, 'package-lock.json'),
    join(packageDir, 'package.json'),
    join(packageDir, 'tsconfig.build.json'),
  ].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(relative(repoRoot, file)).update('\0');
    hash.update(existsSync(file) ? await readFile(file) : '(absent)').update('\0');
  }
  return hash.digest('hex');
}

/** True when dist holds a build of exactly these inputs (made by a warm builder, for instance). */
export async function isCurrent(digest: string): Promise<boolean> {
  if (!existsSync(stampFile) || !existsSync(join(distDir, 'index.js')) || !existsSync(join(distDir, 'openapi.json'))) return false;
  return (await readFile(stampFile, 'utf8')).trim() === digest;
}

/** Every file the build writes (dist and src/generated), by path. */
type Outputs = Map<string, Buffer>;

async function readOutputs(): Promise<Outputs> {
  const outputs: Outputs = new Map();
  for (const dir of [distDir, generatedDir]) {
    if (!existsSync(dir)) continue;
    for (const file of await filesUnder(dir)) outputs.set(file, await readFile(file));
  }
  return outputs;
}

async function writeOutputs(outputs: Outputs): Promise<void> {
  for (const dir of [distDir, generatedDir]) {
    if (!existsSync(dir)) continue;
    for (const file of await filesUnder(dir)) if (!outputs.has(file)) await rm(file);
  }
  for (const [file, content] of outputs) {
    await mkdir(dirname(file), { recursive: true });
    if (!existsSync(file) || !(await readFile(file)).equals(content)) await writeFile(file, content);
  }
}

export class ContractBuilder {
  private program: ts.EmitAndSemanticDiagnosticsBuilderProgram | undefined;
  /** Parsed source files by path, reused while their text is unchanged. */
  private readonly sourceFiles = new Map<string, { text: string; file: ts.SourceFile }>();
  /** Named copies of the outputs: `latest` after each good build, others as a caller asks. */
  private readonly snapshots = new Map<string, Outputs>();

  /**
   * Keeps a copy of the outputs under `name` (`npm run dev` keeps the contract the running stack
   * last started with, to go back to when a new one would not start).
   */
  async snapshot(name: string): Promise<void> {
    this.snapshots.set(name, name !== 'latest' && this.snapshots.has('latest') ? this.snapshots.get('latest')! : await readOutputs());
  }

  /** Puts the outputs of snapshot `name` back; false when there is none. */
  async restore(name: string): Promise<boolean> {
    const outputs = this.snapshots.get(name);
    if (!outputs) return false;
    await writeOutputs(outputs);
    return true;
  }

  /** Lints spec/ with the repository's rules; ignored problems (.redocly.lint-ignore.yaml) are left out. */
  async lint(): Promise<SpecProblem[]> {
    const config = await loadConfig({ configPath: redoclyConfig });
    const problems = await lint({ ref: specEntry, config, externalRefResolver: new BaseResolver(config.resolve) });
    return problems.filter((p) => !p.ignored).map(problemOf);
  }

  /**
   * Lints (when asked), bundles, generates and compiles. A lint or bundle error leaves dist as it
   * was, so whatever serves the last good contract keeps serving it.
   */
  /**
   * `onBundled` is told as soon as dist/openapi.json holds the new bundled document (before the
   * compile), for whatever needs only that file (a mock) to start on it.
   */
  async build(options: { lint: boolean; clean: boolean; onBundled?: () => void }): Promise<BuildOutcome> {
    try {
      return await this.buildOnce(options);
    } catch (error) {
      // A file caught half-written by an editor, or YAML that does not parse: a problem of the
      // spec, said in one line, and the last good build stays.
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, stage: 'bundle', problems: [], message: `spec/ could not be read: ${message}`, ms: {} };
    }
  }

  private async buildOnce(options: { lint: boolean; clean: boolean; onBundled?: () => void }): Promise<BuildOutcome> {
    const ms: StepTimes = {};
    let start = performance.now();
    const digest = await inputsDigest();
    const config = await loadConfig({ configPath: redoclyConfig });
    const resolver = new BaseResolver(config.resolve);
    let problems: SpecProblem[] = [];
    if (options.lint) {
      problems = (await lint({ ref: specEntry, config, externalRefResolver: resolver })).filter((p) => !p.ignored).map(problemOf);
      ms.lint = since(start);
      if (problems.some((p) => p.severity === 'error')) {
        return { ok: false, stage: 'lint', problems, message: 'spec/ does not pass its lint', ms };
      }
    }

    start = performance.now();
    const result = await bundle({ ref: specEntry, config, externalRefResolver: resolver });
    const bundleErrors = result.problems.filter((p) => p.severity === 'error').map(problemOf);
    ms.bundle = since(start);
    if (bundleErrors.length > 0) return { ok: false, stage: 'bundle', problems: [...problems, ...bundleErrors], message: 'spec/ does not bundle', ms };
    const bundled = result.bundle.parsed as OpenApiDocument;

    start = performance.now();
    if (options.clean) {
      // A one-shot build starts clean, so an artifact whose source was removed cannot linger.
      await rm(generatedDir, { recursive: true, force: true });
      await rm(distDir, { recursive: true, force: true });
      this.program = undefined;
    }
    const counts = await this.generate(bundled);
    ms.generate = since(start);
    options.onBundled?.();

    start = performance.now();
    const compileErrors = this.compile();
    ms.compile = since(start);
    if (compileErrors) {
      // A kept builder puts the last good build back: what serves the contract keeps serving it.
      if (!options.clean) await this.restore('latest');
      return { ok: false, stage: 'compile', problems, message: compileErrors, ms };
    }
    await writeFile(stampFile, `${digest}\n`);
    if (!options.clean) await this.snapshot('latest');
    return { ok: true, problems, ...counts, ms };
  }

  private async generate(bundled: OpenApiDocument): Promise<{ operations: number; errorCodes: number }> {
    await mkdir(generatedDir, { recursive: true });
    await mkdir(distDir, { recursive: true });
    const writes: Promise<void>[] = [];
    const write = (file: string, text: string) => writes.push(writeIfChanged(file, text));

    write(join(distDir, 'openapi.json'), `${JSON.stringify(bundled, null, 2)}\n`);
    write(join(distDir, 'openapi.yaml'), stringify(bundled, { aliasDuplicateObjects: false }));

    // The document travels inside the package as a module too, so that consumers
    // (servers, CLI, MCP) load it without touching the file system.
    write(
      join(generatedDir, 'document.ts'),
      `${banner}import type { OpenApiDocument } from '../document-types.js';\n\n` +
        `const document: unknown = ${JSON.stringify(bundled)};\n\n` +
        `export const openapiDocument = document as OpenApiDocument;\n`,
    );

    // defaultNonNullable: false, or a request property with a default (plan, limit)
    // would be typed as required although callers may omit it.
    const typesAst = await openapiTS(bundled as never, { alphabetize: false, exportType: false, defaultNonNullable: false });
    write(join(generatedDir, 'schema.ts'), banner + astToString(typesAst));

    const catalog = deriveErrorCatalog(bundled);
    write(
      join(generatedDir, 'error-catalog.ts'),
      `${banner}import type { ErrorCatalogFacts } from '../error-types.js';\n\n` +
        `export const errorCatalog = ${JSON.stringify(catalog, null, 2)} as const satisfies Record<string, ErrorCatalogFacts>;\n`,
    );

    const operations = deriveOperationTable(bundled);
    write(
      join(generatedDir, 'operation-table.ts'),
      `${banner}import type { OperationFacts } from '../operation-types.js';\n\n` +
        `export const operationTable = ${JSON.stringify(operations, null, 2)} as const satisfies Record<string, OperationFacts>;\n`,
    );

    write(join(generatedDir, 'gateway-limits.ts'), `${banner}export const gatewayLimits = ${JSON.stringify(deriveGatewayLimits(bundled), null, 2)} as const;\n`);
    write(join(generatedDir, 'authentication.ts'), `${banner}export const authentication = ${JSON.stringify(deriveAuthentication(bundled), null, 2)} as const;\n`);
    write(join(generatedDir, 'credential-schemes.ts'), `${banner}export const credentialSchemes = ${JSON.stringify(deriveCredentialSchemes(bundled), null, 2)} as const;\n`);
    await Promise.all(writes);
    return { operations: Object.keys(operations).length, errorCodes: Object.keys(catalog).length };
  }

  /**
   * `tsc -p tsconfig.build.json`, through the compiler API so that a kept builder re-checks and
   * re-emits only what changed. Returns the formatted errors, or undefined.
   */
  private compile(): string | undefined {
    const configFile = join(packageDir, 'tsconfig.build.json');
    const parsed = ts.getParsedCommandLineOfConfigFile(configFile, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    if (!parsed) return `cannot read ${configFile}`;
    const host = ts.createIncrementalCompilerHost(parsed.options);
    const readSource = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
      const text = ts.sys.readFile(fileName);
      const cached = this.sourceFiles.get(fileName);
      if (cached && text !== undefined && cached.text === text) return cached.file;
      const file = readSource(fileName, languageVersion, onError, shouldCreate);
      if (file && text !== undefined) this.sourceFiles.set(fileName, { text, file });
      return file;
    };
    this.program = ts.createEmitAndSemanticDiagnosticsBuilderProgram(parsed.fileNames, parsed.options, host, this.program, parsed.errors);
    const diagnostics = [...this.program.getConfigFileParsingDiagnostics(), ...this.program.getSyntacticDiagnostics(), ...this.program.getSemanticDiagnostics()];
    // Files whose text is unchanged are not written again: whatever has them open (a stack starting
    // while a kept builder compiles) never reads one half-written, and watchers stay quiet.
    const emitted = this.program.emit(undefined, (file, text) => {
      if (ts.sys.readFile(file) !== text) ts.sys.writeFile(file, text);
    });
    const all = [...diagnostics, ...emitted.diagnostics].filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (all.length === 0) return undefined;
    return ts.formatDiagnosticsWithColorAndContext(all, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => packageDir, getNewLine: () => '\n' });
  }
}

/** Writes only when the text differs: an unchanged file keeps its time stamp, and watchers stay quiet. */
async function writeIfChanged(file: string, text: string): Promise<void> {
  if (existsSync(file) && (await readFile(file, 'utf8')) === text) return;
  await writeFile(file, text);
}
