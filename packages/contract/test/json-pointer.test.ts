import { describe, expect, it } from 'vitest';
import { atPointer, escapeSegment, followRefs, followRefsFrom, inlineRefs, lookupRef, pointerOf, pointerSegments, uriFragmentOf } from '../src/index.js';

// RFC 6901 §5's example document, and its §5 (plain) and §6 (URI fragment) pointers.
const rfc = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'c%d': 2, 'e^f': 3, 'g|h': 4, 'i\\j': 5, 'k"l': 6, ' ': 7, 'm~n': 8 };

describe('JSON pointers (RFC 6901)', () => {
  it.each([
    ['', rfc],
    ['/foo', ['bar', 'baz']],
    ['/foo/0', 'bar'],
    ['/', 0],
    ['/a~1b', 1],
    ['/c%d', 2],
    ['/e^f', 3],
    ['/g|h', 4],
    ['/i\\j', 5],
    ['/k"l', 6],
    ['/ ', 7],
    ['/m~0n', 8],
  ])('the plain form %j', (pointer, value) => {
    expect(atPointer(rfc, pointer)).toEqual(value);
  });

  it.each([
    ['#', rfc],
    ['#/foo', ['bar', 'baz']],
    ['#/foo/0', 'bar'],
    ['#/', 0],
    ['#/a~1b', 1],
    ['#/c%25d', 2],
    ['#/e%5Ef', 3],
    ['#/g%7Ch', 4],
    ['#/i%5Cj', 5],
    ['#/k%22l', 6],
    ['#/%20', 7],
    ['#/m~0n', 8],
  ])('the URI fragment form %j, percent-decoded', (pointer, value) => {
    expect(atPointer(rfc, pointer)).toEqual(value);
  });

  it('undoes ~1 before ~0, so ~01 is the key ~1', () => {
    expect(pointerSegments('/~01/~10')).toEqual(['~1', '/0']);
  });

  it('writes a pointer back with the escapes, the inverse of reading one', () => {
    const segments = ['paths', '/minds/{mind_id}', 'a~b', ''];
    expect(pointerOf(segments)).toBe('/paths/~1minds~1{mind_id}/a~0b/');
    expect(pointerSegments(pointerOf(segments))).toEqual(segments);
    expect(escapeSegment('application/json')).toBe('application~1json');
  });

  it('writes the URI-fragment form a $ref uses, escaped then percent-encoded, which reads back to the same tokens (RFC 6901 §6)', () => {
    const tokens = ['paths', '/v1/minds/{mind_id}', 'a~b', '100%', 'é'];
    expect(uriFragmentOf(tokens)).toBe('#/paths/~1v1~1minds~1%7Bmind_id%7D/a~0b/100%25/%C3%A9');
    expect(pointerSegments(uriFragmentOf(tokens))).toEqual(tokens);
    expect(uriFragmentOf([])).toBe('#');
  });

  it('names nothing where the document has nothing, and never an inherited member', () => {
    expect(atPointer(rfc, '/missing/deeper')).toBeUndefined();
    expect(atPointer(rfc, '/foo/7')).toBeUndefined();
    expect(atPointer({}, '/constructor')).toBeUndefined();
    expect(() => pointerSegments('foo')).toThrow(/not a JSON pointer/);
  });
});

describe('$ref resolution', () => {
  const document = {
    components: {
      schemas: { 'a/b': { type: 'string' }, Node: { type: 'object', properties: { child: { $ref: '#/components/schemas/Node' } } } },
      responses: { Ok: { $ref: '#/components/responses/Base' }, Base: { description: 'ok' } },
    },
  };

  it('finds an internal ref, escapes undone, and refuses an external or unresolved one', () => {
    expect(lookupRef(document, '#/components/schemas/a~1b')).toEqual({ type: 'string' });
    expect(() => lookupRef(document, 'other.yaml#/x')).toThrow(/only internal refs/);
    expect(() => lookupRef(document, '#/components/schemas/Gone')).toThrow(/unresolved ref #\/components\/schemas\/Gone/);
  });

  it('follows a chain of refs to the object it ends at', () => {
    expect(followRefs(document, { $ref: '#/components/responses/Ok' })).toEqual({ description: 'ok' });
    expect(followRefs(document, { description: 'inline' })).toEqual({ description: 'inline' });
  });

  it('says where a chain of refs ends, in reference tokens, or where it starts when there is none', () => {
    expect(followRefsFrom(document, ['paths', '/a', 'get', 'responses', '200'], { $ref: '#/components/responses/Ok' })).toEqual({
      segments: ['components', 'responses', 'Base'],
      node: { description: 'ok' },
    });
    expect(followRefsFrom(document, ['x'], { description: 'inline' })).toEqual({ segments: ['x'], node: { description: 'inline' } });
    expect(followRefsFrom(document, [], { $ref: '#/components/schemas/a~1b' }).segments).toEqual(['components', 'schemas', 'a/b']);
  });

  it('inlines refs in a copy, siblings winning, a cycle stopping at the ref that closes it', () => {
    const inlined = inlineRefs<Record<string, unknown>>(document, { $ref: '#/components/schemas/Node', description: 'mine' });
    expect(inlined).toEqual({ type: 'object', description: 'mine', properties: { child: {} } });
    expect(JSON.parse(JSON.stringify(inlined))).toEqual(inlined);
  });
});
