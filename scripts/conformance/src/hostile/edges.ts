/**
 * Edge cases that sit between "valid" and "broken": text PostgreSQL cannot
 * store (U+0000, lone surrogates sent as \ud800 escapes), bytes that are not
 * UTF-8, a path identifier with a malformed percent-encoding, query names
 * the query parser drops (Object.prototype members), impossible dates. The
 * contract allows two answers for each: refused with the location's code, or
 * accepted and stored exactly. Never a 5xx, never accepted-but-altered,
 * never silently ignored.
 */
import { randomUUID } from 'node:crypto';
import type { ErrorCode, OperationId } from '@gateway-minds/contract';
import type { HttpClient, RawAnswer, RawRequest } from './client.js';
import { render, validParts, type Fixture } from './requests.js';
import { operationSpec } from './spec.js';

export interface EdgeCase {
  operation: OperationId;
  name: string;
  request: RawRequest;
  /** The refusal that is acceptable. */
  refusal: ErrorCode[];
  /** When the request is accepted: how to read back what was stored, and what must come back. */
  readBack?: { request: (answer: RawAnswer) => RawRequest; field: (read: RawAnswer) => unknown; sent: unknown };
  /** Accepted is fine without a read back (nothing is stored, e.g. a search). */
  acceptable?: boolean;
}

/** JSON text with `raw` spliced in verbatim where `"@@"` stands (for escapes JSON.stringify would not write). */
const splice = (template: unknown, raw: string) => JSON.stringify(template).replace('"@@"', raw);

export function textEdges(fixture: Fixture, world: { mindId: string; ownerEvent: { storageId: string; eventId: string } }): EdgeCase[] {
  const out: EdgeCase[] = [];
  const req = (operationId: OperationId, body: string, change: (p: ReturnType<typeof validParts>) => void = () => {}) => {
    const operation = operationSpec(operationId);
    const parts = validParts(operation, fixture, randomUUID());
    parts.body = body;
    change(parts);
    return render(operation, parts);
  };
  const values: [string, string, string][] = [
    ['U+0000', '"a\\u0000b"', 'a\u0000b'],
    ['lone high surrogate', '"a\\ud800b"', 'a\ud800b'],
    ['lone low surrogate', '"a\\udfffb"', 'a\udfffb'],
  ];
  for (const [what, raw, value] of values) {
    for (const agent of [false, true]) {
      const insert: OperationId = agent ? 'minds_agentInsertEpisodicMemory' : 'minds_insertEpisodicMemory';
      const get: OperationId = agent ? 'minds_agentGetEpisodicMemory' : 'minds_getEpisodicMemory';
      for (const field of ['content', 'summary', 'tags'] as const) {
        const template = { event: { id: randomUUID(), content: 'edge', timestamp: '2026-11-21T12:00:00Z', [field]: field === 'tags' ? ['@@'] : '@@' } };
        const body = field === 'tags' ? JSON.stringify(template).replace('["@@"]', `[${raw}]`) : splice(template, raw);
        out.push({
          operation: insert,
          name: `${what} in event.${field}`,
          request: req(insert, body),
          refusal: ['INVALID_ARGUMENT'],
          readBack: {
            request: (answer) => req(get, '', (p) => ((p.body = undefined), delete p.headers['content-type'], (p.path.storage_id = answer.json.id))),
            field: (read) => read.json?.item?.[field],
            sent: field === 'tags' ? [value] : value,
          },
        });
      }
    }
    out.push({
      operation: 'minds_updateEpisodicMemory',
      name: `${what} in the updated content`,
      request: req('minds_updateEpisodicMemory', splice({ event_id: world.ownerEvent.eventId, content: '@@' }, raw)),
      refusal: ['INVALID_ARGUMENT'],
      readBack: {
        request: () => req('minds_getEpisodicMemory', '', (p) => ((p.body = undefined), delete p.headers['content-type'])),
        field: (read) => read.json?.item?.content,
        sent: value,
      },
    });
    out.push({ operation: 'minds_searchMemory', name: `${what} in a search`, request: req('minds_searchMemory', splice({ text: '@@' }, raw)), refusal: ['INVALID_ARGUMENT'], acceptable: true });
    out.push({ operation: 'minds_agentSearchMemory', name: `${what} in an agent search`, request: req('minds_agentSearchMemory', splice({ text: '@@' }, raw)), refusal: ['INVALID_ARGUMENT'], acceptable: true });
    out.push({
      operation: 'minds_createAgentGroup',
      name: `${what} in a group name`,
      request: req('minds_createAgentGroup', splice({ operationId: randomUUID(), name: '@@' }, raw)),
      refusal: ['INVALID_ARGUMENT'],
      readBack: { request: () => req('minds_listAgentGroups', '', (p) => ((p.body = undefined), delete p.headers['content-type'])), field: (read) => (read.json?.groups as { name: string }[] | undefined)?.some((g) => g.name === value) ? value : 'altered', sent: value },
    });
    out.push({
      operation: 'minds_createMind',
      name: `${what} in a Mind name`,
      request: req('minds_createMind', splice({ name: '@@' }, raw.replace(/^"a/, '"Sandbox '))),
      refusal: ['INVALID_ARGUMENT'],
      readBack: {
        request: (answer) => req('minds_getMind', '', (p) => ((p.body = undefined), delete p.headers['content-type'], (p.path.mind_id = answer.json.mind_id))),
        field: (read) => read.json?.name,
        sent: value.replace(/^a/, 'Sandbox '),
      },
    });
    out.push({ operation: 'iam_verifyCredential', name: `${what} in a credential`, request: req('iam_verifyCredential', splice({ credential: '@@' }, raw)), refusal: ['INVALID_ARGUMENT'], acceptable: true });
  }
  // Bytes that are not UTF-8 inside a JSON string (RFC 8259 §8.1: JSON text exchanged between systems MUST be UTF-8).
  const notUtf8 = Buffer.concat([Buffer.from(`{"event":{"id":"${randomUUID()}","content":"ab`), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('","timestamp":"2026-11-21T12:00:00Z"}}')]);
  out.push({
    operation: 'minds_insertEpisodicMemory',
    name: 'bytes that are not UTF-8 in event.content',
    request: { ...req('minds_insertEpisodicMemory', ''), body: notUtf8 },
    refusal: ['INVALID_ARGUMENT'],
    readBack: {
      request: (answer) => req('minds_getEpisodicMemory', '', (p) => ((p.body = undefined), delete p.headers['content-type'], (p.path.storage_id = answer.json.id))),
      field: (read) => read.json?.item?.content,
      sent: 'not UTF-8: nothing can come back as sent',
    },
  });
  return out;
}

/** URL edges: a malformed percent-encoding in an identifier, query names the parser drops, an infinite limit, impossible dates. */
export function urlEdges(fixture: Fixture, world: { mindId: string }): EdgeCase[] {
  const out: EdgeCase[] = [];
  const req = (operationId: OperationId, change: (p: ReturnType<typeof validParts>) => void) => {
    const operation = operationSpec(operationId);
    const parts = validParts(operation, fixture, randomUUID());
    change(parts);
    return render(operation, parts);
  };
  for (const encoded of ['%zz', '%E0%A4%A', '%', '%ED%A0%80']) {
    out.push({ operation: 'minds_getMind', name: `mind_id ${encoded}`, request: req('minds_getMind', (p) => (p.path.mind_id = encoded)), refusal: ['INVALID_IDENTIFIER', 'PATH_INVALID'] });
    out.push({
      operation: 'minds_listAgentGroupMembers',
      name: `group_id ${encoded}`,
      request: req('minds_listAgentGroupMembers', (p) => (p.path.group_id = `agp_${encoded}`)),
      refusal: ['INVALID_IDENTIFIER', 'PATH_INVALID'],
    });
  }
  for (const name of ['toString', 'hasOwnProperty', 'constructor', 'valueOf', '__proto__', '__proto__[x]', 'limit[__proto__]']) {
    out.push({ operation: 'minds_searchMemory', name: `query parameter ${name}`, request: req('minds_searchMemory', (p) => (p.query = `mind=${world.mindId}&${name}=1`)), refusal: ['INVALID_QUERY'] });
    out.push({ operation: 'minds_listMinds', name: `query parameter ${name}`, request: req('minds_listMinds', (p) => (p.query = `${name}=1`)), refusal: ['INVALID_QUERY'] });
  }
  // An integer query parameter that coerces to ±Infinity.
  for (const limit of ['Infinity', '-Infinity', '1e400']) {
    out.push({ operation: 'minds_listMinds', name: `limit=${limit}`, request: req('minds_listMinds', (p) => (p.query = `limit=${limit}`)), refusal: ['INVALID_QUERY'] });
  }
  for (const timestamp of ['2026-02-30T12:00:00Z', '2026-13-01T12:00:00Z', '2026-11-21T25:00:00Z', '2026-11-39T12:00:00Z']) {
    out.push({
      operation: 'minds_insertEpisodicMemory',
      name: `event.timestamp ${timestamp}`,
      request: req('minds_insertEpisodicMemory', (p) => (p.body = JSON.stringify({ event: { id: randomUUID(), content: 'edge', timestamp } }))),
      refusal: ['INVALID_ARGUMENT'],
    });
  }
  return out;
}

/** Sends each edge case; returns one line per answer the contract does not allow. */
export async function probeEdges(client: HttpClient, edges: EdgeCase[]): Promise<string[]> {
  const problems: string[] = [];
  for (const edge of edges) {
    const answer = await client.send(edge.request);
    const code = answer.json?.error?.code as string | undefined;
    const label = `${edge.operation}: ${edge.name}`;
    if (answer.status >= 500) {
      problems.push(`${label}: ${answer.status} ${code}`);
    } else if (answer.status >= 400) {
      if (!code || !(edge.refusal as string[]).includes(code)) problems.push(`${label}: expected ${edge.refusal.join(' or ')}, got ${answer.status} ${code}`);
    } else if (edge.readBack) {
      const read = await client.send(edge.readBack.request(answer));
      const stored = edge.readBack.field(read);
      if (JSON.stringify(stored) !== JSON.stringify(edge.readBack.sent)) {
        problems.push(`${label}: accepted (${answer.status}) and stored altered: ${JSON.stringify(stored)?.slice(0, 60)} for ${JSON.stringify(edge.readBack.sent).slice(0, 60)}`);
      }
    } else if (!edge.acceptable) {
      problems.push(`${label}: accepted (${answer.status}), expected ${edge.refusal.join(' or ')}`);
    }
  }
  return problems;
}
