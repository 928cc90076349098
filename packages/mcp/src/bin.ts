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
 *   --version                              the API version it speaks (the spec's info.version)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { importDpopKey } from '@gateway-minds/client';
import { isOperationId, operationIds } from '@gateway-minds/contract';
import { openapiDocument } from '@gateway-minds/contract/document';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from './server.js';
import { knownTags, selectOperations } from './tools.js';

/** One line on stderr and exit 2: a configuration mistake is said before the server starts, never as a stack trace. */
function usageError(message: string): never {
  process.stderr.write(`gateway-minds-mcp: ${message}\n`);
  process.exit(2);
}

let parsed: { values: Record<string, string | boolean | undefined> };
try {
  parsed = parseArgs({
    options: {
      token: { type: 'string' },
      'base-url': { type: 'string' },
      'read-only': { type: 'boolean' },
      tags: { type: 'string' },
      tools: { type: 'string' },
      'dpop-key': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'V' },
    },
  });
} catch (error) {
  const unknownFlag = /^Unknown option '([^']+)'/.exec((error as Error).message)?.[1];
  usageError(unknownFlag ? `unknown flag ${unknownFlag} (--help lists them)` : (error as Error).message.split(/\.\s/)[0]!);
}
const values = parsed.values as { token?: string; 'base-url'?: string; 'read-only'?: boolean; tags?: string; tools?: string; 'dpop-key'?: string; help?: boolean; version?: boolean };
if (values.version) {
  process.stdout.write(`${openapiDocument.info.version}\n`);
  process.exit(0);
}
if (values.help) {
  process.stdout.write(
    'gateway-minds-mcp [--token T] [--base-url URL] [--read-only] [--tags a,b] [--tools id,id] [--dpop-key file] [--version]\n' +
      `An MCP server on stdio whose tools are the operation ids. Tags: ${knownTags().join(', ')}.\n` +
      `Tools: ${operationIds.join(', ')}.\n`,
  );
  process.exit(0);
}
const env = process.env;
const list = (value: string | undefined) => value?.split(',').map((s) => s.trim()).filter(Boolean);
const flag = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value);
const tags = list(values.tags ?? env.GATEWAY_MINDS_MCP_TAGS);
const unknownTags = tags?.filter((t) => !knownTags().some((k) => k.toLowerCase() === t.toLowerCase()));
if (unknownTags?.length) usageError(`unknown tags: ${unknownTags.join(', ')} (known: ${knownTags().join(', ')})`);
const tools = list(values.tools ?? env.GATEWAY_MINDS_MCP_TOOLS);
const unknownTools = tools?.filter((id) => !isOperationId(id));
if (unknownTools?.length) usageError(`unknown tools: ${unknownTools.join(', ')} (tools are the spec's operation ids; --help lists them)`);
const readOnly = values['read-only'] === true || flag(env.GATEWAY_MINDS_MCP_READ_ONLY);
// Filters that together leave nothing (say, --read-only with only write tools) are a mistake, not a server worth starting.
if (selectOperations({ readOnly, ...(tags ? { tags } : {}), ...(tools ? { tools } : {}) }).length === 0) {
  usageError('these filters leave no tools (--read-only, --tags and --tools all apply)');
}

async function dpopKey(file: string | undefined) {
  if (!file) return undefined;
  try {
    return { key: await importDpopKey(JSON.parse(readFileSync(file, 'utf8'))) };
  } catch (error) {
    usageError(`--dpop-key ${file}: ${(error as Error).message}`);
  }
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
  readOnly,
  ...(tags ? { tags } : {}),
  ...(tools ? { tools } : {}),
});
await server.connect(new StdioServerTransport());
