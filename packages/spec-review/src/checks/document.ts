/**
 * The document as a whole: `info` (its version and prose), servers, the tag list, other top-level
 * fields, component schemas (a schema's name is a type name in every generated client, so a removed
 * or renamed one is reported even when the wire is unchanged), and webhooks removed or added.
 */
import { escapeSegment } from '@gateway-minds/contract/json-pointer';
import { isObject, quote, same, show, type Change, type Doc, type Json } from '../model.js';
import { emit } from '../scope.js';

export function compareDocument(base: Doc, head: Doc, out: Change[]): void {
  const bInfo = (base.info ?? {}) as Json;
  const hInfo = (head.info ?? {}) as Json;
  if (bInfo.version !== hInfo.version) emit(out, 'api-version-changed', 'info.version', `${show(bInfo.version)} → ${show(hInfo.version)}`, '/info/version');
  for (const field of new Set([...Object.keys(bInfo), ...Object.keys(hInfo)])) {
    if (field === 'version' || same(bInfo[field], hInfo[field])) continue;
    emit(out, 'api-info-changed', `info.${field}`, typeof hInfo[field] === 'string' ? `changed: ${quote(hInfo[field])}` : hInfo[field] === undefined ? 'removed' : 'changed', hInfo[field] === undefined ? '/info' : `/info/${escapeSegment(field)}`);
  }
  if (!same(base.servers, head.servers)) emit(out, 'api-servers-changed', 'servers', 'changed', head.servers === undefined ? '' : '/servers');
  const tagsOf = (doc: Doc) => new Map(((doc.tags ?? []) as Json[]).map((t, i) => [String(t.name), { tag: t, index: i }]));
  const bTags = tagsOf(base);
  const hTags = tagsOf(head);
  for (const [name, { index }] of bTags) if (!hTags.has(name)) emit(out, 'api-tags-changed', `tag \`${name}\``, 'removed', `/tags/${index}`, 'base');
  for (const [name, { tag, index }] of hTags) {
    const before = bTags.get(name);
    if (!before) emit(out, 'api-tags-changed', `tag \`${name}\``, 'added', `/tags/${index}`);
    else if (!same(before.tag, tag)) emit(out, 'api-tags-changed', `tag \`${name}\``, `description changed: ${quote(tag.description)}`, `/tags/${index}`);
  }
  const examined = new Set(['openapi', 'info', 'servers', 'tags', 'paths', 'components', 'webhooks', 'security', 'jsonSchemaDialect']);
  for (const field of new Set([...Object.keys(base), ...Object.keys(head)])) {
    if (examined.has(field) || same(base[field], head[field])) continue;
    emit(out, 'api-document-changed', field, head[field] === undefined ? 'removed' : 'changed', head[field] === undefined ? '' : `/${escapeSegment(field)}`);
  }
  if (base.openapi !== head.openapi) emit(out, 'api-document-changed', 'openapi', `${show(base.openapi)} → ${show(head.openapi)}`, '/openapi');

  const bSchemas = (base.components?.schemas ?? {}) as Json;
  const hSchemas = (head.components?.schemas ?? {}) as Json;
  const addedSchemas = Object.keys(hSchemas).filter((name) => !(name in bSchemas));
  for (const name of Object.keys(bSchemas)) {
    if (name in hSchemas) continue;
    const shape = JSON.stringify(bSchemas[name]);
    const renamedTo = addedSchemas.find((other) => JSON.stringify(hSchemas[other]) === shape);
    const message = renamedTo ? `renamed to \`${renamedTo}\`, the same shape: generated types named \`${name}\` are gone` : `removed: generated types named \`${name}\` are gone`;
    emit(out, 'api-schema-removed', `schema \`${name}\``, message, `/components/schemas/${escapeSegment(name)}`, 'base');
  }
  for (const name of addedSchemas) emit(out, 'api-schema-added', `schema \`${name}\``, 'added', `/components/schemas/${escapeSegment(name)}`);

  const bHooks = (isObject(base.webhooks) ? base.webhooks : {}) as Json;
  const hHooks = (isObject(head.webhooks) ? head.webhooks : {}) as Json;
  for (const name of Object.keys(bHooks)) if (!(name in hHooks)) emit(out, 'webhook-removed', `webhook \`${name}\``, 'removed', `/webhooks/${escapeSegment(name)}`, 'base');
  for (const name of Object.keys(hHooks)) if (!(name in bHooks)) emit(out, 'webhook-added', `webhook \`${name}\``, 'added', `/webhooks/${escapeSegment(name)}`);
}
