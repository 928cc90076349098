import { expect, it } from 'vitest';
import { operationPath, operationTable } from '../src/index.js';

it("fills an operation's path parameters, percent-encoded, and refuses a missing one", () => {
  expect(operationPath('gateway_getStatus')).toBe(operationTable.gateway_getStatus.path);
  const template = operationTable.minds_getMind.path;
  expect(template).toContain('{mind_id}');
  expect(operationPath('minds_getMind', { mind_id: 'a b/c' })).toBe(template.replace('{mind_id}', 'a%20b%2Fc'));
  expect(() => operationPath('minds_getMind')).toThrow(/mind_id/);
});
