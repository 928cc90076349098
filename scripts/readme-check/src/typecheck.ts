/**
 * Type-checks documented TypeScript blocks with the compiler API, each as its
 * own ES module placed in this workspace, so that `@gateway-minds/client` and
 * the rest resolve to the built packages (their dist/ declarations) exactly as
 * they would in a reader's project. Top-level await is allowed, as in a module.
 */
import { join } from 'node:path';
import ts from 'typescript';

export interface TypeCheckInput {
  name: string;
  code: string;
}

const compilerOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  moduleDetection: ts.ModuleDetectionKind.Force,
  strict: true,
  // A reader's project may be stricter than `strict`: the examples compile under these too.
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noEmit: true,
  skipLibCheck: true,
  esModuleInterop: true,
  types: ['node'],
};

/** The diagnostics of each block, by name, as `line:column message` (an empty list is a pass). */
export function typeCheckBlocks(blocks: TypeCheckInput[], workspaceDir: string): Map<string, string[]> {
  const files = new Map(blocks.map((block) => [join(workspaceDir, 'src', `${block.name}.ts`), block]));
  const host = ts.createCompilerHost(compilerOptions);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (path) => files.has(path) || fileExists.call(host, path);
  host.readFile = (path) => files.get(path)?.code ?? readFile.call(host, path);
  host.getSourceFile = (path, language, ...rest) => {
    const block = files.get(path);
    return block ? ts.createSourceFile(path, block.code, language, true) : getSourceFile.call(host, path, language, ...rest);
  };
  const program = ts.createProgram([...files.keys()], compilerOptions, host);
  const results = new Map<string, string[]>();
  for (const [path, block] of files) {
    const source = program.getSourceFile(path)!;
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    results.set(
      block.name,
      diagnostics.map((d) => {
        const { line, character } = d.start === undefined ? { line: 0, character: 0 } : source.getLineAndCharacterOfPosition(d.start);
        return `${line + 1}:${character + 1} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      }),
    );
  }
  return results;
}
