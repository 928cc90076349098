/**
 * The comparison package on this repository's real bundled contract:
 * identity, a removed operation, catalog changes, a narrowed real parameter.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorCodes, operationIds, operationTable } from '@gateway-minds/contract';
import { compareSpecs, renderMarkdown, type Review } from '@gateway-minds/spec-review';
import { describe, expect, it } from 'vitest';

// `any`: the tests mutate the bundled document freely.
type Doc = Record<string, any>;

function lines(review: Review): string[] {
  return review.breaking.map((b) => `${b.operations.join(',')} | ${b.where}: ${b.message}`);
}

describe('the real contract', () => {
  const bundled = JSON.parse(readFileSync(fileURLToPath(import.meta.resolve('@gateway-minds/contract/openapi.json')), 'utf8')) as Doc;
  const copy = (change: (doc: Doc) => void) => {
    const doc = structuredClone(bundled);
    change(doc);
    return doc;
  };

  it('compared with itself has no changes', () => {
    const review = compareSpecs(bundled, structuredClone(bundled));
    expect(review).toEqual({ added: [], removed: [], changed: [], sharedSchemas: [], document: [], removals: [], breaking: [] });
  });

  it('reports a removed operation as breaking', () => {
    const id = operationIds[operationIds.length - 1]!;
    const facts = operationTable[id];
    const review = compareSpecs(bundled, copy((d) => delete d.paths[facts.path][facts.method]));
    expect(review.removed.map((o) => o.operationId)).toEqual([id]);
    expect(lines(review)).toEqual([`${id} | \`${facts.method.toUpperCase()} ${facts.path}\`: operation removed without being deprecated first`]);
    const markdown = renderMarkdown(review, { base: 'main', head: 'working tree', lint: { errors: 0, warnings: 0, problems: [] }, acknowledged: false, acknowledgeHint: 'Add the label.' });
    expect(markdown).toContain('❌ **1 breaking change, not acknowledged.** Add the label.');
    expect(markdown).toContain(`### Operations removed\n\n- 🔴 **breaking** \`${id}\``);
  });

  it('reports a catalog code whose status changes as breaking, and a new code as not', () => {
    const code = errorCodes[0]!;
    const entryOf = (d: Doc) => d.components.schemas.ErrorCode.oneOf.find((e: Doc) => e.const === code);
    const moved = compareSpecs(bundled, copy((d) => (entryOf(d)['x-status'] = 418)));
    expect(moved.breaking.map((b) => `${b.where}: ${b.message}`)).toEqual([`error code \`${code}\`: status changed \`${entryOf(bundled)['x-status']}\` → \`418\``]);
    const added = compareSpecs(bundled, copy((d) => d.components.schemas.ErrorCode.oneOf.push({ const: 'BRAND_NEW', 'x-status': 400 })));
    expect(added.breaking).toEqual([]);
    expect(added.changed).toEqual([]);
  });

  it('reports a narrowed request limit of a real operation on that operation', () => {
    const id = operationIds.find((i) => operationTable[i].parameters.some((p) => p.in === 'query' && !p.required))!;
    const facts = operationTable[id];
    const name = facts.parameters.find((p) => p.in === 'query' && !p.required)!.name;
    const review = compareSpecs(
      bundled,
      copy((d) => {
        const operation = d.paths[facts.path][facts.method];
        operation.parameters = [...(operation.parameters ?? []), { name: `${name}_required_now`, in: 'query', required: true, schema: { type: 'string' } }];
      }),
    );
    expect(lines(review)).toEqual([`${id} | query parameter \`${name}_required_now\`: new required parameter`]);
  });
});
