/** The request body: added, removed, made required or optional, its media types, prose and examples, and each media type's schema. */
import { escapeSegment } from '@gateway-minds/contract/json-pointer';
import { quote, resolve, same, type Change, type Doc, type Json } from '../model.js';
import { emit, typingOf } from '../scope.js';
import type { Comparison, LocatedOperation } from '../compare.js';

export function compareRequestBody(cmp: Comparison, b: LocatedOperation, h: LocatedOperation, out: Change[], uses: Set<string>): void {
  const bBody = resolve(cmp.base, b.operation.requestBody);
  const hBody = resolve(cmp.head, h.operation.requestBody);
  const at = `${h.pointer}/requestBody`;
  const where = 'request body';
  if (!bBody && hBody) emit(out, hBody.required === true ? 'request-body-added-required' : 'request-body-added-optional', where, hBody.required === true ? 'a required body added' : 'an optional body added', at);
  else if (bBody && !hBody) emit(out, 'request-body-removed', where, 'removed: a client still sending one is refused', `${b.pointer}/requestBody`, 'base');
  if (!bBody || !hBody) return;
  if (bBody.required !== true && hBody.required === true) emit(out, 'request-body-became-required', where, 'is now required', `${at}/required`);
  if (bBody.required === true && hBody.required !== true) emit(out, 'request-body-became-optional', where, 'is now optional', at);
  if (!same(bBody.description, hBody.description)) emit(out, 'request-body-description-changed', where, `description changed: ${quote(hBody.description)}`, `${at}/description`);
  const bContent = (bBody.content ?? {}) as Json;
  const hContent = (hBody.content ?? {}) as Json;
  for (const type of Object.keys(bContent)) {
    if (!(type in hContent)) {
      emit(out, 'request-body-media-type-removed', where, `media type \`${type}\` no longer accepted`, `${b.pointer}/requestBody/content/${escapeSegment(type)}`, 'base');
      continue;
    }
    const before = (resolve(cmp.base, bContent[type]) ?? {}) as Json;
    const after = (resolve(cmp.head, hContent[type]) ?? {}) as Json;
    const mediaAt = `${at}/content/${escapeSegment(type)}`;
    const [bExamples, hExamples] = [examplesOf(cmp.base, before), examplesOf(cmp.head, after)];
    if (!same(bExamples, hExamples)) emit(out, 'request-body-example-changed', where, examplesMessage(bExamples, hExamples), mediaAt);
    cmp.schema(before.schema, after.schema, 'request', `request body${Object.keys(hContent).length > 1 ? ` (${type})` : ''}`, out, uses, `${mediaAt}/schema`, `${b.pointer}/requestBody/content/${escapeSegment(type)}/schema`, typingOf(type));
  }
  for (const type of Object.keys(hContent)) if (!(type in bContent)) emit(out, 'request-body-media-type-added', where, `media type \`${type}\` also accepted`, `${at}/content/${escapeSegment(type)}`);
}

/** A media type's `example` and its named `examples`, each `$ref` followed (a shared example edited in components is a change here). */
export function examplesOf(doc: Doc, media: Json): Json {
  const named = (media.examples ?? {}) as Json;
  return { example: media.example, examples: Object.fromEntries(Object.entries(named).map(([name, example]) => [name, resolve(doc, example) ?? example])) };
}

/** Which named examples were added, removed or changed. */
export function examplesMessage(before: Json, after: Json): string {
  const b = (before.examples ?? {}) as Json;
  const h = (after.examples ?? {}) as Json;
  const added = Object.keys(h).filter((k) => !(k in b));
  const removed = Object.keys(b).filter((k) => !(k in h));
  const changed = Object.keys(b).filter((k) => k in h && !same(b[k], h[k]));
  const parts = [
    ...(added.length ? [`added ${added.map((k) => `\`${k}\``).join(', ')}`] : []),
    ...(removed.length ? [`removed ${removed.map((k) => `\`${k}\``).join(', ')}`] : []),
    ...(changed.length ? [`changed ${changed.map((k) => `\`${k}\``).join(', ')}`] : []),
    ...(!same(before.example, after.example) ? ['example changed'] : []),
  ];
  return `examples: ${parts.join('; ') || 'changed'}`;
}
