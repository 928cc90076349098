/**
 * The command table follows the spec: one command per operation id (and none
 * other), flags from parameters and body properties typed by their schemas,
 * --help from summaries and descriptions; input parsing and output format.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationTable } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { operationInputs, specOperations } from '@gateway-minds/client/inputs';
import { commands, flagCollisions, kebab } from '../src/index.js';
import { cli } from './support/run.js';

const spec = specOperations();
const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';

describe('commands are the operation ids', () => {
  it('every operation of the spec has a command, and every command names one', () => {
    expect([...commands().keys()].sort()).toEqual([...spec.keys()].sort());
  });

  it('flags are the parameters and top-level body properties, without collisions', () => {
    expect(flagCollisions()).toEqual([]);
    for (const command of commands().values()) {
      const inputs = operationInputs(command.name);
      expect(command.flags.map((f) => f.field.name)).toEqual(inputs.fields.map((f) => f.name));
    }
    const create = commands().get('minds_createMind')!;
    expect(create.flags.map((f) => [f.flag, f.kind, f.required])).toEqual([
      ['idempotency-key', 'string', false],
      ['x-platform-minds-creation-context', 'string', true],
      ['name', 'string', true],
      ['plan', 'string', false],
      ['profile-id', 'string', false],
    ]);
    const attach = commands().get('minds_attachMind')!;
    expect(Object.fromEntries(attach.flags.map((f) => [f.flag, [f.kind, f.multiple]]))).toMatchObject({
      'expected-version': ['integer', false],
      subject: ['json', false],
      permissions: ['string', true],
      'expires-at': ['integer', false],
    });
  });

  // README, "Use it from npm": "a package's version is the API version it speaks (the spec's info.version)".
  it.each([['--version'], ['-V']])("%s prints the API version it speaks, the spec's info.version", async (flag) => {
    expect(await cli([flag])).toMatchObject({ code: 0, stdout: `${openapiDocument.info.version}\n`, stderr: '' });
  });

  it('--help comes from the spec', async () => {
    const main = await cli(['--help']);
    expect(main.code).toBe(0);
    for (const [id, { operation }] of spec) expect(main.stdout).toMatch(new RegExp(`\\n  ${id} +${operation.summary!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`));
    for (const [id, { operation, path }] of spec) {
      const help = await cli([id, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(operation.summary!);
      expect(help.stdout).toContain(path);
      for (const field of operationInputs(id as never).fields) expect(help.stdout, `${id} ${field.name}`).toContain(`\n  --${kebab(field.name)}`);
    }
  });

  it('--help shows the JSON a JSON flag takes and the form a date takes, from the spec\'s examples', async () => {
    const shown: string[] = [];
    for (const command of commands().values()) {
      const help = (await cli([command.name, '--help'])).stdout;
      for (const flag of command.flags.filter((f) => f.kind === 'json' || /^date/.test(String(f.field.schema.format)))) {
        // A single-quoted shell word on a line of its own (so wrapping never splits it).
        const line = new RegExp(`\\n      e\\.g\\. --${flag.flag} (.+)\\n`).exec(help);
        expect(line, `${command.name} --${flag.flag}`).not.toBeNull();
        const word = line![1]!;
        const value = word.startsWith("'") ? JSON.parse(word.slice(1, -1).replace(/'\\''/g, "'")) : word;
        expect(value, `${command.name} --${flag.flag}`).toEqual(flag.kind === 'json' ? flag.example : String(flag.example));
        shown.push(`${command.name} --${flag.flag}`);
      }
    }
    expect(shown).toEqual(expect.arrayContaining(['minds_insertEpisodicMemory --event', 'minds_getUsage --from', 'minds_attachMind --subject']));
    // The insert's example is the spec's first named request example (InsertEvent), every field shown.
    const event = commands().get('minds_insertEpisodicMemory')!.flags.find((f) => f.flag === 'event')!.example as Record<string, unknown>;
    expect(Object.keys(event).sort()).toEqual(['content', 'event_type', 'id', 'summary', 'tags', 'timestamp']);
  });

  it('an unknown command or flag is a usage error (exit 2)', async () => {
    expect((await cli(['minds_getMinds'])).code).toBe(2);
    const unknown = await cli(['minds_getMind', '--mind-id', mindId, '--nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--nope/);
    const missing = await cli(['minds_getMind']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('needs --mind-id');
    const integer = await cli(['minds_listMinds', '--limit', 'ten']);
    expect(integer.stderr).toContain('--limit takes an integer');
    const enumeration = await cli(['minds_createMind', '--x-platform-minds-creation-context', 'a', '--name', 'Sandbox', '--plan', 'gold']);
    expect(enumeration.code).toBe(2);
    expect(enumeration.stderr).toContain('--plan must be one of free, pro');
    expect((await cli(['minds_getMind', '--mind-id', mindId, '--wait-for', 'sleepy'])).stderr).toContain('--wait-for takes one of ready');
    expect((await cli(['minds_listMinds', '--wait-for', 'ready'])).stderr).toContain('result is a Mind');
  });
});

describe('what is sent and printed', () => {
  let server: Server;
  let base: string;
  const calls: { method: string; url: string; headers: IncomingMessage['headers']; body: any }[] = [];
  let answer: { status: number; body: unknown; headers?: Record<string, string> } = { status: 200, body: {} };
  let answers: (typeof answer)[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        calls.push({ method: req.method!, url: req.url!, headers: req.headers, body: text ? JSON.parse(text) : undefined });
        if (answers.length) answer = answers.shift()!;
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  const env = () => ({ GATEWAY_MINDS_URL: base, GATEWAY_MINDS_TOKEN: 'bs_env' });

  it('a date where the spec asks for a date-time (format: date-time) is refused before sending, saying the form', async () => {
    calls.length = 0;
    const result = await cli(['minds_getUsage', '--from', '2026-11-23', '--to', '2026-11-24T00:00:00Z'], env());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: --from takes an RFC 3339 date-time such as 2026-11-21T12:00:00Z; got "2026-11-23"');
    expect(calls).toEqual([]);
    answer = { status: 200, body: {} };
    expect((await cli(['minds_getUsage', '--from', '2026-11-23T00:00:00Z', '--to', '2026-11-24T00:00:00+01:00'], env())).code).toBe(0);
    expect(calls).toHaveLength(1);
  });

  it('parameters go to path, query and headers; body flags are typed; --body @file is merged under them', async () => {
    calls.length = 0;
    answer = { status: 200, body: { mindId } };
    const dir = mkdtempSync(join(tmpdir(), 'cli-test-'));
    writeFileSync(join(dir, 'body.json'), JSON.stringify({ operationId: '00000000-0000-4000-8000-000000000001', expectedVersion: 5, expiresAt: 1 }));
    const result = await cli(
      ['minds_attachMind', '--mind-id', mindId, '--body', `@${join(dir, 'body.json')}`, '--expected-version', '0', '--subject', '{"kind":"agent","agentId":"a_1"}', '--permissions', 'minds.agent_data.read', '--permissions', 'minds.agent_data.write'],
      env(),
    );
    expect(result.code).toBe(0);
    expect(calls[0]).toMatchObject({ method: 'POST', url: `/v1/minds/${mindId}/attachments` });
    expect(calls[0]!.headers.authorization).toBe('Bearer bs_env');
    expect(calls[0]!.body).toEqual({
      operationId: '00000000-0000-4000-8000-000000000001',
      expectedVersion: 0,
      expiresAt: 1,
      subject: { kind: 'agent', agentId: 'a_1' },
      permissions: ['minds.agent_data.read', 'minds.agent_data.write'],
    });

    calls.length = 0;
    await cli(['minds_getUsage', '--from', '2026-01-01T00:00:00Z', '--to', '2026-01-02T00:00:00Z', '--token', 'bs_flag', '--base-url', base], {});
    expect(calls[0]!.url).toBe('/v1/minds/usage?from=2026-01-01T00%3A00%3A00Z&to=2026-01-02T00%3A00%3A00Z');
    expect(calls[0]!.headers.authorization).toBe('Bearer bs_flag');

    calls.length = 0;
    await cli(['minds_resumeMind', '--mind-id', mindId, '--expected-generation', '3', '--idempotency-key', '00000000-0000-4000-8000-000000000009'], env());
    expect(calls[0]!.headers['idempotency-key']).toBe('00000000-0000-4000-8000-000000000009');
    expect(calls[0]!.body).toEqual({ expected_generation: 3 });
  });

  it('prints indented JSON on a terminal, one line when piped, or as asked', async () => {
    answer = { status: 200, body: { object: 'principal', kind: 'api_key' } };
    expect((await cli(['gateway_getPrincipal'], env(), true)).stdout).toBe('{\n  "object": "principal",\n  "kind": "api_key"\n}\n');
    expect((await cli(['gateway_getPrincipal'], env(), false)).stdout).toBe('{"object":"principal","kind":"api_key"}\n');
    expect((await cli(['gateway_getPrincipal', '--compact'], env(), true)).stdout).toBe('{"object":"principal","kind":"api_key"}\n');
  });

  it('an error envelope: code, message, docs_url, request_id on stderr, exit 1', async () => {
    answer = {
      status: 503,
      headers: { 'retry-after': '7' },
      body: { error: { code: 'MINDS_UNAVAILABLE', type: 'service_unavailable', message: 'Minds is unavailable.', docs_url: 'http://d/errors.html#MINDS_UNAVAILABLE', request_id: 'req_01JD3M8Q4Z9X7V6T5S4R3P2N1M' } },
    };
    const result = await cli(['minds_stopMind', '--mind-id', mindId, '--expected-generation', '1', '--idempotency-key', '00000000-0000-4000-8000-00000000000a'], env());
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        'error: MINDS_UNAVAILABLE (503 service_unavailable): Minds is unavailable.',
        '  docs_url:   http://d/errors.html#MINDS_UNAVAILABLE',
        '  request_id: req_01JD3M8Q4Z9X7V6T5S4R3P2N1M',
        '  retry after 7 s',
        '  the outcome is unknown: retry with --idempotency-key 00000000-0000-4000-8000-00000000000a',
        '',
      ].join('\n'),
    );
  });

  it('--wait-for polls the Mind with a progress display on stderr: a spinner on a terminal, a line per change when piped', async () => {
    const mind = (status: string) => ({ status: 200, body: { mind_id: mindId, status, desired_state: 'running', observed_state: status === 'ready' ? 'running' : 'pending', desired_generation: 2 } });
    const script = () => ['provisioning', 'provisioning', 'provisioning', 'ready'].map((s, i) => ({ ...mind(s), status: i === 0 ? 202 : 200 }));
    const argv = ['minds_resumeMind', '--mind-id', mindId, '--expected-generation', '1', '--wait-for', 'ready'];
    const pollEnv = { ...env(), GATEWAY_MINDS_POLL_MS: '10' };

    calls.length = 0;
    answers = script();
    const tty = await cli(argv, pollEnv, true);
    expect(tty.code).toBe(0);
    expect(JSON.parse(tty.stdout)).toMatchObject({ status: 'ready' });
    expect(calls.map((c) => c.method)).toEqual(['POST', 'GET', 'GET', 'GET']);
    expect(tty.stderr.match(/\r\x1b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Mind /g)).toHaveLength(3);
    expect(tty.stderr.endsWith('\n')).toBe(true);

    answers = script();
    const piped = await cli(argv, pollEnv, false);
    expect(piped.stderr.trim().split('\n').map((l) => l.replace(/ +[\d.]+ s$/, ''))).toEqual([
      `Mind ${mindId}: provisioning (desired running, observed pending), waiting for ready`,
      `Mind ${mindId}: ready (desired running, observed running), waiting for ready`,
    ]);

    answers = [{ ...mind('provisioning'), status: 202 }, mind('failed')];
    const failed = await cli(argv, pollEnv, false);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('is failed, not ready');
  });

  it('no answer: a clear message and exit 1', async () => {
    const result = await cli(['gateway_getStatus', '--base-url', 'http://127.0.0.1:9', '--max-retries', '0']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: Connection failed/);
  });

  // Rules common to Minds operations: owner management "no automatic retry"; agent operations "No attachment,
  // key creation, token exchange, human delegation or automatic retry". Which operations may be retried is the
  // spec's x-automatic-retry (the contract's automaticRetry); other safe reads retry as --max-retries documents.
  it.each([
    ['gateway_getStatus', [], true],
    ['minds_getMind', ['--mind-id', mindId], true],
    ['minds_searchMemory', ['--mind', mindId, '--text', 'x'], true],
    ['minds_listMindAttachments', ['--mind-id', mindId], false],
    ['minds_listAgentGroups', [], false],
    ['minds_agentGetEpisodicMemory', ['--storage-id', mindId, '--mind', mindId], false],
    ['minds_agentSearchMemory', ['--mind', mindId, '--text', 'x'], false],
  ] as const)('%s %j on 503 then 200: retried is %s, as the spec says', async (command, flags, retried) => {
    expect(operationTable[command].automaticRetry).toBe(retried);
    calls.length = 0;
    const unavailable = { status: 503, headers: { 'retry-after': '0' }, body: { error: { code: 'SERVICE_UNAVAILABLE', type: 'service_unavailable', message: 'busy', docs_url: 'http://x/docs', request_id: 'req_1' } } };
    answers = [unavailable, { status: 200, body: {} }];
    const result = await cli([command, ...flags], env());
    answers = [];
    expect({ requests: calls.length, exit: result.code }).toEqual(retried ? { requests: 2, exit: 0 } : { requests: 1, exit: 1 });
    expect((await cli([command, '--help'])).stdout).toContain(retried ? '    retried (--max-retries)' : '    never retried automatically');
  });
});
