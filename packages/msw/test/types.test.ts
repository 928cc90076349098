/**
 * The handlers' examples are type-checked against the contract's `paths`
 * (through openapi-msw's typed `response(status).json(...)`): the generated
 * file compiles as built, and the same file with a property the contract does
 * not have added to every example body fails to compile at every example.
 * So an example that drifts from its schema fails the build.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const packageDir = join(import.meta.dirname, '..');
const generatedPath = join(packageDir, 'src/generated/handlers.ts');

function diagnosticsWith(generatedSource: string): ts.Diagnostic[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(packageDir, 'tsconfig.build.json'), { noEmit: true }, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const host = ts.createCompilerHost(config.options);
  const { readFile, getSourceFile } = host;
  host.readFile = (path) => (path === generatedPath ? generatedSource : readFile.call(host, path));
  host.getSourceFile = (path, language, ...rest) =>
    path === generatedPath ? ts.createSourceFile(path, generatedSource, language, true) : getSourceFile.call(host, path, language, ...rest);
  const program = ts.createProgram([join(packageDir, 'src/index.ts')], config.options, host);
  return [...program.getSyntacticDiagnostics(), ...program.getSemanticDiagnostics()];
}

describe('the generated handlers are typed by the contract', () => {
  const built = readFileSync(generatedPath, 'utf8');
  const jsonAnswers = built.match(/\.json\(\{/g)?.length ?? 0;

  it('compile as generated', () => {
    expect(jsonAnswers).toBeGreaterThan(100);
    expect(diagnosticsWith(built).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  }, 120_000);

  it('fail at every example that carries a property the contract does not have', () => {
    const drifted = built.replace(/\.json\(\{/g, '.json({"not_in_the_contract":true,');
    const excess = diagnosticsWith(drifted).filter((d) => d.file?.fileName === generatedPath && ts.flattenDiagnosticMessageText(d.messageText, '\n').includes('not_in_the_contract'));
    expect(excess).toHaveLength(jsonAnswers);
  }, 120_000);
});
