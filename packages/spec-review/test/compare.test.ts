/**
 * The comparison on pairs of spec versions that each contain one kind of
 * change: small fixture documents for every rule (the repository's own
 * contract is compared in scripts/spec-history/test/contract.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { compareSpecs, type Review, type Severity } from '../src/compare.js';
import { generatedClientLevels } from '../src/registry.js';
import { mutated, toyApi, type Doc } from './fixtures/toy-api.js';

function lines(review: Review): string[] {
  return review.breaking.map((b) => `${b.operations.join(',')} | ${b.where}: ${b.message}`);
}

/** Every change of the review, as `severity | operation-or-schema | where: message`. */
function allChanges(review: Review): { severity: Severity; text: string }[] {
  return [
    ...review.changed.flatMap((o) => o.changes.map((c) => ({ severity: c.severity, text: `${o.operation.operationId} | ${c.where}: ${c.message}` }))),
    ...review.sharedSchemas.flatMap((s) => s.changes.map((c) => ({ severity: c.severity, text: `${s.schema} (${s.direction}) | ${c.where}: ${c.message}` }))),
    ...review.document.map((c) => ({ severity: c.severity, text: `document | ${c.where}: ${c.message}` })),
  ];
}

/** Every `$ref` to `from` in `node`, made a `$ref` to `to`. */
function retargetRefs(node: unknown, from: string, to: string): void {
  if (Array.isArray(node)) node.forEach((item) => retargetRefs(item, from, to));
  else if (node && typeof node === 'object') {
    const object = node as Record<string, unknown>;
    if (object.$ref === from) object.$ref = to;
    Object.values(object).forEach((value) => retargetRefs(value, from, to));
  }
}

const pets = (doc: Doc) => doc.paths['/pets'];
const pet = (doc: Doc) => doc.components.schemas.Pet;
const newPet = (doc: Doc) => doc.components.schemas.NewPet;
const limit = (doc: Doc) => pets(doc).get.parameters[0];

describe('identical documents', () => {
  it('report nothing', () => {
    const review = compareSpecs(toyApi(), toyApi());
    expect(review).toEqual({ added: [], removed: [], changed: [], sharedSchemas: [], document: [], removals: [], breaking: [] });
  });
});

describe('breaking changes', () => {
  const cases: [string, (doc: Doc) => void, RegExp][] = [
    ['a removed operation', (d) => delete d.paths['/pets/{pet_id}'].delete, /^pets_delete \| `DELETE \/pets\/\{pet_id\}`: operation removed without being deprecated first$/],
    ['a renamed operation id', (d) => (pets(d).get.operationId = 'pets_listAll'), /^pets_list \| `GET \/pets`: operation id renamed to `pets_listAll`/],
    [
      'a moved operation',
      (d) => {
        d.paths['/animals'] = d.paths['/status'];
        delete d.paths['/status'];
      },
      /^status_get \| operation: moved from `GET \/status` to `GET \/animals`$/,
    ],
    ['a new required request field', (d) => (newPet(d).properties.color = { type: 'string' }) && newPet(d).required.push('color'), /`NewPet` \(request\): new required property `color`$/],
    ['an optional request field made required', (d) => newPet(d).required.push('age'), /`NewPet` \(request\): property `age` is now required$/],
    ['a new required query parameter', (d) => pets(d).get.parameters.push({ name: 'species', in: 'query', required: true, schema: { type: 'string' } }), /^pets_list \| query parameter `species`: new required parameter$/],
    ['an optional parameter made required', (d) => (limit(d).required = true), /^pets_list \| query parameter `limit`: is now required$/],
    ['a request body that is now required', (d) => (d.paths['/pets/{pet_id}'].delete.requestBody = { required: true, content: { 'application/json': { schema: { type: 'object' } } } }), /^pets_delete \| request body: a required body added$/],
    ['a removed required response field', (d) => { delete pet(d).properties.born_at; pet(d).required = pet(d).required.filter((r: string) => r !== 'born_at'); }, /`Pet` \(response\): response property `born_at` removed$/],
    ['a retyped response field', (d) => (pet(d).properties.name.type = 'integer'), /`Pet` \(response\) \.name: may now return another type \(retyped `string` → `integer`\)/],
    ['a response field that may now be null', (d) => (pet(d).properties.name.type = ['string', 'null']), /`Pet` \(response\) \.name: may now be `null`/],
    ['a response field no longer always present', (d) => (pet(d).required = pet(d).required.filter((r: string) => r !== 'born_at')), /`Pet` \(response\): property `born_at` is no longer always present$/],
    ['a request enum value removed (narrowing)', (d) => (d.components.schemas.PetStatus.enum = ['available', 'pending']), /`PetStatus` \(request\): enum value `sold` no longer accepted$/],
    ['a request maxLength lowered', (d) => (newPet(d).properties.name.maxLength = 40), /`NewPet` \(request\) \.name: `maxLength` lowered 80 → 40$/],
    ['a request maximum lowered', (d) => (limit(d).schema.maximum = 50), /^pets_list \| query parameter `limit`: `maximum` lowered 100 → 50$/],
    ['a request maxItems lowered', (d) => (newPet(d).properties.tags.maxItems = 4), /`NewPet` \(request\) \.tags: `maxItems` lowered 8 → 4/],
    ['a request minLength raised', (d) => (newPet(d).properties.name.minLength = 3), /`NewPet` \(request\) \.name: `minLength` raised 1 → 3$/],
    ['a request minimum raised', (d) => (newPet(d).properties.age.minimum = 1), /`NewPet` \(request\) \.age: `minimum` raised 0 → 1$/],
    ['a request header pattern added', (d) => (d.components.parameters.IdempotencyKey.schema.pattern = '^[a-z]+$'), /^pets_create \| header parameter `Idempotency-Key`: pattern `\^\[a-z\]\+\$` added$/],
    ['a request pattern added deep inside', (d) => (newPet(d).properties.tags.items.pattern = '^[a-z]+$'), /`NewPet` \(request\) \.tags\[\]: pattern `\^\[a-z\]\+\$` added$/],
    ['a request format added', (d) => (newPet(d).properties.name.format = 'email'), /`NewPet` \(request\) \.name: format `email` added$/],
    ['a request type narrowed', (d) => (newPet(d).properties.age.type = 'string'), /`NewPet` \(request\) \.age: no longer accepts every value it did \(retyped `integer` → `string`\)/],
    ['a request oneOf variant removed', (d) => newPet(d).properties.owner.oneOf.pop(), /`NewPet` \(request\) \.owner: oneOf variant `kind="shelter"` removed$/],
    ['a request field removed from a closed body', (d) => delete newPet(d).properties.age, /`NewPet` \(request\): property `age` removed: the object is closed/],
    ['a new scope', (d) => (d.paths['/pets/{pet_id}'].get.security = [{ session: ['pets:read', 'pets:admin'] }]), /^pets_get \| security: `session` now needs scope `pets:admin`$/],
    ['a credential now needed', (d) => (d.paths['/status'].get.security = [{ session: [] }]), /^status_get \| security: now needs a credential$/],
    [
      'a success status changed',
      (d) => {
        const responses = d.paths['/pets/{pet_id}'].delete.responses;
        responses['204'] = { description: 'gone' };
        delete responses['200'];
      },
      /^pets_delete \| response 200: removed/,
    ],
    ['a response header removed', (d) => delete pets(d).post.responses['201'].headers['X-Request-Id'], /^pets_create \| response 201 header `X-Request-Id`: removed$/],
    ['an error code with another status', (d) => (d.components.schemas.ErrorCode.oneOf[2]['x-status'] = 410), /^ \| error code `NOT_FOUND`: status changed `404` → `410`$/],
    ['a removed security scheme', (d) => (d.components.securitySchemes = { token: { type: 'http', scheme: 'bearer' } }), /^ \| security scheme `session`: removed$/],
  ];

  it.each(cases)('%s', (_name, change, expected) => {
    const review = compareSpecs(toyApi(), mutated(change), { levels: generatedClientLevels });
    expect(lines(review).some((line) => expected.test(line)), `${expected}\nin\n${lines(review).join('\n')}`).toBe(true);
  });

  it('additionalProperties closed on a request body', () => {
    const open = (d: Doc) => delete newPet(d).additionalProperties;
    const review = compareSpecs(mutated(open), mutated(() => undefined));
    expect(lines(review)).toContain('pets_create | schema `NewPet` (request): additionalProperties closed: unknown properties are now refused');
  });

  it('a shared schema change names every operation that reaches it, in each direction', () => {
    const review = compareSpecs(toyApi(), mutated((d) => (d.components.schemas.PetId.maxLength = 20)), { levels: generatedClientLevels });
    const request = review.sharedSchemas.find((s) => s.schema === 'PetId' && s.direction === 'request')!;
    const response = review.sharedSchemas.find((s) => s.schema === 'PetId' && s.direction === 'response')!;
    expect(request.operations.sort()).toEqual(['pets_delete', 'pets_get', 'pets_list']);
    expect(request.changes.map((c) => c.severity)).toEqual(['breaking']);
    expect(response.operations.sort()).toEqual(['pets_create', 'pets_delete', 'pets_get', 'pets_list']);
    expect(response.changes.map((c) => c.severity)).toEqual(['info']);
    expect(review.breaking).toHaveLength(1);
    expect(review.breaking[0]!.operations.sort()).toEqual(['pets_delete', 'pets_get', 'pets_list']);
  });
});

describe('a parameter change points at the parameter, so its annotation lands on that line', () => {
  it('made required: its `required`; new: the parameter itself', () => {
    const madeRequired = compareSpecs(toyApi(), mutated((d) => (limit(d).required = true)));
    expect(madeRequired.breaking.map((b) => b.pointer)).toEqual(['/paths/~1pets/get/parameters/0/required']);
    const head = mutated((d) => pets(d).get.parameters.push({ name: 'species', in: 'query', required: true, schema: { type: 'string' } }));
    const added = compareSpecs(toyApi(), head);
    expect(added.breaking.map((b) => b.pointer)).toEqual([`/paths/~1pets/get/parameters/${pets(head).get.parameters.length - 1}`]);
  });
});

describe('an operation whose id changed is still compared', () => {
  // DECISIONS.md, "Versioning": a renamed operationId is breaking; what else changed in the same operation must not hide behind it.
  const renamedAndNarrowed = () =>
    mutated((d) => {
      pets(d).get.operationId = 'pets_listAll';
      limit(d).required = true;
    });

  it('its other breaking changes are reported beside the rename, under the new id', () => {
    const review = compareSpecs(toyApi(), renamedAndNarrowed(), { levels: generatedClientLevels });
    expect(lines(review)).toEqual(['pets_list | `GET /pets`: operation id renamed to `pets_listAll` (client methods, CLI commands and MCP tools change name)', 'pets_listAll | query parameter `limit`: is now required']);
    expect(review.changed.map((o) => o.operation.operationId)).toEqual(['pets_listAll']);
  });

  it('and stay breaking at the default level of the rename, info (oasdiff: api-operation-id-removed)', () => {
    const review = compareSpecs(toyApi(), renamedAndNarrowed());
    expect(lines(review)).toEqual(['pets_listAll | query parameter `limit`: is now required']);
  });

  it('a rename alone changes nothing else', () => {
    const review = compareSpecs(toyApi(), mutated((d) => (pets(d).get.operationId = 'pets_listAll')), { levels: generatedClientLevels });
    expect(review.changed).toEqual([]);
    expect(review.breaking.map((b) => b.id)).toEqual(['api-operation-id-renamed']);
  });
});

describe('a $ref is a JSON pointer in URI-fragment form', () => {
  // RFC 6901 §6: a pointer in a URI fragment is percent-encoded; `%50` is `P`.
  it('percent-encoded, it names the same schema as written plainly: nothing changed', () => {
    const encoded = mutated((d) => retargetRefs(d, '#/components/schemas/NewPet', '#/components/schemas/New%50et'));
    expect(JSON.stringify(encoded)).toContain('New%50et');
    expect(allChanges(compareSpecs(toyApi(), encoded))).toEqual([]);
  });
});

describe('component schemas are type names of every generated client', () => {
  // packages/spec-review/README.md, "Judged differently from oasdiff": `api-schema-removed` is breaking, as DECISIONS.md "Versioning" lists it.
  const renamed = () =>
    mutated((d) => {
      d.components.schemas.PetState = d.components.schemas.PetStatus;
      delete d.components.schemas.PetStatus;
      retargetRefs(d, '#/components/schemas/PetStatus', '#/components/schemas/PetState');
    });

  it('a schema renamed with the same shape is breaking, though the wire is unchanged, and the message names the new name', () => {
    const review = compareSpecs(toyApi(), renamed(), { levels: generatedClientLevels });
    expect(lines(review)).toEqual([' | schema `PetStatus`: renamed to `PetState`, the same shape: generated types named `PetStatus` are gone']);
    expect(review.changed).toEqual([]);
    expect(allChanges(review)).toContainEqual({ severity: 'info', text: 'document | schema `PetState`: added' });
  });

  it('info by default (oasdiff), for an API whose clients never see schema names', () => {
    expect(compareSpecs(toyApi(), renamed()).breaking).toEqual([]);
  });

  it('a new schema is info', () => {
    const review = compareSpecs(toyApi(), mutated((d) => (d.components.schemas.Owner = { type: 'object', properties: { name: { type: 'string' } } })));
    expect(review.breaking).toEqual([]);
    expect(allChanges(review)).toEqual([{ severity: 'info', text: 'document | schema `Owner`: added' }]);
  });
});

describe('changes that are not breaking', () => {
  const cases: [string, (doc: Doc) => void, Severity, RegExp][] = [
    ['an added operation', (d) => (d.paths['/pets/{pet_id}'].put = { operationId: 'pets_replace', summary: 'Replace', responses: { '200': { description: 'ok' } } }), 'info', /./],
    ['a new optional request field', (d) => (newPet(d).properties.color = { type: 'string' }), 'info', /NewPet \(request\) \| \(the schema\): new optional property `color`$/],
    ['a new optional query parameter', (d) => pets(d).get.parameters.push({ name: 'species', in: 'query', schema: { type: 'string' } }), 'info', /query parameter `species`: new optional parameter$/],
    ['a request maxLength raised', (d) => (newPet(d).properties.name.maxLength = 120), 'info', /NewPet \(request\) \| \.name: `maxLength` raised 80 → 120$/],
    ['a request minimum lowered', (d) => (limit(d).schema.minimum = 0), 'info', /`minimum` lowered 1 → 0$/],
    ['a request pattern removed', (d) => delete newPet(d).properties.name.pattern, 'info', /pattern `\\S` removed$/],
    ['a response-only enum value removed', (d) => (pet(d).properties.origin.enum = ['shelter', 'breeder']), 'info', /Pet \(response\) \| \.origin: no longer returns enum value `unknown`$/],
    ['a response enum value added', (d) => pet(d).properties.origin.enum.push('rescue'), 'warning', /Pet \(response\) \| \.origin: may now return enum value `rescue`/],
    ['a response maxLength lowered', (d) => (pet(d).properties.name.maxLength = 40), 'info', /Pet \(response\) \| \.name: `maxLength` lowered 80 → 40$/],
    ['a response field added', (d) => (pet(d).properties.color = { type: 'string' }), 'info', /Pet \(response\) \| \(the schema\): new response property `color`$/],
    ['a response field made required', (d) => pet(d).required.push('nickname'), 'info', /property `nickname` is now required$/],
    ['a response type narrowed (no longer null)', (d) => (pet(d).properties.nickname.type = 'string'), 'info', /\.nickname: is no longer `null`$/],
    ['a new error status', (d) => (d.paths['/pets/{pet_id}'].get.responses['429'] = { description: 'slow down' }), 'info', /^pets_get \| response 429: new error status/],
    ['a new error code on a response', (d) => (d.paths['/pets/{pet_id}'].get.responses['404'].content['application/json'].examples.GONE = { value: { error: { code: 'NOT_FOUND_ANYMORE' } } }), 'warning', /response 404: may now return error code `NOT_FOUND_ANYMORE`$/],
    ['a new error code in the catalog', (d) => d.components.schemas.ErrorCode.oneOf.push({ const: 'GONE', 'x-status': 410, 'x-type': 'gone' }), 'info', /^document \| error catalog: code added: `GONE`$/],
    ['a removed query parameter (oasdiff: a warning)', (d) => pets(d).get.parameters.splice(0, 1), 'warning', /^pets_list \| query parameter `limit`: removed/],
    ['a removed optional response field (oasdiff: a warning)', (d) => delete pet(d).properties.nickname, 'warning', /Pet \(response\) \| \(the schema\): response property `nickname` removed$/],
    ['a request pattern changed (oasdiff: a warning, it may not narrow)', (d) => (newPet(d).properties.name.pattern = '^[A-Z]'), 'warning', /NewPet \(request\) \| \.name: pattern changed `\\S` → `\^\[A-Z\]`$/],
    ['a request maxLength set where there was none (oasdiff: a warning)', (d) => (newPet(d).properties.owner.oneOf[0].properties.person_id.maxLength = 10), 'warning', /`maxLength: 10` added$/],
    ['a request property that now also accepts null, wrapped as oneOf [null, X]', (d) => (newPet(d).properties.name = { oneOf: [{ type: 'null' }, newPet(d).properties.name] }), 'info', /NewPet \(request\) \| \.name: now also accepts `null`$/],
    ['a scope dropped', (d) => (d.paths['/pets/{pet_id}'].get.security = [{ session: [] }]), 'info', /no longer needs scope `pets:read`$/],
    ['a described change', (d) => (pets(d).get.description = 'Lists pets, newest first.'), 'info', /^pets_list \| description: description changed: “Lists pets, newest first.”$/],
  ];

  it.each(cases)('%s', (_name, change, severity, expected) => {
    const review = compareSpecs(toyApi(), mutated(change));
    expect(review.breaking, lines(review).join('\n')).toEqual([]);
    if (_name === 'an added operation') {
      expect(review.added.map((o) => o.operationId)).toEqual(['pets_replace']);
      return;
    }
    const found = allChanges(review).filter((c) => expected.test(c.text));
    expect(found.map((c) => c.severity), `${expected}\nin\n${allChanges(review).map((c) => `${c.severity} ${c.text}`).join('\n')}`).toEqual([severity]);
  });

  it('judges a shared schema by direction: a value removed from PetStatus breaks requests only', () => {
    const review = compareSpecs(toyApi(), mutated((d) => (d.components.schemas.PetStatus.enum = ['available', 'pending'])));
    const byDirection = Object.fromEntries(review.sharedSchemas.filter((s) => s.schema === 'PetStatus').map((s) => [s.direction, s.changes.map((c) => c.severity)]));
    expect(byDirection).toEqual({ request: ['breaking'], response: ['info'] });
    expect(review.breaking.map((b) => b.operations)).toEqual([['pets_create']]);
  });

  describe("a code's reasons (x-reasons), one by one", () => {
    const notFound = (d: Doc) => d.components.schemas.ErrorCode.oneOf[2];
    const withReasons = (reasons: Record<string, string>) => mutated((d) => (notFound(d)['x-reasons'] = reasons));
    const base = withReasons({ pet_not_found: 'no such pet', owner_not_found: 'no such owner' });

    it('a reason no longer sent is a warning: a client branch on it goes dead', () => {
      const review = compareSpecs(base, withReasons({ pet_not_found: 'no such pet' }));
      expect(review.breaking).toEqual([]);
      expect(allChanges(review)).toEqual([{ severity: 'warning', text: 'document | error code `NOT_FOUND`: reason no longer sent: `owner_not_found`' }]);
    });

    it('a new reason and a reworded meaning are info, each reported on its own', () => {
      const review = compareSpecs(base, withReasons({ pet_not_found: 'no pet with this id', owner_not_found: 'no such owner', shelter_not_found: 'no such shelter' }));
      expect(allChanges(review)).toEqual([
        { severity: 'info', text: 'document | error code `NOT_FOUND`: reason added: `shelter_not_found`' },
        { severity: 'info', text: 'document | error code `NOT_FOUND`: meaning reworded: `pet_not_found`' },
      ]);
    });

    it('the first reasons a code lists are additions', () => {
      expect(allChanges(compareSpecs(toyApi(), base))).toEqual([{ severity: 'info', text: 'document | error code `NOT_FOUND`: reasons added: `pet_not_found`, `owner_not_found`' }]);
    });
  });

  it('does not mark every operation changed when the catalog gains a code', () => {
    const review = compareSpecs(toyApi(), mutated((d) => d.components.schemas.ErrorCode.oneOf.push({ const: 'GONE', 'x-status': 410 })));
    expect(review.changed).toEqual([]);
  });
});
