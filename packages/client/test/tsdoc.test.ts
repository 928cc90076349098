/**
 * What an editor shows on hover: the TypeScript language service, in process, asked for the quick
 * info of each client method as a consumer writes it (`client.minds_getMind`), against the built
 * package as it resolves from outside (`@gateway-minds/client`, dist/*.d.ts). Each method's
 * documentation is its operation's summary and description from the spec.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { operationIds, operationTable } from '@gateway-minds/contract';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const packageDir = join(import.meta.dirname, '..');
const consumerFile = join(packageDir, 'test', '__hover-consumer.ts');
const consumer = `import { createClient } from '@gateway-minds/client';
const client = createClient({ baseUrl: 'http://127.0.0.1:8080' });
${operationIds.map((id) => `client.${id};`).join('\n')}
`;

const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, types: [], lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'] };
const host: ts.LanguageServiceHost = {
  getCompilationSettings: () => options,
  getScriptFileNames: () => [consumerFile],
  getScriptVersion: () => '1',
  getScriptSnapshot: (file) => {
    const text = file === consumerFile ? consumer : ts.sys.fileExists(file) ? readFileSync(file, 'utf8') : undefined;
    return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
  },
  getCurrentDirectory: () => packageDir,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: (file) => file === consumerFile || ts.sys.fileExists(file),
  readFile: (file) => (file === consumerFile ? consumer : ts.sys.readFile(file)),
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
  realpath: ts.sys.realpath,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());

function hover(operationId: string): { signature: string; documentation: string } {
  const position = consumer.indexOf(`client.${operationId};`) + 'client.'.length + 1;
  const info = service.getQuickInfoAtPosition(consumerFile, position);
  return { signature: ts.displayPartsToString(info?.displayParts), documentation: ts.displayPartsToString(info?.documentation) };
}

describe('hover over a client method', () => {
  it('the consumer compiles against the built package', () => {
    const problems = [...service.getSyntacticDiagnostics(consumerFile), ...service.getSemanticDiagnostics(consumerFile)].map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  });

  it.each(operationIds.map((id) => [id] as const))('%s: shows its summary and description from the spec', (id) => {
    const { signature, documentation } = hover(id);
    expect(signature).toContain(id);
    expect(documentation).toContain(operationTable[id].summary);
    expect(documentation).toContain(operationTable[id].description.trim().split('\n')[0]);
    expect(documentation).toContain(`${operationTable[id].method.toUpperCase()} ${operationTable[id].path}`);
  });
});
