/**
 * What every check family works with: `emit` (the level comes from the registry) and, for schema
 * checks, a `SchemaScope`: the two schemas, the direction, where they sit in both documents, and
 * whether the wire is typed (JSON) or text (parameters, headers, XML or form bodies).
 */
import { checkOf } from './registry.js';
import { escapeSegment } from '@gateway-minds/contract/json-pointer';
import { type Change, type Direction, type Doc, type Json } from './model.js';

export function emit(out: Change[], id: string, where: string, message: string, pointer: string, side: 'base' | 'head' = 'head'): void {
  out.push({ id, severity: checkOf(id).level, where, message, pointer, ...(side === 'base' ? { side } : {}) });
}

/**
 * How values travel: `strong` in JSON bodies (1 is not "1"); `weak` in parameters, headers and
 * text media types (every value is a string, so any type may become `string`); `uncertain` for the
 * properties of an object parameter (JSON or `key[prop]=` serialization: a client's choice).
 */
export type Typing = 'strong' | 'weak' | 'uncertain';

/** JSON is typed on the wire (1 is not "1"); any other media type (XML, forms, text) carries text. */
export function typingOf(mediaType: string): Typing {
  const type = mediaType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json') || type === '*/*' ? 'strong' : 'weak';
}

export interface SchemaScope {
  base: Json;
  head: Json;
  baseDoc: Doc;
  headDoc: Doc;
  direction: Direction;
  /** `request body .name`; empty for a shared schema's root. */
  where: string;
  /** Where the head schema sits in the head document, and the base schema in the base one. */
  pointer: string;
  basePointer: string;
  typing: Typing;
  out: Change[];
  /** `<direction>-<check>`, at the head schema or one of its keywords. */
  add(check: string, message: string, keyword?: string | string[]): void;
  /** Something that is gone: pointed at in the base document. */
  addRemoved(check: string, message: string, keyword: string | string[]): void;
  /** Compares two subschemas in the same direction. */
  compare(b: unknown, h: unknown, where: string, pointer: string, basePointer: string, typing?: Typing): void;
}

/** `pointer` extended by raw segments (escaped here). */
export function keywordPointer(pointer: string, keyword: string | string[]): string {
  return [pointer, ...(Array.isArray(keyword) ? keyword : [keyword]).map(escapeSegment)].join('/');
}
