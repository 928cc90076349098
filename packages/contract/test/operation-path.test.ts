import { expect, it } from 'vitest';
import { operationPath, operationTable } from '../src/index.js';

it("fills an operation's path parameters, percent-encoded, and refuses a missing one", () => {
  expect(operationPath('gateway_getStatus')).toBe(operationTable.gateway_getStatus.path);
  const template = operationTable.minds_getMind.path;
  expect(template).toContain('{mind_id}');
  expect(operationPath('minds_getMind', { mind_id: 'a b/c' })).toBe(template.replace('{mind_id}', 'a%20b%2Fc'));
  expect(() => operationPath('minds_getMind')).toThrow(/mind_id/);
});

it('appends the query parameters the operation declares, and refuses a name it does not', () => {
  const [mind] = operationTable.minds_searchMemory.parameters.filter((p) => p.in === 'query' && p.required);
  expect(mind).toBeDefined();
  expect(operationPath('minds_searchMemory', { [mind!.name]: 'a&b' })).toBe(`${operationTable.minds_searchMemory.path}?${mind!.name}=a%26b`);
  expect(() => operationPath('minds_searchMemory', { mind_id: 'x' })).toThrow(/mind_id is not one of its path or query parameters/);
  expect(() => operationPath('gateway_getStatus', { anything: 'x' })).toThrow(/anything/);
});
