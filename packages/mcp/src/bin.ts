#!/usr/bin/env node
/**
 * gateway-minds-mcp: the MCP server on stdio.
 *
 *   --token / GATEWAY_MINDS_TOKEN          the credential
 *   --base-url / GATEWAY_MINDS_URL         default http://127.0.0.1:8080
 *   --read-only / GATEWAY_MINDS_MCP_READ_ONLY=true   only read operations
 *   --tags a,b / GATEWAY_MINDS_MCP_TAGS    only operations with these tags
 *   --tools a,b / GATEWAY_MINDS_MCP_TOOLS  only these operation ids
 *   --dpop-key / GATEWAY_MINDS_DPOP_KEY    private JWK file for DPoP-bound agent tokens
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { importDpopKey } from '@gateway-minds/client';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from './server.js';
import { knownTags } from './tools.js';

const { values } = parseArgs({
  options: {
    token: { type: 'string' },
    'base-url': { type: 'string' },
    'read-only': { type: 'boolean' },
    tags: { type: 'string' },
    tools: { type: 'string' },
    'dpop-key': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(
    'gateway-minds-mcp [--token T] [--base-url URL] [--read-only] [--tags a,b] [--tools id,id] [--dpop-key file]\n' +
      `An MCP server on stdio whose tools are the operation ids. Tags: ${knownTags().join(', ')}.\n`,
  );
  process.exit(0);
}
const env = process.env;
const list = (value: string | undefined) => value?.split(',').map((s) => s.trim()).filter(Boolean);
const flag = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value);
const tags = list(values.tags ?? env.GATEWAY_MINDS_MCP_TAGS);
const unknownTags = tags?.filter((t) => !knownTags().some((k) => k.toLowerCase() === t.toLowerCase()));
if (unknownTags?.length) {
  process.stderr.write(`unknown tags: ${unknownTags.join(', ')} (known: ${knownTags().join(', ')})\n`);
  process.exit(2);
}

async function dpopKey(file: string | undefined) {
  if (!file) return undefined;
  return { key: await importDpopKey(JSON.parse(readFileSync(file, 'utf8'))) };
}

const token = values.token ?? env.GATEWAY_MINDS_TOKEN;
const dpop = await dpopKey(values['dpop-key'] ?? env.GATEWAY_MINDS_DPOP_KEY);
const server = createMcpServer({
  client: {
    baseUrl: values['base-url'] ?? env.GATEWAY_MINDS_URL ?? 'http://127.0.0.1:8080',
    ...(token ? { token } : {}),
    retry: { maxRetries: 2 },
    ...(dpop ? { dpop } : {}),
  },
  readOnly: values['read-only'] === true || flag(env.GATEWAY_MINDS_MCP_READ_ONLY),
  ...(tags ? { tags } : {}),
  ...(list(values.tools ?? env.GATEWAY_MINDS_MCP_TOOLS) ? { tools: list(values.tools ?? env.GATEWAY_MINDS_MCP_TOOLS)! } : {}),
});
await server.connect(new StdioServerTransport());
