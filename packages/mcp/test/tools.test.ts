/**
 * The tool list over stdio: one tool per operation id (and none other), input
 * schemas from the spec with patterns and bounds, read-only hints, and the
 * read-only / tag / id filters.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { operationInputs, specOperations } from '@gateway-minds/client/inputs';
import { openapiDocument } from '@gateway-minds/contract/document';
import { connect, parsed } from './support/mcp.js';
import mcpPackage from '../package.json' with { type: 'json' };

const spec = specOperations();
let client: Client;

beforeAll(async () => {
  client = await connect([], { GATEWAY_MINDS_URL: 'http://127.0.0.1:9' });
});
afterAll(() => client?.close());

// README, "Use it from npm": "a package's version is the API version it speaks (the spec's info.version)".
describe('the server names itself', () => {
  it("with the API version it speaks in the initialize answer, the spec's info.version, which is the package's", () => {
    expect(client.getServerVersion()).toEqual({ name: 'gateway-minds', version: openapiDocument.info.version });
    expect(mcpPackage.version).toBe(openapiDocument.info.version);
  });
});

describe('tools are the operation ids', () => {
  it('every operation of the spec is a tool, and every tool names one', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...spec.keys()].sort());
  });

  it('descriptions come from the spec; read-only operations are marked', async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const { operation, method } = spec.get(tool.name)!;
      expect(tool.description).toContain(operation.summary!);
      expect(tool.description).toContain(operation.description!.slice(0, 60));
      const readOnly = method === 'get' || operation['x-read-only'] === true;
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(readOnly);
      const automaticRetry = readOnly && operation['x-automatic-retry'] !== false;
      expect(tool.description!.endsWith(' Never retried automatically.'), tool.name).toBe(!automaticRetry);
    }
  });

  it('input schemas are the parameters and body, with patterns and bounds kept', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const tool of tools) {
      const inputs = operationInputs(tool.name as never);
      const expected = inputs.fields.filter((f) => f.name !== 'dpop').map((f) => f.name);
      expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).toEqual(inputs.body && !inputs.bodyFlattened ? [...expected, 'body'] : expected);
      expect((tool.inputSchema as { additionalProperties?: boolean }).additionalProperties).toBe(false);
    }
    const create = byName.get('minds_createMind')!.inputSchema as any;
    expect(create.required).toEqual(['x-platform-minds-creation-context', 'name']);
    expect(create.properties.name).toMatchObject({ type: 'string', maxLength: 80, pattern: '^Sandbox(?: .+)?$' });
    expect(create.properties.plan.enum).toEqual(['free', 'pro']);
    expect(create.properties['Idempotency-Key'].pattern).toMatch(/^\^\[0-9a-f\]\{8\}/);
    const insert = byName.get('minds_insertEpisodicMemory')!.inputSchema as any;
    const content = insert.properties.event.properties.content;
    expect(content).toMatchObject({ minLength: 1, maxLength: 16000 });
    // The spec's "not only whitespace" pattern travels as written: it still refuses what it refuses there.
    const notOnlyWhitespace = new RegExp(content.pattern, 'u');
    expect(['a note', ' x '].every((text) => notOnlyWhitespace.test(text))).toBe(true);
    expect(['', '   ', 'a\u0000b'].some((text) => notOnlyWhitespace.test(text))).toBe(false);
    const extensions: string[] = [];
    const walk = (node: unknown, inProperties = false): void => {
      if (!node || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (!inProperties && key.startsWith('x-')) extensions.push(key);
        walk(value, key === 'properties' && !inProperties);
      }
    };
    for (const tool of tools) walk(tool.inputSchema);
    expect(extensions).toEqual([]);
  });

  it('an API error comes back as a tool error with the envelope', async () => {
    const result = await client.callTool({ name: 'gateway_getStatus', arguments: {} });
    expect(result.isError).toBe(true);
    expect(parsed(result).error.message).toMatch(/Connection failed/);
    const unknown = await client.callTool({ name: 'minds_getMind', arguments: { mind_id: 'x', nope: 1 } });
    expect(unknown.isError).toBe(true);
  });
});

describe('filters', () => {
  it('--read-only exposes only read operations; GATEWAY_MINDS_MCP_TAGS only those tags; --tools only those ids', async () => {
    const readOnly = await connect(['--read-only']);
    const tags = await connect([], { GATEWAY_MINDS_MCP_TAGS: 'Memory,Gateway' });
    const ids = await connect(['--tools', 'minds_getMind,minds_listMinds', '--read-only']);
    try {
      const readTools = (await readOnly.listTools()).tools;
      expect(readTools.length).toBeGreaterThan(0);
      expect(readTools.map((t) => t.name).sort()).toEqual([...spec].filter(([, s]) => s.method === 'get' || s.operation['x-read-only'] === true).map(([id]) => id).sort());
      expect((await tags.listTools()).tools.map((t) => t.name).sort()).toEqual([...spec].filter(([, s]) => ['Memory', 'Gateway'].includes(s.operation.tags![0]!)).map(([id]) => id).sort());
      expect((await ids.listTools()).tools.map((t) => t.name).sort()).toEqual(['minds_getMind', 'minds_listMinds']);
      await expect(readOnly.callTool({ name: 'minds_stopMind', arguments: {} })).rejects.toThrow(/Unknown tool/);
    } finally {
      await Promise.all([readOnly.close(), tags.close(), ids.close()]);
    }
  });
});

// Rules common to Minds operations: owner management "no automatic retry"; agent operations "No attachment,
// key creation, token exchange, human delegation or automatic retry". The spec's x-automatic-retry says which
// operations those are; other safe reads are still retried (the server's client retries reads twice).
describe('retries, against a stand-in server that answers 503 and then 200', () => {
  let server: Server;
  let standIn: Client;
  let requests = 0;
  let answers: number[] = [];
  const mindId = '3f2b8c1e-5a7d-4e9f-8b6a-1c2d3e4f5a6b';

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        const status = answers.shift() ?? 200;
        const body = status === 200 ? {} : { error: { code: 'SERVICE_UNAVAILABLE', type: 'service_unavailable', message: 'busy', docs_url: 'http://x/docs', request_id: 'req_1' } };
        res.writeHead(status, { 'content-type': 'application/json', ...(status === 503 ? { 'retry-after': '0' } : {}) }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    standIn = await connect([], { GATEWAY_MINDS_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, GATEWAY_MINDS_TOKEN: 'bs_test' });
  });
  afterAll(async () => {
    await standIn?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it.each([
    ['gateway_getStatus', {}, true],
    ['minds_getMind', { mind_id: mindId }, true],
    ['minds_searchMemory', { mind: mindId, text: 'x' }, true],
    ['minds_listMindAttachments', { mind_id: mindId }, false],
    ['minds_listAgentGroups', {}, false],
    ['minds_agentGetEpisodicMemory', { storage_id: mindId, mind: mindId }, false],
    ['minds_agentSearchMemory', { mind: mindId, text: 'x' }, false],
  ] as const)('%s (arguments %j): retried is %s, as the spec says', async (name, args, retried) => {
    const { operation, method } = spec.get(name)!;
    expect((method === 'get' || operation['x-read-only'] === true) && operation['x-automatic-retry'] !== false).toBe(retried);
    requests = 0;
    answers = [503, 200];
    const result = await standIn.callTool({ name, arguments: args });
    answers = [];
    expect({ requests, isError: result.isError === true }).toEqual(retried ? { requests: 2, isError: false } : { requests: 1, isError: true });
  });
});
