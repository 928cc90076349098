/**
 * A new operation without its handler is a type error that names it (DESIGN.md, "The author's
 * loop": "A new operation is a type error that names its missing handler, never a crash at
 * start"), and the loop finds the name in what the compiler says. The compiler runs for real, on
 * the real contract's types, through the TypeScript API.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { operationsWithoutHandler } from '../src/turbo.js';

const dir = mkdtempSync(join(import.meta.dirname, '.typecheck-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The compiler's formatted diagnostics for a module that imports the contract's and service-kit's types. */
function compile(source: string): string {
  const file = join(dir, `case-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(file, source);
  const options: ts.CompilerOptions = { strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true, types: [] };
  const program = ts.createProgram([file], options);
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === file);
  return ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' });
}

const header = `import type { ServiceOperationId } from '@gateway-minds/contract';
import type { HandlerTable } from '@gateway-minds/service-kit';
type Minds = HandlerTable<ServiceOperationId<'minds'>>;
declare const complete: Minds;
`;

describe('a handler table typed by the contract', () => {
  it('compiles when every operation of the service has a handler', () => {
    expect(compile(`${header}export const table = { ...complete } satisfies Minds;\n`)).toBe('');
  });

  it('names the one operation whose handler is missing, and the loop reads it', () => {
    const output = compile(`${header}const { minds_getUsage: _left, ...rest } = complete;\nexport const table = { ...rest } satisfies Minds;\n`);
    expect(output).toContain("'minds_getUsage'");
    expect(operationsWithoutHandler(output)).toEqual(['minds_getUsage']);
  });

  it('names every missing operation when several are', () => {
    const output = compile(`${header}const { minds_getUsage: _a, minds_getMind: _b, ...rest } = complete;\nexport const table = { ...rest } satisfies Minds;\n`);
    expect(operationsWithoutHandler(output).sort()).toEqual(['minds_getMind', 'minds_getUsage']);
  });

  it('refuses a handler for an operation the service does not have', () => {
    expect(compile(`${header}export const table = { ...complete, minds_noSuchOperation: () => undefined } satisfies Minds;\n`)).toContain('minds_noSuchOperation');
  });
});
