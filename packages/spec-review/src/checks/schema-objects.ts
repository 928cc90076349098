/**
 * Objects: properties added, removed, made required or optional; `additionalProperties` closed or
 * opened; `dependentRequired`. A readOnly property is the server's to write, so it puts no
 * obligation on a request; a writeOnly one likewise in a response.
 */
import { isObject, list, resolve, type Doc, type Json } from '../model.js';
import { keywordPointer, type SchemaScope } from '../scope.js';

export function schemaObjects(scope: SchemaScope): void {
  const { base: b, head: h } = scope;
  const request = scope.direction === 'request';
  const bProps = (isObject(b.properties) ? b.properties : {}) as Json;
  const hProps = (isObject(h.properties) ? h.properties : {}) as Json;
  const bRequired = new Set((Array.isArray(b.required) ? b.required : []) as string[]);
  const hRequired = new Set((Array.isArray(h.required) ? h.required : []) as string[]);
  const hClosed = h.additionalProperties === false || h.unevaluatedProperties === false;
  const notHere = (doc: Doc, s: unknown) => {
    const property = resolve(doc, s) ?? {};
    return request ? property.readOnly === true : property.writeOnly === true;
  };
  const at = (name: string) => ['properties', name];
  for (const name of Object.keys(bProps)) {
    if (name in hProps || notHere(scope.baseDoc, bProps[name])) continue;
    if (request) {
      if (hClosed) scope.addRemoved('property-removed-from-closed-object', `property \`${name}\` removed: the object is closed, so a client still sending it is refused`, at(name));
      else scope.addRemoved('property-removed', `property \`${name}\` removed: a client still sending it may be refused`, at(name));
    } else scope.addRemoved(bRequired.has(name) ? 'required-property-removed' : 'optional-property-removed', `response property \`${name}\` removed`, at(name));
  }
  for (const name of Object.keys(hProps)) {
    if (name in bProps) continue;
    if (request) {
      const obliged = hRequired.has(name) && !notHere(scope.headDoc, hProps[name]);
      scope.add(obliged ? 'new-required-property' : 'new-optional-property', obliged ? `new required property \`${name}\`` : `new optional property \`${name}\``, at(name));
    } else if (!notHere(scope.headDoc, hProps[name])) scope.add('property-added', `new response property \`${name}\``, at(name));
  }
  for (const name of Object.keys(bProps)) {
    if (!(name in hProps)) continue;
    const exempt = notHere(scope.headDoc, hProps[name]);
    if (!bRequired.has(name) && hRequired.has(name) && !exempt) scope.add('property-became-required', `property \`${name}\` is now required`, at(name));
    if (bRequired.has(name) && !hRequired.has(name) && !exempt) scope.add('property-became-optional', request ? `property \`${name}\` is now optional` : `property \`${name}\` is no longer always present`, at(name));
    if (!exempt) {
      const typing = scope.typing === 'weak' ? 'uncertain' : scope.typing;
      scope.compare(bProps[name], hProps[name], `${scope.where}.${name}`, keywordPointer(scope.pointer, at(name)), keywordPointer(scope.basePointer, at(name)), typing);
    }
  }
  const bOpen = b.additionalProperties === undefined || b.additionalProperties === true;
  const hOpen = h.additionalProperties === undefined || h.additionalProperties === true;
  const objectish = (s: Json) => s.type === 'object' || isObject(s.properties);
  if (objectish(b) || objectish(h)) {
    if (bOpen && h.additionalProperties === false) scope.add('additional-properties-closed', 'additionalProperties closed: unknown properties are now refused', 'additionalProperties');
    if (b.additionalProperties === false && hOpen) scope.add('additional-properties-opened', 'additionalProperties opened: other properties may appear');
  }
  if (isObject(b.additionalProperties) && isObject(h.additionalProperties)) {
    scope.compare(b.additionalProperties, h.additionalProperties, `${scope.where}.*`, keywordPointer(scope.pointer, 'additionalProperties'), keywordPointer(scope.basePointer, 'additionalProperties'));
  }
  const bDependent = (isObject(b.dependentRequired) ? b.dependentRequired : {}) as Record<string, string[]>;
  const hDependent = (isObject(h.dependentRequired) ? h.dependentRequired : {}) as Record<string, string[]>;
  for (const trigger of new Set([...Object.keys(bDependent), ...Object.keys(hDependent)])) {
    const before = bDependent[trigger] ?? [];
    const after = hDependent[trigger] ?? [];
    const added = after.filter((n) => !before.includes(n));
    const removed = before.filter((n) => !after.includes(n));
    if (added.length) scope.add('dependent-required-added', `with \`${trigger}\`, now also requires ${list(added)}`, 'dependentRequired');
    if (removed.length) scope.add('dependent-required-removed', `with \`${trigger}\`, no longer requires ${list(removed)}`, 'dependentRequired');
  }
}

export const objectKeywords = ['properties', 'required', 'additionalProperties', 'dependentRequired'];
