/**
 * `npm run scaffold:handler` writes a new operation's handler where handlers live and binds it in
 * its service's table (DESIGN.md, "The author's loop"; issue: "a stub file typed with the
 * operation's request and response, placed where handlers live"). It runs here on a copy of the
 * services' sources, with the built contract plus one operation the spec does not have yet.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as builtContract from '@gateway-minds/contract';
import type { OperationFacts } from '@gateway-minds/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/paths.js';
import { scaffoldHandler } from '../src/scaffold-handler.js';

const newOperation: OperationFacts = {
  ...builtContract.operationTable.minds_getMind,
  operationId: 'minds_getMindCapacity',
  path: '/v1/minds/services/{mind_id}/capacity',
  summary: 'Read the capacity a Mind runs with',
};
const operationTable = { ...builtContract.operationTable, minds_getMindCapacity: newOperation };
const contract = {
  ...builtContract,
  operationTable,
  operationIds: Object.keys(operationTable),
  isOperationId: (value: unknown): value is string => typeof value === 'string' && Object.hasOwn(operationTable, value),
} as unknown as typeof builtContract;

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'scaffold-'));
  for (const dir of ['apps/minds/src', 'apps/gateway/src']) cpSync(join(repoRoot, dir), join(root, dir), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('npm run scaffold:handler', () => {
  it("writes a stub typed by the contract beside the handlers of the operation's tag, and binds it in the table", () => {
    const result = scaffoldHandler(contract, 'minds_getMindCapacity', root);
    // minds_getMind, of the same tag (Minds), is bound in apps/minds/src/minds/lifecycle.ts.
    expect(result.stub).toBe(join(root, 'apps/minds/src/minds/get-mind-capacity.ts'));
    const stub = readFileSync(result.stub, 'utf8');
    expect(stub).toContain("ContractRequest<'minds_getMindCapacity'>");
    expect(stub).toContain("ContractResponse<'minds_getMindCapacity'>");
    expect(stub).toContain("specExample('minds_getMindCapacity')");
    expect(stub).toContain("import type { Deps } from '../deps.js';");
    const table = readFileSync(join(root, 'apps/minds/src/service.ts'), 'utf8');
    expect(table).toContain("import { getMindCapacity } from './minds/get-mind-capacity.js';");
    // Bound inside the table the compiler checks, just above the marker line.
    expect(table).toMatch(/minds_getMindCapacity: getMindCapacity\(deps\),\n\s*\/\/ npm run scaffold:handler binds/);
  });

  it('refuses an operation that already has a handler, naming the file', () => {
    expect(() => scaffoldHandler(contract, 'minds_getMind', root)).toThrow(/minds_getMind already has a handler, in apps\/minds\/src\/minds\/lifecycle\.ts/);
  });

  it('suggests the operation meant when the id is misspelt, and writes nothing', () => {
    expect(() => scaffoldHandler(contract, 'minds_getMindCapacty', root)).toThrow(/did you mean minds_getMindCapacity\?/);
    expect(existsSync(join(root, 'apps/minds/src/minds/get-mind-capacity.ts'))).toBe(false);
  });

  it("binds a gateway route in the gateway's own table", () => {
    const gatewayOperation = { ...builtContract.operationTable.gateway_getStatus, operationId: 'gateway_getVersion', path: '/v1/version', summary: 'Read the version' };
    const withRoute = { ...operationTable, gateway_getVersion: gatewayOperation };
    const result = scaffoldHandler({ ...contract, operationTable: withRoute, isOperationId: (v: unknown): v is string => typeof v === 'string' && Object.hasOwn(withRoute, v) } as typeof builtContract, 'gateway_getVersion', root);
    expect(result.stub).toBe(join(root, 'apps/gateway/src/routes/get-version.ts'));
    expect(readFileSync(result.stub, 'utf8')).toContain("import type { GatewayRouteDeps } from './gateway-routes.js';");
    expect(readFileSync(join(root, 'apps/gateway/src/routes/gateway-routes.ts'), 'utf8')).toMatch(/gateway_getVersion: getVersion\(deps\),\n\s*\/\/ npm run scaffold:handler binds/);
  });
});
