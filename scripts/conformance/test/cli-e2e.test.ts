/**
 * The built `gateway-minds` binary, one child process per command, against
 * the real stack: the whole scenario, progress while waiting, DPoP from a key
 * file, and an error envelope's exit code.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalog } from '@gateway-minds/contract';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { spawnCli } from '../src/consumers.js';

let stack: Stack;
let env: Record<string, string>;

beforeAll(async () => {
  stack = await startStack();
  env = { GATEWAY_MINDS_URL: stack.url, GATEWAY_MINDS_TOKEN: (await stack.issue('bridge_session')).token, GATEWAY_MINDS_POLL_MS: '100' };
});
afterAll(() => stack?.close());

async function ok(argv: string[], extraEnv: Record<string, string> = {}) {
  const result = await spawnCli(argv, { ...env, ...extraEnv });
  expect(result.code, `${argv[0]}: ${result.stderr}`).toBe(0);
  expect(result.stdout.trim().split('\n')).toHaveLength(1); // piped: compact JSON
  return result;
}

describe('gateway-minds against the real stack', () => {
  it('runs the scenario', async () => {
    expect((await ok(['gateway_getPrincipal'])).json).toMatchObject({ kind: 'bridge_session' });
    const { context_sha256 } = (await ok(['minds_listMinds', '--limit', '5'])).json;

    const created = await ok(['minds_createMind', '--x-platform-minds-creation-context', context_sha256, '--name', 'Sandbox cli', '--plan', 'free', '--wait-for', 'ready']);
    expect(created.json.status).toBe('ready');
    expect(created.stderr).toMatch(/Mind [0-9a-f-]{36}: (provisioning|ready) .*waiting for ready/);
    const mindId: string = created.json.mind_id;

    // The example --help shows for --event, pasted as is, is an event the server stores.
    const help = (await spawnCli(['minds_insertEpisodicMemory', '--help'])).stdout;
    const shown = /\n      e\.g\. --event '(.+)'\n/.exec(help)![1]!;
    expect((await ok(['minds_insertEpisodicMemory', '--mind', mindId, '--event', shown])).json.id).toMatch(/^[0-9a-f-]{36}$/);

    const eventId = randomUUID();
    const event = JSON.stringify({ id: eventId, content: 'Standup moved to 10:00.', timestamp: new Date().toISOString(), event_type: 'Decision' });
    const { id: storageId } = (await ok(['minds_insertEpisodicMemory', '--mind', mindId, '--event', event])).json;
    expect((await ok(['minds_updateEpisodicMemory', '--storage-id', storageId, '--mind', mindId, '--event-id', eventId, '--content', 'Standup moved to 10:30.'])).json).toEqual({ ok: true });
    expect((await ok(['minds_getEpisodicMemory', '--storage-id', storageId, '--mind', mindId])).json.item).toMatchObject({ content: 'Standup moved to 10:30.', event_type: 'Decision' });
    expect((await ok(['minds_searchMemory', '--mind', mindId, '--text', 'standup', '--limit', '5'])).json.items[0]).toMatchObject({ id: eventId });

    const agent = await stack.createAgent();
    const attached = await ok([
      'minds_attachMind',
      '--mind-id', mindId,
      '--operation-id', randomUUID(),
      '--expected-version', '0',
      '--subject', JSON.stringify({ kind: 'agent', agentId: agent.id }),
      '--permissions', 'minds.agent_data.read',
      '--permissions', 'minds.agent_data.write',
      '--expires-at', String(Date.now() + 3_600_000),
    ]);
    expect(attached.json).toMatchObject({ version: 1, revokedAt: null });

    // The agent, with a token bound to a key in a JWK file.
    const keys = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = await exportJWK(keys.privateKey);
    const keyFile = join(mkdtempSync(join(tmpdir(), 'cli-dpop-')), 'agent.jwk.json');
    writeFileSync(keyFile, JSON.stringify(privateJwk));
    const agentToken = await stack.issue('agent_token', { agent_id: agent.id, dpop_jkt: await calculateJwkThumbprint(await exportJWK(keys.publicKey)) });
    const agentEnv = { GATEWAY_MINDS_TOKEN: agentToken.token };
    const agentEvent = randomUUID();
    await ok(['minds_agentInsertEpisodicMemory', '--mind', mindId, '--dpop-key', keyFile, '--event', JSON.stringify({ id: agentEvent, content: 'Deploy window is Friday.', timestamp: new Date().toISOString() })], agentEnv);
    expect((await ok(['minds_agentSearchMemory', '--mind', mindId, '--text', 'deploy', '--dpop-key', keyFile], agentEnv)).json.items[0]).toMatchObject({ id: agentEvent });

    const stopped = await ok(['minds_stopMind', '--mind-id', mindId, '--expected-generation', String(created.json.desired_generation), '--wait-for', 'stopped']);
    expect(stopped.json.status).toBe('stopped');
    const resumed = await ok(['minds_resumeMind', '--mind-id', mindId, '--expected-generation', String(stopped.json.desired_generation), '--wake-reason', 'manual', '--wait-for', 'ready']);
    expect(resumed.json.status).toBe('ready');

    const now = Date.now();
    const usage = await ok(['minds_getUsage', '--from', new Date(now - 3_600_000).toISOString(), '--to', new Date(now + 60_000).toISOString()]);
    expect(usage.json.minds.map((m: { mind_id: string }) => m.mind_id)).toContain(mindId);
  }, 120_000);

  it('an error envelope: code, message, docs_url and request_id on stderr, exit 1', async () => {
    const result = await spawnCli(['minds_getMind', '--mind-id', randomUUID()], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: NOT_FOUND \(404 not_found\): .+\n  docs_url: +\S+errors\.html#NOT_FOUND\n  request_id: req_[0-9A-Z]{26}\n  reason: +mind_not_found \(.+\)\n$/);
    // The reason's meaning is the catalog's (ErrorCode.yaml, x-reasons).
    expect(result.stderr).toContain(`mind_not_found (${errorCatalog.NOT_FOUND.reasons.mind_not_found})`);
    const noToken = await spawnCli(['gateway_getPrincipal'], { GATEWAY_MINDS_URL: stack.url });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('BEARER_REQUIRED');
  });
});
