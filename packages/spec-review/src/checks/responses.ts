/**
 * Responses (response direction): statuses, media types, headers, prose and examples, the error
 * codes a response's examples list (this repository's catalog), and each body's and header's schema.
 */
import { escapeSegment } from '@gateway-minds/contract/json-pointer';
import { list, plural, quote, resolve, same, type Change, type Doc, type Json } from '../model.js';
import { emit, typingOf } from '../scope.js';
import type { Comparison, LocatedOperation } from '../compare.js';
import { examplesMessage, examplesOf } from './request-body.js';

function errorCodesOf(doc: Doc, response: Json): Set<string> {
  const codes = new Set<string>();
  for (const media of Object.values((response.content as Json | undefined) ?? {})) {
    for (const example of Object.values(((media as Json).examples as Json | undefined) ?? {})) {
      const code = ((resolve(doc, example)?.value as Json | undefined)?.error as Json | undefined)?.code;
      if (typeof code === 'string') codes.add(code);
    }
  }
  return codes;
}

const success = (status: string) => /^[23]/.test(status);

export function compareResponses(cmp: Comparison, b: LocatedOperation, h: LocatedOperation, out: Change[], uses: Set<string>): void {
  const bResponses = (b.operation.responses ?? {}) as Json;
  const hResponses = (h.operation.responses ?? {}) as Json;
  for (const status of Object.keys(bResponses)) {
    if (status in hResponses) continue;
    const pointer = `${b.pointer}/responses/${escapeSegment(status)}`;
    if (success(status)) emit(out, 'response-success-status-removed', `response ${status}`, 'removed: clients expecting it break', pointer, 'base');
    else emit(out, 'response-non-success-status-removed', `response ${status}`, 'no longer returned', pointer, 'base');
  }
  for (const status of Object.keys(hResponses)) {
    if (status in bResponses) continue;
    emit(out, success(status) ? 'response-success-status-added' : 'response-non-success-status-added', `response ${status}`, success(status) ? 'new success status' : 'new error status', `${h.pointer}/responses/${escapeSegment(status)}`);
  }
  for (const status of Object.keys(bResponses)) {
    if (!(status in hResponses)) continue;
    const at = `${h.pointer}/responses/${escapeSegment(status)}`;
    const baseAt = `${b.pointer}/responses/${escapeSegment(status)}`;
    const bResponse = resolve(cmp.base, bResponses[status]) ?? {};
    const hResponse = resolve(cmp.head, hResponses[status]) ?? {};
    if (!same(bResponse.description, hResponse.description)) emit(out, 'response-status-description-changed', `response ${status}`, `description changed: ${quote(hResponse.description)}`, `${at}/description`);
    const bContent = (bResponse.content ?? {}) as Json;
    const hContent = (hResponse.content ?? {}) as Json;
    for (const type of Object.keys(bContent)) {
      if (!(type in hContent)) {
        emit(out, 'response-media-type-removed', `response ${status}`, `media type \`${type}\` no longer returned`, `${baseAt}/content/${escapeSegment(type)}`, 'base');
        continue;
      }
      const before = (resolve(cmp.base, bContent[type]) ?? {}) as Json;
      const after = (resolve(cmp.head, hContent[type]) ?? {}) as Json;
      const mediaAt = `${at}/content/${escapeSegment(type)}`;
      const [bExamples, hExamples] = [examplesOf(cmp.base, before), examplesOf(cmp.head, after)];
      if (!same(bExamples, hExamples)) emit(out, 'response-body-example-changed', `response ${status}`, examplesMessage(bExamples, hExamples), mediaAt);
      cmp.schema(before.schema, after.schema, 'response', `response ${status} body`, out, uses, `${mediaAt}/schema`, `${baseAt}/content/${escapeSegment(type)}/schema`, typingOf(type));
    }
    for (const type of Object.keys(hContent)) if (!(type in bContent)) emit(out, 'response-media-type-added', `response ${status}`, `may now return media type \`${type}\``, `${at}/content/${escapeSegment(type)}`);

    const lower = (headers: unknown) => new Map(Object.entries((headers ?? {}) as Json).map(([k, v]) => [k.toLowerCase(), { name: k, header: v }]));
    const bh = lower(bResponse.headers);
    const hh = lower(hResponse.headers);
    for (const [key, { name, header }] of bh) {
      const now = hh.get(key);
      const where = `response ${status} header \`${name}\``;
      const before = resolve(cmp.base, header) ?? {};
      if (!now) {
        emit(out, before.required === true ? 'response-required-header-removed' : 'response-optional-header-removed', where, 'removed', `${baseAt}/headers/${escapeSegment(name)}`, 'base');
        continue;
      }
      const after = resolve(cmp.head, now.header) ?? {};
      const headerAt = `${at}/headers/${escapeSegment(now.name)}`;
      if (before.required === true && after.required !== true) emit(out, 'response-header-became-optional', where, 'no longer always sent', headerAt);
      if (!same(before.description, after.description)) emit(out, 'response-header-description-changed', where, `description changed: ${quote(after.description)}`, `${headerAt}/description`);
      // A header's value is text, but clients parse it by its schema (a number, a date): judged as a typed response value, as oasdiff does.
      cmp.schema(before.schema, after.schema, 'response', where, out, uses, `${headerAt}/schema`, `${baseAt}/headers/${escapeSegment(name)}/schema`, 'strong');
    }
    for (const [key, { name }] of hh) if (!bh.has(key)) emit(out, 'response-header-added', `response ${status} header \`${name}\``, 'added', `${at}/headers/${escapeSegment(name)}`);
    if (!success(status)) {
      const bCodes = errorCodesOf(cmp.base, bResponse);
      const hCodes = errorCodesOf(cmp.head, hResponse);
      const added = [...hCodes].filter((c) => !bCodes.has(c));
      const removed = [...bCodes].filter((c) => !hCodes.has(c));
      if (added.length) emit(out, 'response-error-code-added', `response ${status}`, `may now return ${plural(added.length, 'error code')} ${list(added)}`, at);
      if (removed.length) emit(out, 'response-error-code-removed', `response ${status}`, `no longer lists ${plural(removed.length, 'error code')} ${list(removed)}`, at);
    }
  }
}
