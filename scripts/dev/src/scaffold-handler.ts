/**
 * `npm run scaffold:handler -- <operationId>`: writes the handler of an operation the spec has and
 * the server does not, as contract-first server generators do. The stub is typed by the contract
 * (its request's path parameters and body, the body of its success answer), lands beside the
 * handlers of the operation's tag, and is bound in its service's handler table; until it is
 * written it answers the operation's first success example, so the stack serves the operation at
 * once. The contract is built first (turbo; a cache hit when nothing changed), so the operation is
 * read from the spec as saved.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import type { OperationFacts } from '@gateway-minds/contract';
import leven from 'leven';
import { repoRoot } from './paths.js';
import { errorLines, runTurbo } from './turbo.js';

type Contract = typeof import('@gateway-minds/contract');

/** Where each service that this repository implements binds its handlers. */
interface ServiceBinding {
  /** The file holding the handler table, with the marker line new handlers go above. */
  table: string;
  /** The folder of that service's sources. */
  sources: string;
  /** The type of what the handler factories are given, and the module it comes from (relative to `sources`). */
  deps: { type: string; module: string };
  /** How the table calls a factory. */
  depsExpression: string;
}

const bindings: Record<string, ServiceBinding> = {
  minds: { table: 'apps/minds/src/service.ts', sources: 'apps/minds/src', deps: { type: 'Deps', module: 'deps.js' }, depsExpression: 'deps' },
  gateway: { table: 'apps/gateway/src/routes/gateway-routes.ts', sources: 'apps/gateway/src', deps: { type: 'GatewayRouteDeps', module: 'routes/gateway-routes.js' }, depsExpression: 'deps' },
};
bindings.iam = bindings.gateway!;

const marker = "// npm run scaffold:handler binds a new operation's handler above this line.";

export interface ScaffoldResult {
  stub: string;
  table: string;
  factory: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(dir, file));
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The folder of the handlers bound for other operations of the same tag, else the table's. */
function folderFor(contract: Contract, operation: OperationFacts, binding: ServiceBinding, root: string): string {
  const siblings = (Object.values(contract.operationTable) as OperationFacts[]).filter((o) => o.tag === operation.tag && o.operationId !== operation.operationId);
  for (const file of sourceFiles(join(root, binding.sources))) {
    const text = readFileSync(file, 'utf8');
    if (siblings.some((s) => new RegExp(`\\b${s.operationId}\\s*:`).test(text)) && !file.endsWith(binding.table)) return dirname(file);
  }
  return dirname(join(root, binding.table));
}

function importPath(from: string, to: string): string {
  const path = relative(dirname(from), to).replace(/\.ts$/, '.js');
  return path.startsWith('.') ? path : `./${path}`;
}

/** Writes and binds the stub of `operationId`, as `contract` (the built contract package) describes it. */
export function scaffoldHandler(contract: Contract, operationId: string, root = repoRoot): ScaffoldResult {
  if (!contract.isOperationId(operationId)) {
    const near = contract.operationIds.filter((id) => leven(id, operationId) <= 3);
    throw new Error(`${operationId} is not an operation of the contract${near.length > 0 ? `: did you mean ${near.join(' or ')}?` : ''}`);
  }
  const operation: OperationFacts = contract.operationTable[operationId];
  const binding = bindings[operation.service];
  if (!binding) throw new Error(`${operationId} belongs to the ${operation.service} service, which this repository does not implement: the gateway forwards /v1/${operation.service}/... to its upstream`);
  const tableFile = join(root, binding.table);
  const sources = join(root, binding.sources);
  const bound = sourceFiles(sources).find((file) => new RegExp(`\\b${operationId}\\s*:`).test(readFileSync(file, 'utf8')));
  if (bound) throw new Error(`${operationId} already has a handler, in ${relative(root, bound)}`);

  const factory = operationId.replace(/^[a-z]+_/, '');
  const stub = join(folderFor(contract, operation, binding, root), `${kebab(factory)}.ts`);
  if (existsSync(stub)) throw new Error(`${relative(root, stub)} exists already; bind its handler as ${operationId} in ${binding.table}`);
  const depsModule = importPath(stub, join(sources, binding.deps.module.replace(/\.js$/, '.ts')));
  writeFileSync(
    stub,
    `/**
 * ${operationId}: ${operation.method.toUpperCase()} ${operation.path}. ${operation.summary}.
 *
 * Written by \`npm run scaffold:handler\`. Until it is filled in it answers the operation's first
 * success example from the contract. The request and the answer are typed by the contract:
 * \`req.params\` holds the path parameters, \`req.body\` the request body, and \`res.json\` takes the
 * body of the ${operation.successStatus} answer. Refusals are ServiceErrors with a catalog code
 * (@gateway-minds/service-kit).
 */
import { specExample, type ContractRequest, type ContractResponse } from '@gateway-minds/service-kit';
import type { ${binding.deps.type} } from '${depsModule}';

export function ${factory}(_deps: ${binding.deps.type}) {
  return async function ${operationId}(_req: ContractRequest<'${operationId}'>, res: ContractResponse<'${operationId}'>): Promise<void> {
    const { status, body } = specExample('${operationId}');
    res.status(status).json(body);
  };
}
`,
  );

  let table = readFileSync(tableFile, 'utf8');
  const at = table.indexOf(marker);
  if (at < 0) throw new Error(`${binding.table} has lost its marker line (${marker})`);
  const lineStart = table.lastIndexOf('\n', at) + 1;
  const indent = table.slice(lineStart, at);
  table = `${table.slice(0, lineStart)}${indent}${operationId}: ${factory}(${binding.depsExpression}),\n${table.slice(lineStart)}`;
  const imports = [...table.matchAll(/^import [^;]+;$/gms)];
  const lastImport = imports.at(-1)!;
  const end = lastImport.index + lastImport[0].length;
  table = `${table.slice(0, end)}\nimport { ${factory} } from '${importPath(tableFile, stub)}';${table.slice(end)}`;
  writeFileSync(tableFile, table);
  return { stub, table: tableFile, factory };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [operationId] = process.argv.slice(2);
  if (!operationId) {
    console.error('usage: npm run scaffold:handler -- <operationId>');
    process.exit(2);
  }
  const built = await runTurbo(['build'], ['@gateway-minds/contract']).done;
  if (!built.ok) {
    console.error('the contract does not build from spec/:');
    for (const line of errorLines(built.output)) console.error(line);
    process.exit(1);
  }
  try {
    const result = scaffoldHandler(await import('@gateway-minds/contract'), operationId);
    console.log(`wrote ${relative(repoRoot, result.stub)}: ${operationId} answers its spec example until you fill it in`);
    console.log(`bound it in ${relative(repoRoot, result.table)} as ${operationId}: ${result.factory}(…)`);
    console.log(`${basename(result.stub)} is typed by the contract; \`npm run dev\` restarts the stack once it builds`);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
}
