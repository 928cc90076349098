/**
 * Every check the review can report, in one list: its id, default level, direction and a one-line
 * description, and the oasdiff check ids it follows. A check family (checks/*.ts) emits ids only;
 * the level comes from here, so an id that is not registered cannot be reported (`emit` throws).
 * The README's check table is generated from this list (`npm run readme --workspace
 * @gateway-minds/spec-review`; a test fails when it drifts).
 *
 * Default levels follow oasdiff's (ERR → breaking, WARN → warning, INFO → info). Where oasdiff has
 * no such check (this repository's extensions, the error catalog) the level is ours, and says why.
 */
import type { Severity } from './model.js';

export type CheckDirection = 'request' | 'response' | 'none';
export type CheckFamily =
  | 'schema-types'
  | 'schema-constraints'
  | 'schema-objects'
  | 'schema-composition'
  | 'schema-annotations'
  | 'operations'
  | 'lifecycle'
  | 'security'
  | 'parameters'
  | 'request-body'
  | 'responses'
  | 'document'
  | 'error-catalog'
  | 'extensions';

export interface CheckDefinition {
  id: string;
  level: Severity;
  direction: CheckDirection;
  family: CheckFamily;
  description: string;
  /** The oasdiff check ids this check follows (its corpus pairs are named after one of them). */
  follows: string[];
}

type Levels = { request?: Severity; response?: Severity };

/** A schema check, judged in both directions: `request-<check>` and `response-<check>` (a direction without a level is not emitted). */
function schema(family: CheckFamily, check: string, levels: Levels, description: string, follows: (direction: 'request' | 'response') => string[] = () => []): CheckDefinition[] {
  return (['request', 'response'] as const)
    .filter((direction) => levels[direction] !== undefined)
    .map((direction) => ({ id: `${direction}-${check}`, level: levels[direction]!, direction, family, description, follows: follows(direction) }));
}

/** oasdiff names a schema check three ways (in a parameter, a body, a property): `request-{parameter,body,property}-<check>`. */
const where = (check: string, places: ('parameter' | 'body' | 'property' | 'header')[] = ['body', 'property']) => (direction: 'request' | 'response') =>
  places.filter((p) => !(direction === 'response' && p === 'parameter')).filter((p) => !(direction === 'request' && p === 'header')).map((p) => `${direction}-${p}-${check}`);

function check(id: string, level: Severity, direction: CheckDirection, family: CheckFamily, description: string, follows: string[] = []): CheckDefinition {
  return { id, level, direction, family, description, follows };
}

const upperBounds = [
  ['max-length', 'maxLength'],
  ['maximum', 'maximum', 'max'],
  ['exclusive-maximum', 'exclusiveMaximum', 'exclusive-max'],
  ['max-items', 'maxItems'],
  ['max-properties', 'maxProperties'],
  ['max-contains', 'maxContains'],
  ['x-max-bytes', 'x-max-bytes (this repository: a UTF-8 byte limit)'],
] as const;
const lowerBounds = [
  ['min-length', 'minLength'],
  ['minimum', 'minimum', 'min'],
  ['exclusive-minimum', 'exclusiveMinimum', 'exclusive-min'],
  ['min-items', 'minItems'],
  ['min-properties', 'minProperties'],
  ['min-contains', 'minContains'],
  ['x-min-bytes', 'x-min-bytes (this repository)'],
] as const;

function bounds(): CheckDefinition[] {
  const out: CheckDefinition[] = [];
  const follows = (name: string, oasdiff: string | undefined, action: string) => where(`${oasdiff ?? name}-${action}`, ['parameter', 'body', 'property', 'header']);
  for (const [name, keyword, oasdiff] of upperBounds) {
    out.push(
      ...schema('schema-constraints', `${name}-decreased`, { request: 'breaking', response: 'info' }, `\`${keyword}\` lowered: a request accepts less`, follows(name, oasdiff, 'decreased')),
      ...schema('schema-constraints', `${name}-set`, { request: 'warning', response: 'info' }, `\`${keyword}\` added where there was none: likely an existing limit written down, so a warning`, follows(name, oasdiff, 'set')),
      ...schema('schema-constraints', `${name}-increased`, { request: 'info', response: 'breaking' }, `\`${keyword}\` raised: a response may exceed what clients were promised`, follows(name, oasdiff, 'increased')),
      ...schema('schema-constraints', `${name}-unset`, { request: 'info', response: 'breaking' }, `\`${keyword}\` removed: a response is no longer bounded`, follows(name, oasdiff, 'unset')),
    );
  }
  for (const [name, keyword, oasdiff] of lowerBounds) {
    out.push(
      ...schema('schema-constraints', `${name}-increased`, { request: 'breaking', response: 'info' }, `\`${keyword}\` raised: a request accepts less`, follows(name, oasdiff, 'increased')),
      ...schema('schema-constraints', `${name}-set`, { request: 'warning', response: 'info' }, `\`${keyword}\` added where there was none: likely an existing limit written down, so a warning`, follows(name, oasdiff, 'set')),
      ...schema('schema-constraints', `${name}-decreased`, { request: 'info', response: 'breaking' }, `\`${keyword}\` lowered: a response may go below what clients were promised`, follows(name, oasdiff, 'decreased')),
      ...schema('schema-constraints', `${name}-unset`, { request: 'info', response: 'breaking' }, `\`${keyword}\` removed: a response is no longer bounded below`, follows(name, oasdiff, 'unset')),
    );
  }
  return out;
}

const subschemaKeywords = [
  ['items', 'items'],
  ['contains', 'contains'],
  ['property-names', 'propertyNames'],
  ['if', 'if'],
  ['then', 'then'],
  ['else', 'else'],
  ['not', 'not'],
  ['content-schema', 'contentSchema'],
  ['unevaluated-items', 'unevaluatedItems'],
  ['unevaluated-properties', 'unevaluatedProperties'],
  ['pattern-properties', 'patternProperties', 'pattern-property'],
  ['dependent-schemas', 'dependentSchemas', 'dependent-schema'],
] as const;

function subschemas(): CheckDefinition[] {
  return subschemaKeywords.flatMap(([name, keyword, oasdiff]) => [
    ...schema('schema-composition', `${name}-added`, { request: 'breaking', response: 'info' }, `a \`${keyword}\` subschema appears: a request must now satisfy it`, where(`${oasdiff ?? name}-added`)),
    ...schema('schema-composition', `${name}-removed`, { request: 'info', response: 'breaking' }, `the \`${keyword}\` subschema goes: a response no longer promises it`, where(`${oasdiff ?? name}-removed`)),
  ]);
}

export const registry: readonly CheckDefinition[] = [
  // schema-types (checks/schema-types.ts)
  ...schema('schema-types', 'type-changed', { request: 'breaking', response: 'breaking' }, 'a type no longer accepted (request) or a new type returned (response)', (d) => [...where('type-changed', ['parameter', 'body', 'property'])(d), ...(d === 'request' ? ['request-parameter-property-type-specialized', 'request-body-list-of-types-narrowed', 'request-property-list-of-types-narrowed'] : ['response-header-type-changed', 'response-body-type-generalized', 'response-property-type-generalized', 'response-header-type-generalized', 'response-property-list-of-types-widened'])]),
  ...schema('schema-types', 'type-changed-uncertain', { request: 'warning' }, 'a property of an object parameter retyped: breaking only if the client serializes it as JSON', () => ['request-parameter-property-type-changed']),
  ...schema('schema-types', 'type-generalized', { request: 'info' }, 'a request accepts another type too', () => ['request-parameter-type-generalized', 'request-body-type-generalized', 'request-property-type-generalized']),
  ...schema('schema-types', 'type-specialized', { response: 'info' }, 'a response returns fewer types', () => ['response-body-type-specialized', 'response-property-type-specialized']),
  ...schema('schema-types', 'type-compatible', { request: 'info', response: 'info' }, 'a type swapped where the wire is text (a parameter, a header, XML): every value is still a string', (d) => where('type-compatible', ['body', 'property'])(d)),
  ...schema('schema-types', 'type-set', { request: 'breaking', response: 'info' }, 'a type restriction appears where any value was allowed'),
  ...schema('schema-types', 'type-unset', { request: 'info', response: 'breaking' }, 'a type restriction goes: any value may be returned'),
  ...schema('schema-types', 'became-nullable', { request: 'info', response: 'breaking' }, '`null` allowed (type `null`, `nullable: true`, or wrapped as `oneOf: [{type: null}, X]`)', (d) => (d === 'request' ? ['request-parameter-became-nullable', 'request-body-became-nullable', 'request-property-became-nullable'] : ['response-body-became-nullable', 'response-property-became-nullable', 'response-header-became-nullable'])),
  ...schema('schema-types', 'became-not-nullable', { request: 'breaking', response: 'info' }, '`null` no longer allowed', where('became-not-nullable', ['parameter', 'body', 'property'])),
  ...schema('schema-types', 'enum-value-removed', { request: 'breaking', response: 'info' }, 'an enum value no longer accepted / returned', (d) => (d === 'request' ? ['request-parameter-enum-value-removed', 'request-body-enum-value-removed', 'request-property-enum-value-removed'] : ['response-property-enum-value-removed', 'response-mediatype-enum-value-removed'])),
  ...schema('schema-types', 'enum-value-added', { request: 'info', response: 'warning' }, 'a new enum value: clients that switch exhaustively must handle it (response)', (d) => (d === 'request' ? ['request-parameter-enum-value-added', 'request-property-enum-value-added'] : ['response-property-enum-value-added'])),
  ...schema('schema-types', 'became-enum', { request: 'breaking', response: 'info' }, 'values newly limited to a list (`enum` or `const`)', (d) => (d === 'request' ? ['request-parameter-became-enum', 'request-body-became-enum', 'request-property-became-enum', 'request-body-const-added', 'request-property-const-added'] : [])),
  ...schema('schema-types', 'enum-removed', { request: 'info', response: 'breaking' }, 'values no longer limited to a list (a response may return anything)', (d) => (d === 'response' ? ['response-body-const-removed', 'response-property-const-removed'] : [])),
  ...schema('schema-types', 'const-changed', { request: 'breaking', response: 'breaking' }, 'a `const` changed', where('const-changed')),
  ...schema('schema-types', 'x-extensible-enum-value-removed', { request: 'breaking', response: 'info' }, 'a value of Zalando\'s `x-extensible-enum` removed', (d) => (d === 'request' ? ['request-parameter-x-extensible-enum-value-removed', 'request-property-x-extensible-enum-value-removed'] : [])),
  ...schema('schema-types', 'x-extensible-enum-value-added', { request: 'info', response: 'info' }, 'a value of `x-extensible-enum` added (extensible: clients already handle unknown ones)'),

  // schema-constraints (checks/schema-constraints.ts)
  ...bounds(),
  ...schema('schema-constraints', 'pattern-added', { request: 'breaking', response: 'info' }, 'a `pattern` set', where('pattern-added', ['parameter', 'property'])),
  ...schema('schema-constraints', 'pattern-changed', { request: 'warning', response: 'info' }, 'a `pattern` changed: it may or may not accept less, so a reviewer looks', where('pattern-changed', ['parameter', 'property'])),
  ...schema('schema-constraints', 'pattern-generalized', { request: 'info', response: 'info' }, 'a `pattern` widened to match everything (`.*`, empty)', where('pattern-generalized', ['parameter', 'property'])),
  ...schema('schema-constraints', 'pattern-removed', { request: 'info', response: 'info' }, 'a `pattern` dropped', where('pattern-removed', ['parameter', 'property'])),
  ...schema('schema-constraints', 'format-added', { request: 'breaking', response: 'info' }, 'a `format` set'),
  ...schema('schema-constraints', 'format-removed', { request: 'info', response: 'breaking' }, 'a `format` dropped: a response promises less'),
  ...schema('schema-constraints', 'format-changed', { request: 'breaking', response: 'breaking' }, 'a `format` changed to one that is not wider (request) or not narrower (response)', (d) => where('format-changed', ['parameter', 'body', 'property'])(d)),
  ...schema('schema-constraints', 'format-generalized', { request: 'info' }, 'a `format` widened (`int32` → `int64`, `date` → `date-time`)'),
  ...schema('schema-constraints', 'format-specialized', { response: 'info' }, 'a `format` narrowed in a response (`int64` → `int32`)'),
  ...schema('schema-constraints', 'multiple-of-added', { request: 'breaking', response: 'info' }, '`multipleOf` set'),
  ...schema('schema-constraints', 'multiple-of-removed', { request: 'info', response: 'breaking' }, '`multipleOf` dropped'),
  ...schema('schema-constraints', 'multiple-of-changed', { request: 'breaking', response: 'breaking' }, '`multipleOf` changed'),
  ...schema('schema-constraints', 'content-media-type-added', { request: 'breaking', response: 'info' }, '`contentMediaType` set', where('content-media-type-changed')),
  ...schema('schema-constraints', 'content-media-type-removed', { request: 'info', response: 'breaking' }, '`contentMediaType` dropped'),
  ...schema('schema-constraints', 'content-media-type-changed', { request: 'breaking', response: 'breaking' }, '`contentMediaType` changed', where('content-media-type-changed')),
  ...schema('schema-constraints', 'content-encoding-added', { request: 'breaking', response: 'info' }, '`contentEncoding` set', where('content-encoding-changed')),
  ...schema('schema-constraints', 'content-encoding-removed', { request: 'info', response: 'breaking' }, '`contentEncoding` dropped'),
  ...schema('schema-constraints', 'content-encoding-changed', { request: 'breaking', response: 'breaking' }, '`contentEncoding` changed', where('content-encoding-changed')),
  ...schema('schema-constraints', 'unique-items-set', { request: 'breaking', response: 'info' }, 'items must now be unique'),
  ...schema('schema-constraints', 'unique-items-unset', { request: 'info', response: 'breaking' }, 'items no longer unique'),
  ...schema('schema-constraints', 'default-value-added', { request: 'info', response: 'info' }, 'a schema `default` set (a parameter\'s has its own, breaking, check)', where('default-value-added')),
  ...schema('schema-constraints', 'default-value-changed', { request: 'info', response: 'info' }, 'a schema `default` changed', where('default-value-changed')),
  ...schema('schema-constraints', 'default-value-removed', { request: 'info', response: 'info' }, 'a schema `default` dropped', where('default-value-removed')),

  // schema-objects (checks/schema-objects.ts)
  ...schema('schema-objects', 'new-required-property', { request: 'breaking' }, 'a required property added to a request', () => ['new-required-request-property']),
  ...schema('schema-objects', 'new-optional-property', { request: 'info' }, 'an optional property added to a request', () => ['new-optional-request-property']),
  ...schema('schema-objects', 'property-added', { response: 'info' }, 'a property added to a response', () => ['response-optional-property-added', 'response-required-property-added']),
  ...schema('schema-objects', 'property-removed', { request: 'warning' }, 'a request property removed: a client still sending it may be refused', () => ['request-property-removed']),
  ...schema('schema-objects', 'property-removed-from-closed-object', { request: 'breaking' }, 'a property removed from a closed request object (`additionalProperties: false`): a client still sending it is refused (oasdiff has no such case: its request-property-removed is a warning)'),
  ...schema('schema-objects', 'required-property-removed', { response: 'breaking' }, 'a required response property removed', () => ['response-required-property-removed']),
  ...schema('schema-objects', 'optional-property-removed', { response: 'warning' }, 'an optional response property removed: clients reading it get nothing', () => ['response-optional-property-removed']),
  ...schema('schema-objects', 'property-became-required', { request: 'breaking', response: 'info' }, 'a property now required', (d) => [d === 'request' ? 'request-property-became-required' : 'response-property-became-required']),
  ...schema('schema-objects', 'property-became-optional', { request: 'info', response: 'breaking' }, 'a property no longer required (a response no longer always has it)', (d) => [d === 'request' ? 'request-property-became-optional' : 'response-property-became-optional']),
  ...schema('schema-objects', 'additional-properties-closed', { request: 'breaking', response: 'info' }, '`additionalProperties: false` set: unknown properties are refused'),
  ...schema('schema-objects', 'additional-properties-opened', { request: 'info', response: 'warning' }, '`additionalProperties: false` dropped: other properties may appear'),
  ...schema('schema-objects', 'dependent-required-added', { request: 'breaking', response: 'info' }, 'a property newly required when another is present (`dependentRequired`)', where('dependent-required-added')),
  ...schema('schema-objects', 'dependent-required-removed', { request: 'info', response: 'breaking' }, 'a `dependentRequired` requirement dropped', where('dependent-required-removed')),

  // schema-composition (checks/schema-composition.ts)
  ...subschemas(),
  ...schema('schema-composition', 'if-changed', { request: 'breaking', response: 'breaking' }, 'an `if` condition changed: it cannot be judged by parts'),
  ...schema('schema-composition', 'not-changed', { request: 'breaking', response: 'breaking' }, 'a `not` changed: it cannot be judged by parts'),
  ...schema('schema-composition', 'prefix-items-added', { request: 'info', response: 'breaking' }, 'a tuple (`prefixItems`) gained positions', where('prefix-items-added')),
  ...schema('schema-composition', 'prefix-items-removed', { request: 'breaking', response: 'info' }, 'a tuple (`prefixItems`) lost positions', where('prefix-items-removed')),
  ...schema('schema-composition', 'one-of-variant-removed', { request: 'breaking', response: 'info' }, 'a `oneOf` alternative removed', where('one-of-removed')),
  ...schema('schema-composition', 'one-of-variant-added', { request: 'info', response: 'breaking' }, 'a `oneOf` alternative added: clients must handle it', where('one-of-added')),
  ...schema('schema-composition', 'any-of-variant-removed', { request: 'breaking', response: 'info' }, 'an `anyOf` alternative removed', where('any-of-removed')),
  ...schema('schema-composition', 'any-of-variant-added', { request: 'info', response: 'info' }, 'an `anyOf` alternative added', where('any-of-added')),
  ...schema('schema-composition', 'one-of-added', { request: 'breaking', response: 'breaking' }, 'a schema wrapped in `oneOf` alternatives (not a nullable wrapping)', where('wrapped-in-one-of', ['body'])),
  ...schema('schema-composition', 'any-of-added', { request: 'breaking', response: 'breaking' }, 'a schema wrapped in `anyOf` alternatives (not a nullable wrapping)'),
  ...schema('schema-composition', 'all-of-added', { request: 'breaking', response: 'info' }, 'an `allOf` constraint added', where('all-of-added')),
  ...schema('schema-composition', 'all-of-removed', { request: 'warning', response: 'info' }, 'an `allOf` constraint dropped', where('all-of-removed')),

  // schema-annotations (checks/schema-annotations.ts): prose and examples, and a property's lifecycle
  ...schema('schema-annotations', 'description-changed', { request: 'info', response: 'info' }, 'a schema or property description reworded'),
  ...schema('schema-annotations', 'title-changed', { request: 'info', response: 'info' }, 'a schema title changed'),
  ...schema('schema-annotations', 'example-changed', { request: 'info', response: 'info' }, 'a schema `example` or `examples` changed'),
  ...schema('schema-annotations', 'property-deprecated', { request: 'info', response: 'info' }, 'a property marked `deprecated`', where('property-deprecated', ['property'])),
  ...schema('schema-annotations', 'property-reactivated', { request: 'info', response: 'info' }, 'a property no longer `deprecated`', where('property-reactivated', ['property'])),
  ...schema('schema-annotations', 'property-sunset-invalid', { request: 'breaking', response: 'breaking' }, 'a deprecated property\'s `x-sunset` is not a date', (d) => [`${d}-property-deprecated-sunset-invalid`]),
  ...schema('schema-annotations', 'property-stability-decreased', { request: 'breaking', response: 'breaking' }, 'a property\'s `x-stability-level` lowered', (d) => [`${d}-property-stability-decreased`]),
  ...schema('schema-annotations', 'read-only-changed', { request: 'info', response: 'info' }, '`readOnly` or `writeOnly` set or dropped', (d) => (d === 'request' ? ['request-optional-property-became-read-only', 'request-required-property-became-read-only'] : ['response-optional-property-became-write-only'])),
  ...schema('schema-annotations', 'schema-keyword-changed', { request: 'info', response: 'info' }, 'another keyword changed (a discriminator, `xml`, an `x-` extension): reported so that no change goes unseen'),

  // parameters (checks/parameters.ts)
  check('new-required-request-parameter', 'breaking', 'request', 'parameters', 'a required parameter added', ['new-required-request-parameter', 'new-required-request-default-parameter-to-existing-path']),
  check('new-optional-request-parameter', 'info', 'request', 'parameters', 'an optional parameter added', ['new-optional-request-parameter']),
  check('new-request-path-parameter', 'breaking', 'request', 'parameters', 'a path parameter declared that was not', ['new-request-path-parameter']),
  check('request-parameter-removed', 'warning', 'request', 'parameters', 'a parameter removed: a client still sending it may be refused', ['request-parameter-removed']),
  check('request-parameter-removed-before-sunset', 'breaking', 'request', 'parameters', 'a deprecated parameter removed before its `x-sunset` date', ['request-parameter-removed-before-sunset']),
  check('request-parameter-became-required', 'breaking', 'request', 'parameters', 'a parameter now required', ['request-parameter-became-required']),
  check('request-parameter-became-optional', 'info', 'request', 'parameters', 'a parameter now optional', ['request-parameter-became-optional']),
  check('request-parameter-default-value-added', 'breaking', 'request', 'parameters', 'a parameter default set: the server fills an omitted parameter differently', ['request-parameter-default-value-added']),
  check('request-parameter-default-value-changed', 'breaking', 'request', 'parameters', 'a parameter default changed', ['request-parameter-default-value-changed']),
  check('request-parameter-default-value-removed', 'breaking', 'request', 'parameters', 'a parameter default dropped', ['request-parameter-default-value-removed']),
  check('request-parameter-serialization-changed', 'warning', 'request', 'parameters', 'a parameter\'s `style`, `explode` or `content` changed: clients serialize it another way'),
  check('request-parameter-description-changed', 'info', 'request', 'parameters', 'a parameter description reworded'),
  check('request-parameter-example-changed', 'info', 'request', 'parameters', 'a parameter `example` or `examples` changed'),
  check('request-parameter-deprecated', 'info', 'request', 'parameters', 'a parameter marked `deprecated`', ['request-parameter-deprecated']),
  check('request-parameter-reactivated', 'info', 'request', 'parameters', 'a parameter no longer `deprecated`', ['request-parameter-reactivated']),
  check('request-parameter-sunset-deleted', 'breaking', 'request', 'parameters', 'a deprecated parameter\'s `x-sunset` removed', ['request-parameter-sunset-deleted']),
  check('request-parameter-sunset-invalid', 'breaking', 'request', 'parameters', 'a deprecated parameter\'s `x-sunset` is not a date', ['request-parameter-sunset-parse']),
  check('request-parameter-x-missing-code-changed', 'warning', 'request', 'extensions', 'this repository\'s `x-missing-code` (the error code when the parameter is missing) changed'),

  // request-body (checks/request-body.ts)
  check('request-body-added-required', 'breaking', 'request', 'request-body', 'a required request body added', ['request-body-added-required']),
  check('request-body-added-optional', 'info', 'request', 'request-body', 'an optional request body added', ['request-body-added-optional']),
  check('request-body-removed', 'breaking', 'request', 'request-body', 'the request body removed: a client still sending one is refused', ['request-body-removed']),
  check('request-body-became-required', 'breaking', 'request', 'request-body', 'the request body now required', ['request-body-became-required']),
  check('request-body-became-optional', 'info', 'request', 'request-body', 'the request body now optional', ['request-body-became-optional']),
  check('request-body-media-type-removed', 'breaking', 'request', 'request-body', 'a request media type no longer accepted', ['request-body-media-type-removed']),
  check('request-body-media-type-added', 'info', 'request', 'request-body', 'a request media type also accepted', ['request-body-media-type-added']),
  check('request-body-description-changed', 'info', 'request', 'request-body', 'the request body description reworded'),
  check('request-body-example-changed', 'info', 'request', 'request-body', 'a request example added, removed or changed'),

  // responses (checks/responses.ts)
  check('response-success-status-removed', 'breaking', 'response', 'responses', 'a 2xx/3xx status removed', ['response-success-status-removed']),
  check('response-non-success-status-removed', 'info', 'response', 'responses', 'an error status no longer returned', ['response-non-success-status-removed']),
  check('response-success-status-added', 'info', 'response', 'responses', 'a new success status', ['response-success-status-added']),
  check('response-non-success-status-added', 'info', 'response', 'responses', 'a new error status', ['response-non-success-status-added']),
  check('response-media-type-removed', 'breaking', 'response', 'responses', 'a response media type no longer returned', ['response-media-type-removed']),
  check('response-media-type-added', 'info', 'response', 'responses', 'a response media type added', ['response-media-type-added']),
  check('response-required-header-removed', 'breaking', 'response', 'responses', 'a required response header removed', ['required-response-header-removed']),
  check('response-optional-header-removed', 'warning', 'response', 'responses', 'an optional response header removed', ['optional-response-header-removed']),
  check('response-header-became-optional', 'breaking', 'response', 'responses', 'a response header no longer always sent', ['response-header-became-optional']),
  check('response-header-added', 'info', 'response', 'responses', 'a response header added', ['response-header-added']),
  check('response-header-description-changed', 'info', 'response', 'responses', 'a response header description reworded'),
  check('response-status-description-changed', 'info', 'response', 'responses', 'a response description reworded'),
  check('response-body-example-changed', 'info', 'response', 'responses', 'a response example added, removed or changed'),
  check('response-error-code-added', 'warning', 'response', 'error-catalog', 'an error code newly listed in a response\'s examples (`error.code`): clients may see it (this repository\'s catalog)'),
  check('response-error-code-removed', 'info', 'response', 'error-catalog', 'an error code no longer listed in a response\'s examples'),

  // operations (checks/operations.ts)
  check('endpoint-added', 'info', 'none', 'operations', 'an operation added', ['endpoint-added']),
  check('api-removed', 'breaking', 'none', 'operations', 'an operation removed without being deprecated first', ['api-removed-without-deprecation', 'api-path-removed-without-deprecation']),
  check('api-removed-with-deprecation', 'info', 'none', 'operations', 'a deprecated operation removed (after its `x-sunset`, if any)', ['api-removed-with-deprecation', 'api-path-removed-with-deprecation']),
  check('api-removed-before-sunset', 'breaking', 'none', 'operations', 'a deprecated operation removed before its `x-sunset` date', ['api-removed-before-sunset', 'api-path-removed-before-sunset']),
  check('api-removed-unstable', 'info', 'none', 'operations', 'an operation of `x-stability-level` draft or alpha removed'),
  check('api-operation-id-renamed', 'info', 'none', 'operations', 'the same method and path under another operationId (this repository re-levels it to breaking: ids name client methods, CLI commands and MCP tools)', ['api-operation-id-removed']),
  check('api-moved', 'breaking', 'none', 'operations', 'an operationId now on another method or path (renaming a path parameter is not a move)', ['api-path-removed-without-deprecation']),
  check('endpoint-deprecated', 'info', 'none', 'operations', 'an operation marked `deprecated`', ['endpoint-deprecated']),
  check('endpoint-reactivated', 'info', 'none', 'operations', 'an operation no longer `deprecated`', ['endpoint-reactivated']),
  check('api-summary-changed', 'info', 'none', 'operations', 'an operation summary reworded'),
  check('api-description-changed', 'info', 'none', 'operations', 'an operation description reworded'),
  check('api-tag-added', 'info', 'none', 'operations', 'an operation gained a tag', ['api-tag-added']),
  check('api-tag-removed', 'info', 'none', 'operations', 'an operation lost a tag', ['api-tag-removed']),
  check('api-operation-changed', 'info', 'none', 'operations', 'another field of an operation changed (externalDocs, callbacks, servers, an `x-` extension)'),

  // lifecycle (checks/lifecycle.ts)
  check('api-sunset-deleted', 'breaking', 'none', 'lifecycle', 'a deprecated operation\'s `x-sunset` removed', ['sunset-deleted']),
  check('api-sunset-invalid', 'breaking', 'none', 'lifecycle', 'an operation\'s `x-sunset` is not a date', ['api-path-sunset-parse', 'api-deprecated-sunset-parse']),
  check('api-sunset-changed', 'info', 'none', 'lifecycle', 'an operation\'s `x-sunset` date moved'),
  check('api-stability-decreased', 'breaking', 'none', 'lifecycle', 'an operation\'s `x-stability-level` lowered (stable > beta > alpha > draft)', ['api-stability-decreased']),
  check('api-stability-invalid', 'breaking', 'none', 'lifecycle', 'an operation\'s `x-stability-level` is not draft, alpha, beta or stable', ['api-invalid-stability-level']),

  // security (checks/security.ts): oasdiff levels every security change info; this repository re-levels the narrowing ones
  check('api-security-added', 'info', 'none', 'security', 'an open operation now needs a credential', ['api-security-added', 'api-global-security-added']),
  check('api-security-removed', 'info', 'none', 'security', 'an operation no longer needs a credential', ['api-security-removed', 'api-global-security-removed']),
  check('api-security-scheme-removed', 'info', 'none', 'security', 'an operation no longer accepts a kind of credential', ['api-security-removed']),
  check('api-security-scheme-added', 'info', 'none', 'security', 'an operation also accepts a kind of credential', ['api-security-added']),
  check('api-security-scope-added', 'info', 'none', 'security', 'a credential needs a new scope', ['api-security-scope-added', 'api-global-security-scope-added']),
  check('api-security-scope-removed', 'info', 'none', 'security', 'a credential no longer needs a scope', ['api-security-scope-removed']),
  check('api-security-component-removed', 'info', 'none', 'security', 'a security scheme removed from components', ['api-security-component-removed']),
  check('api-security-component-added', 'info', 'none', 'security', 'a security scheme added to components', ['api-security-component-added']),
  check('api-security-component-changed', 'info', 'none', 'security', 'a security scheme changed (type, scheme, in, name, bearerFormat, flows)', ['api-security-component-type-changed', 'api-security-component-oauth-url-changed']),

  // extensions (checks/extensions.ts): this repository's operation extensions
  ...(['x-sandbox-selection', 'x-original-session', 'x-admission-setting'] as const).flatMap((x) => [
    check(`api-${x}-added`, 'breaking', 'none', 'extensions', `\`${x}\` set: a new condition on callers`),
    check(`api-${x}-removed`, 'info', 'none', 'extensions', `\`${x}\` dropped: one condition fewer`),
    check(`api-${x}-changed`, 'warning', 'none', 'extensions', `\`${x}\` changed`),
  ]),
  check('api-x-dpop-htm-changed', 'breaking', 'none', 'extensions', '`x-dpop-htm` changed: DPoP proofs must name another method'),
  check('api-x-dpop-htm-added', 'info', 'none', 'extensions', '`x-dpop-htm` set'),
  check('api-x-credential-refusal-changed', 'warning', 'none', 'extensions', '`x-credential-refusal` changed: which credentials are refused, and how'),
  check('api-x-read-only-removed', 'warning', 'none', 'extensions', '`x-read-only: true` dropped: the operation may now change state'),
  check('api-x-read-only-changed', 'info', 'none', 'extensions', '`x-read-only` set or changed'),
  check('api-x-automatic-retry-changed', 'info', 'none', 'extensions', '`x-automatic-retry` changed'),

  // document (checks/document.ts)
  check('api-version-changed', 'info', 'none', 'document', '`info.version` changed'),
  check('api-info-changed', 'info', 'none', 'document', 'another `info` field changed (title, description, contact, license, terms)'),
  check('api-servers-changed', 'info', 'none', 'document', '`servers` changed'),
  check('api-tags-changed', 'info', 'none', 'document', 'the document\'s tag list changed (a tag added, removed or described anew)'),
  check('api-document-changed', 'info', 'none', 'document', 'another top-level field changed (externalDocs, an `x-` extension)'),
  check('api-schema-removed', 'info', 'none', 'document', 'a component schema removed, or renamed with the same shape (this repository re-levels it to breaking: the name is a generated type)', ['api-schema-removed']),
  check('api-schema-added', 'info', 'none', 'document', 'a component schema added'),
  check('webhook-removed', 'breaking', 'none', 'document', 'an OpenAPI 3.1 webhook removed', ['webhook-removed']),
  check('webhook-added', 'info', 'none', 'document', 'an OpenAPI 3.1 webhook added', ['webhook-added']),

  // error-catalog (checks/error-catalog.ts): this repository's catalog, `components.schemas.ErrorCode`
  check('api-error-code-added', 'info', 'none', 'error-catalog', 'a code added to the error catalog'),
  check('api-error-code-removed', 'info', 'none', 'error-catalog', 'a code no longer emitted'),
  check('api-error-code-status-changed', 'breaking', 'none', 'error-catalog', 'a code\'s HTTP status or problem type changed: clients match on (status, code)'),
  check('api-error-code-fields-changed', 'warning', 'none', 'error-catalog', 'a code\'s listed fields or `Retry-After` changed'),
  check('api-error-code-changed', 'info', 'none', 'error-catalog', 'another fact of a code changed (its title, its meaning)'),
  check('api-error-reason-removed', 'warning', 'none', 'error-catalog', 'a `reason` no longer sent with a code: a client branch on it goes dead'),
  check('api-error-reason-added', 'info', 'none', 'error-catalog', 'a new `reason` for a code'),
  check('api-error-reason-changed', 'info', 'none', 'error-catalog', 'a `reason`\'s meaning reworded'),
];

const byId = new Map(registry.map((c) => [c.id, c]));
if (byId.size !== registry.length) throw new Error(`spec-review registry: registered twice: ${registry.map((c) => c.id).filter((id, i, all) => all.indexOf(id) !== i).join(', ')}`);

/** The registered check, or an error: a check family may only emit registered ids. */
export function checkOf(id: string): CheckDefinition {
  const found = byId.get(id);
  if (!found) throw new Error(`spec-review: check id ${id} is not registered (src/registry.ts)`);
  return found;
}

export function isRegistered(id: string): boolean {
  return byId.has(id);
}

/**
 * Levels for an API whose clients are generated from its document (SDK methods, CLI commands and
 * MCP tools named by operationId, types named by component schema) and hold credentials of given
 * kinds and scopes: the checks oasdiff levels info that break such clients. This repository's
 * review uses it (spec/DECISIONS.md, Versioning).
 */
export const generatedClientLevels: Readonly<Record<string, Severity>> = {
  'api-operation-id-renamed': 'breaking',
  'api-schema-removed': 'breaking',
  'api-security-added': 'breaking',
  'api-security-scheme-removed': 'breaking',
  'api-security-scope-added': 'breaking',
  'api-security-component-removed': 'breaking',
  'api-security-component-changed': 'breaking',
};
