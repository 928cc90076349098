/**
 * Valid requests, one set per operation: from the spec's named examples, at
 * the exact limits (16000-byte content, 2000-byte summary, 32 tags, 1000-byte
 * search, 128-byte group name, 80-character Mind name), with unicode that
 * must come back byte for byte, and generated from the request schemas. Each
 * must be accepted: its success status, or a documented business refusal
 * (NOT_FOUND for a random id, MIND_NOT_READY for a stale generation...), never
 * a validation code and never a 5xx.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { OperationId } from '@gateway-minds/contract';
import type { RawAnswer, RawRequest } from './client.js';
import type { World } from './fixture.js';
import { encodeQuery, render, validParts, type Fixture } from './requests.js';
import { operations, operationSpec, schemaErrors } from './spec.js';
import { copy, jsonText, validArbitrary } from './values.js';

export interface SampleState {
  world: World;
  /** What earlier samples returned, by name. */
  saved: Record<string, any>;
}

export interface ValidSample {
  operation: OperationId;
  note: string;
  build(state: SampleState): RawRequest;
  /** Must answer the operation's success status (otherwise a business refusal is accepted too). */
  success?: boolean;
  /** Further checks once answered; returns problems. */
  check?(answer: RawAnswer, state: SampleState, read: (request: RawRequest) => Promise<RawAnswer>): Promise<string[]>;
  save?: string;
}

/** Text that must be stored and returned exactly. */
export const UNICODE_TEXTS = [
  'RTL \u202eoverride\u202c and marks \u200f\u200e',
  'emoji \u{1F331} family \u{1F469}\u200d\u{1F469}\u200d\u{1F467} flag \u{1F1EB}\u{1F1F7} skin \u{1F44D}\u{1F3FD}',
  'combining e\u0301 a\u0308 \u0915\u094d\u0937',
  'astral \u{10348} \u{1D11E} \u{10FFFD}',
  'zero width \u200b\u200c\u200d joiner, a BOM \ufeff inside',
  'separators \u2028 and \u2029',
  'noncharacters \ufffe \uffff \u{1FFFE}',
  'Arabic \u0645\u0631\u062d\u0628\u0627 Hebrew \u05e9\u05dc\u05d5\u05dd Chinese \u4f60\u597d Devanagari \u0928\u092e\u0938\u094d\u0924\u0947',
  'fullwidth \uff21\uff22\uff23\uff11\uff12\uff13 and math \u{1D518}\u{1D52B}',
  'controls \u0001\u0007\u001b\u007f\u0085',
  'quotes " \\ / \' and \t tab',
  '\u{1F600}'.repeat(4000), // 16000 bytes in 4000 characters: exactly the byte limit
];

const at16000 = '\u{1F600}'.repeat(4000);
const summaryAt2000 = '\u20ac'.repeat(666) + 'ab';
const tags32 = Array.from({ length: 32 }, (_, i) => `${i}`.padEnd(64, '\u00e9'));

export function validSamples(fixture: Fixture, world: World, seed: number, generatedPerOperation = 4): ValidSample[] {
  const samples: ValidSample[] = [];
  const request = (operationId: OperationId, change: (parts: ReturnType<typeof validParts>) => void = () => {}): RawRequest => {
    const operation = operationSpec(operationId);
    const parts = validParts(operation, fixture, randomUUID());
    change(parts);
    return render(operation, parts);
  };
  const withBody = (body: unknown) => (parts: ReturnType<typeof validParts>) => {
    parts.body = jsonText(body);
  };
  const add = (operation: OperationId, note: string, build: (state: SampleState) => RawRequest, options: Partial<ValidSample> = {}) =>
    samples.push({ operation, note, build, success: true, ...options });

  // Gateway routes.
  add('gateway_getStatus', 'status', () => request('gateway_getStatus'));
  add('gateway_getPrincipal', 'whoami', () => request('gateway_getPrincipal'));
  for (const query of ['', 'days=7', 'days=30&service=minds', 'service=gateway']) {
    add('gateway_getUsage', `usage ${query}`, () => request('gateway_getUsage', (p) => (p.query = query)));
  }
  add('gateway_listErrors', 'errors', () => request('gateway_listErrors'));
  add('gateway_getOpenApi', 'openapi.json', () => request('gateway_getOpenApi'));
  add('iam_verifyCredential', 'a live session', ({ world: w }) => request('iam_verifyCredential', withBody({ credential: w.session })));
  add('iam_verifyCredential', 'an unknown key', () => request('iam_verifyCredential', withBody({ credential: 'ak_unknown' })));
  add('iam_verifyCredential', '4096 characters', () => request('iam_verifyCredential', withBody({ credential: 'x'.repeat(4096) })));

  // Lifecycle.
  for (const query of ['', 'limit=1', 'limit=100', `after=${world.mindId}`]) {
    add('minds_listMinds', `list ${query}`, () => request('minds_listMinds', (p) => (p.query = query)));
  }
  for (const example of operationSpec('minds_createMind').examples) {
    add('minds_createMind', `create ${JSON.stringify(example)}`, () => request('minds_createMind', withBody(example)));
  }
  add('minds_createMind', '80-character name', () => request('minds_createMind', withBody({ name: `Sandbox ${'\u00e9'.repeat(72)}` })));
  add('minds_getMind', 'the Mind', () => request('minds_getMind'));
  add('minds_getMind', 'a random id (NOT_FOUND)', () => request('minds_getMind', (p) => (p.path.mind_id = randomUUID())), { success: false });
  const scratch = (p: ReturnType<typeof validParts>) => (p.path.mind_id = world.scratchMindId);
  add('minds_stopMind', 'stop at generation 1', () => request('minds_stopMind', (p) => (scratch(p), withBody({ expected_generation: 1 })(p))), { save: 'stopped' });
  add('minds_stopMind', 'a stale generation (MIND_NOT_READY)', () => request('minds_stopMind', (p) => (scratch(p), withBody({ expected_generation: 1 })(p))), { success: false });
  add('minds_resumeMind', 'resume at generation 2', () => request('minds_resumeMind', (p) => (scratch(p), withBody({ expected_generation: 2, wake_reason: 'manual' })(p))));
  add('minds_resumeMind', 'a stale generation (MIND_NOT_READY)', () => request('minds_resumeMind', (p) => (scratch(p), withBody({ expected_generation: 2 })(p))), { success: false });
  add('minds_getUsage', 'a day', () => request('minds_getUsage'));
  add('minds_getUsage', '93 days', () => request('minds_getUsage', (p) => (p.query = encodeQuery([['from', '2026-01-01T00:00:00Z'], ['to', '2026-04-04T00:00:00Z']]))));

  // Owner memory: examples, limits, unicode that must round-trip.
  const readBack = (agent: boolean) => async (answer: RawAnswer, read: (r: RawRequest) => Promise<RawAnswer>, sent?: any) => {
    const id = answer.json?.id as string;
    const back = await read(
      request(agent ? 'minds_agentGetEpisodicMemory' : 'minds_getEpisodicMemory', (p) => {
        p.path.storage_id = id;
      }),
    );
    const item = back.json?.item;
    const problems: string[] = [];
    for (const field of ['content', 'summary', 'tags', 'timestamp'] as const) {
      if (sent?.event?.[field] === undefined) continue;
      if (JSON.stringify(item?.[field]) !== JSON.stringify(sent.event[field])) {
        problems.push(`${field} came back as ${JSON.stringify(item?.[field])?.slice(0, 120)}, sent ${JSON.stringify(sent.event[field]).slice(0, 120)}`);
      }
    }
    return problems;
  };
  const insertSample = (operationId: 'minds_insertEpisodicMemory' | 'minds_agentInsertEpisodicMemory', note: string, event: Record<string, unknown>) => {
    const agent = operationId === 'minds_agentInsertEpisodicMemory';
    const body = { event: { id: randomUUID(), timestamp: '2026-11-21T12:00:00Z', ...event } };
    samples.push({
      operation: operationId,
      note,
      success: true,
      build: () => request(operationId, withBody(body)),
      check: (answer, _state, read) => readBack(agent)(answer, read, body),
    });
  };
  for (const example of operationSpec('minds_insertEpisodicMemory').examples as { event: Record<string, unknown> }[]) {
    insertSample('minds_insertEpisodicMemory', 'example', { ...copy(example.event), id: randomUUID() });
  }
  for (const text of UNICODE_TEXTS) insertSample('minds_insertEpisodicMemory', `unicode ${JSON.stringify(text.slice(0, 24))}`, { content: text, summary: text.length < 500 ? text : null, tags: text.length < 60 ? [text] : [] });
  insertSample('minds_insertEpisodicMemory', 'every limit at once', { content: at16000, summary: summaryAt2000, tags: tags32, event_type: 'Knowledge' });
  for (const example of operationSpec('minds_agentInsertEpisodicMemory').examples as { event: Record<string, unknown> }[]) {
    insertSample('minds_agentInsertEpisodicMemory', 'example', { ...copy(example.event), id: randomUUID() });
  }
  insertSample('minds_agentInsertEpisodicMemory', 'every limit at once', { content: at16000, summary: summaryAt2000, tags: tags32 });
  insertSample('minds_agentInsertEpisodicMemory', 'unicode', { content: UNICODE_TEXTS[1], summary: UNICODE_TEXTS[0] });

  add('minds_getEpisodicMemory', 'the owner event', () => request('minds_getEpisodicMemory'));
  add('minds_getEpisodicMemory', 'an unknown storage id ({item: null})', () => request('minds_getEpisodicMemory', (p) => (p.path.storage_id = randomUUID())));
  add('minds_updateEpisodicMemory', 'replace content', ({ world: w }) =>
    request('minds_updateEpisodicMemory', withBody({ event_id: w.ownerEvent.eventId, content: 'hostile probe zebra: the owner event, updated \u{1F331}' })),
  );
  add('minds_updateEpisodicMemory', '16000 bytes', ({ world: w }) => request('minds_updateEpisodicMemory', withBody({ event_id: w.ownerEvent.eventId, content: `hostile probe zebra ${at16000.slice(0, 2 * 3990)}` })));
  add('minds_updateEpisodicMemory', 'another event id (EVENT_ID_MISMATCH)', () => request('minds_updateEpisodicMemory', withBody({ event_id: randomUUID(), content: 'x' })), { success: false });
  add('minds_updateEpisodicMemory', 'an unknown storage id (NOT_FOUND)', ({ world: w }) =>
    request('minds_updateEpisodicMemory', (p) => ((p.path.storage_id = randomUUID()), withBody({ event_id: w.ownerEvent.eventId, content: 'x' })(p))), { success: false });
  for (const example of operationSpec('minds_searchMemory').examples) add('minds_searchMemory', `search ${JSON.stringify(example)}`, () => request('minds_searchMemory', withBody(example)));
  add('minds_searchMemory', '1000 bytes of emoji, limit 100', () => request('minds_searchMemory', withBody({ text: '\u{1F600}'.repeat(250), limit: 100 })));
  add('minds_searchMemory', 'unicode', () => request('minds_searchMemory', withBody({ text: UNICODE_TEXTS[7], limit: 1 })));
  add('minds_agentGetEpisodicMemory', 'the agent event', () => request('minds_agentGetEpisodicMemory'));
  add('minds_agentGetEpisodicMemory', 'the owner event is not the agent\'s ({item: null})', ({ world: w }) => request('minds_agentGetEpisodicMemory', (p) => (p.path.storage_id = w.ownerEvent.storageId)));
  for (const example of operationSpec('minds_agentSearchMemory').examples) add('minds_agentSearchMemory', `search ${JSON.stringify(example)}`, () => request('minds_agentSearchMemory', withBody(example)));
  add('minds_agentSearchMemory', '1000 bytes', () => request('minds_agentSearchMemory', withBody({ text: '\u00e9'.repeat(500) })));
  add('minds_agentSearchMemory', 'in a group the agent may not use (INVALID_AGENT_CAPABILITY)', ({ world: w }) => request('minds_agentSearchMemory', (p) => (p.query = encodeQuery([['mind', w.mindId], ['group', w.groupId]]))), { success: false });

  // Owner management: attach and detach the spare agent, add and remove it from the group.
  add('minds_listMindAttachments', 'the Mind', () => request('minds_listMindAttachments'));
  add('minds_listMindAttachments', 'a random Mind (NOT_FOUND)', () => request('minds_listMindAttachments', (p) => (p.path.mind_id = randomUUID())), { success: false });
  add('minds_attachMind', 'the spare agent, read only', ({ world: w }) =>
    request('minds_attachMind', withBody({ operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId: w.spareAgentId }, permissions: ['minds.agent_data.read'], expiresAt: Date.now() + 30 * 24 * 3_600_000 - 60_000 })),
  { save: 'attachment' });
  add('minds_attachMind', 'the group, read and write', ({ world: w }) =>
    request('minds_attachMind', withBody({ operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'group', groupId: w.groupId }, permissions: ['minds.agent_data.read', 'minds.agent_data.write'], expiresAt: Date.now() + 3_600_000 })),
  );
  add('minds_attachMind', '31 days ahead (expires_at_out_of_range)', ({ world: w }) =>
    request('minds_attachMind', withBody({ operationId: randomUUID(), expectedVersion: 0, subject: { kind: 'agent', agentId: w.spareAgentId }, permissions: ['minds.agent_data.read'], expiresAt: Date.now() + 31 * 24 * 3_600_000 })),
  { success: false });
  add('minds_detachMind', 'the spare agent', ({ saved }) =>
    request('minds_detachMind', (p) => ((p.path.attachment_id = saved.attachment.id), withBody({ operationId: randomUUID(), expectedVersion: saved.attachment.version })(p))),
  );
  add('minds_listAgentGroups', 'groups', () => request('minds_listAgentGroups'));
  add('minds_createAgentGroup', '128 bytes of emoji', () => request('minds_createAgentGroup', withBody({ operationId: randomUUID(), name: '\u{1F331}'.repeat(32) })));
  add('minds_createAgentGroup', 'unicode name', () => request('minds_createAgentGroup', withBody({ operationId: randomUUID(), name: UNICODE_TEXTS[0] })));
  for (const example of operationSpec('minds_createAgentGroup').examples as Record<string, unknown>[]) {
    add('minds_createAgentGroup', 'example', () => request('minds_createAgentGroup', withBody({ ...example, operationId: randomUUID() })));
  }
  add('minds_listAgentGroupMembers', 'the group', () => request('minds_listAgentGroupMembers'));
  add('minds_addAgentGroupMember', 'the spare agent', ({ world: w }) => request('minds_addAgentGroupMember', withBody({ operationId: randomUUID(), expectedVersion: 0, agentId: w.spareAgentId })), { save: 'member' });
  add('minds_addAgentGroupMember', 'a stale version (version_mismatch)', ({ world: w }) => request('minds_addAgentGroupMember', withBody({ operationId: randomUUID(), expectedVersion: 0, agentId: w.spareAgentId })), { success: false });
  add('minds_removeAgentGroupMember', 'the spare agent', ({ world: w, saved }) =>
    request('minds_removeAgentGroupMember', (p) => ((p.path.agent_id = w.spareAgentId), withBody({ operationId: randomUUID(), expectedVersion: saved.member.version })(p))),
  );

  // Generated from the request schemas, on resources where a chance success cannot disturb the world.
  operations.forEach((operation, index) => {
    if (!operation.body) return;
    // validArbitrary builds from the keywords of each property; a rule across properties (the
    // plan/profile if/then of a create) is kept by the schema's own check.
    const schema = operation.body;
    const bodies = fc.sample(validArbitrary(schema).filter((value) => schemaErrors(schema, value).length === 0), { seed: seed + index, numRuns: generatedPerOperation });
    for (const body of bodies) {
      add(
        operation.id,
        `generated ${jsonText(body).slice(0, 60)}`,
        () =>
          request(operation.id, (p) => {
            p.body = jsonText(body);
            if (operation.id === 'minds_resumeMind' || operation.id === 'minds_stopMind') p.path.mind_id = world.scratchMindId;
            if (operation.id === 'minds_detachMind') p.path.attachment_id = fc.sample(fc.stringMatching(/^mat_[0-7][0-9A-HJKMNP-TV-Z]{25}$/), 1)[0]!;
            if (operation.id === 'minds_removeAgentGroupMember') p.path.agent_id = fc.sample(fc.stringMatching(/^a_[0-7][0-9A-HJKMNP-TV-Z]{25}$/), 1)[0]!;
          }),
        { success: false },
      );
    }
  });
  return samples;
}
