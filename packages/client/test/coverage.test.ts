/**
 * Every operation of the spec has a client method, and every method names an
 * operation of the spec. The spec side is read from the bundled document's
 * `paths`, not from the operation table the client is generated from.
 */
import { describe, expect, it } from 'vitest';
import { operationInputs, specOperations } from '../src/inputs.js';
import { createClient, factsOf, operationIds } from '../src/index.js';

const spec = specOperations();
const client = createClient({ baseUrl: 'http://127.0.0.1:9' });

describe('one client method per operation id', () => {
  it('no operation of the spec lacks a method', () => {
    const missing = [...spec.keys()].filter((id) => typeof (client as unknown as Record<string, unknown>)[id] !== 'function');
    expect(missing).toEqual([]);
  });

  it('no method names an operation the spec lacks', () => {
    const methods = Object.keys(client).filter((key) => /^[a-z]+_[a-zA-Z]+$/.test(key));
    expect(methods.filter((id) => !spec.has(id))).toEqual([]);
    expect(operationIds.filter((id) => !spec.has(id))).toEqual([]);
    expect(methods.sort()).toEqual([...spec.keys()].sort());
  });

  it("each method calls its operation's method and path", () => {
    for (const [id, { path, method }] of spec) {
      const facts = factsOf(id as never);
      expect([facts.method, facts.path]).toEqual([method, path]);
    }
  });

  it('paginated methods iterate, others do not', () => {
    const record = client as unknown as Record<string, { iterate?: unknown }>;
    for (const id of spec.keys()) {
      const paginated = operationInputs(id as never).fields.some((f) => f.in === 'query' && f.name === 'after');
      expect(typeof record[id]!.iterate === 'function', id).toBe(paginated);
    }
  });
});
