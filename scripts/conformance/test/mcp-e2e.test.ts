/**
 * The MCP server (a child process on stdio, driven by the SDK's own Client)
 * against the real stack: the whole scenario through tool calls, DPoP from a
 * key file for the agent's tools, and an API error as a tool error.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dpopThumbprint } from '@gateway-minds/client';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { connectMcp, parsed } from '../src/consumers.js';

let stack: Stack;
let mcp: Client;

beforeAll(async () => {
  stack = await startStack();
  mcp = await connectMcp([], { GATEWAY_MINDS_URL: stack.url, GATEWAY_MINDS_TOKEN: (await stack.issue('bridge_session')).token });
});
afterAll(async () => {
  await mcp?.close();
  await stack?.close();
});

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false);
  return parsed(result);
}

async function waitFor(mindId: string, status: string) {
  for (const started = Date.now(); Date.now() - started < 45_000; ) {
    const mind = await call(mcp, 'minds_getMind', { mind_id: mindId });
    if (mind.status === status) return mind;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Mind ${mindId} never reached ${status}`);
}

describe('gateway-minds-mcp against the real stack', () => {
  it('runs the scenario through tool calls', async () => {
    const { context_sha256 } = await call(mcp, 'minds_listMinds', { limit: 5 });
    const created = await call(mcp, 'minds_createMind', { 'x-platform-minds-creation-context': context_sha256, name: 'Sandbox mcp' });
    expect(created.status).toBe('provisioning');
    const ready = await waitFor(created.mind_id, 'ready');

    const eventId = randomUUID();
    const { id: storageId } = await call(mcp, 'minds_insertEpisodicMemory', {
      mind: ready.mind_id,
      event: { id: eventId, content: 'Customer prefers email over phone.', timestamp: new Date().toISOString(), tags: ['crm'] },
    });
    expect(await call(mcp, 'minds_updateEpisodicMemory', { storage_id: storageId, mind: ready.mind_id, event_id: eventId, content: 'Customer prefers email.' })).toEqual({ ok: true });
    expect((await call(mcp, 'minds_searchMemory', { mind: ready.mind_id, text: 'email' })).items[0]).toMatchObject({ id: eventId, content: 'Customer prefers email.' });

    const agent = await stack.createAgent();
    const attachment = await call(mcp, 'minds_attachMind', {
      mind_id: ready.mind_id,
      operationId: randomUUID(),
      expectedVersion: 0,
      subject: { kind: 'agent', agentId: agent.id },
      permissions: ['minds.agent_data.read', 'minds.agent_data.write'],
      expiresAt: Date.now() + 3_600_000,
    });
    expect(attachment.revokedAt).toBeNull();

    // A second server for the agent, its token bound to the key in GATEWAY_MINDS_DPOP_KEY.
    const { generateKeyPair, exportJWK } = await import('jose');
    const keys = await generateKeyPair('ES256', { extractable: true });
    const keyFile = join(mkdtempSync(join(tmpdir(), 'mcp-dpop-')), 'agent.jwk.json');
    writeFileSync(keyFile, JSON.stringify(await exportJWK(keys.privateKey)));
    const agentToken = await stack.issue('agent_token', { agent_id: agent.id, dpop_jkt: await dpopThumbprint(keys.publicKey) });
    const agentMcp = await connectMcp(['--tags', 'Agent memory'], { GATEWAY_MINDS_URL: stack.url, GATEWAY_MINDS_TOKEN: agentToken.token, GATEWAY_MINDS_DPOP_KEY: keyFile });
    try {
      expect((await agentMcp.listTools()).tools.every((t) => t.name.startsWith('minds_agent'))).toBe(true);
      const agentEvent = randomUUID();
      await call(agentMcp, 'minds_agentInsertEpisodicMemory', { mind: ready.mind_id, event: { id: agentEvent, content: 'Ticket 42 is resolved.', timestamp: new Date().toISOString() } });
      expect((await call(agentMcp, 'minds_agentSearchMemory', { mind: ready.mind_id, text: 'ticket resolved' })).items[0]).toMatchObject({ id: agentEvent });
    } finally {
      await agentMcp.close();
    }

    await call(mcp, 'minds_stopMind', { mind_id: ready.mind_id, expected_generation: ready.desired_generation });
    const stopped = await waitFor(ready.mind_id, 'stopped');
    await call(mcp, 'minds_resumeMind', { mind_id: ready.mind_id, expected_generation: stopped.desired_generation, wake_reason: 'manual' });
    await waitFor(ready.mind_id, 'ready');

    const now = Date.now();
    const usage = await call(mcp, 'minds_getUsage', { from: new Date(now - 3_600_000).toISOString(), to: new Date(now + 60_000).toISOString() });
    expect(usage.minds.map((m: { mind_id: string }) => m.mind_id)).toContain(ready.mind_id);
  }, 120_000);

  it('an error envelope is a tool error carrying it', async () => {
    const result = await mcp.callTool({ name: 'minds_getMind', arguments: { mind_id: randomUUID() } });
    expect(result.isError).toBe(true);
    expect(parsed(result)).toMatchObject({ status: 404, error: { code: 'NOT_FOUND', reason: 'mind_not_found' } });
    expect(parsed(result).error.request_id).toMatch(/^req_/);
  });
});
