/**
 * The MCP client configuration the README gives works from any directory today: the client starts
 * the server with its own working directory (here the OS temp directory, outside the repository),
 * so nothing may depend on the repository's node_modules/.bin or on a published package.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { specOperations } from '@gateway-minds/client/inputs';
import { describe, expect, it } from 'vitest';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const PLACEHOLDER = '/absolute/path/to/gateway-minds';

interface ServerConfig {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The `mcpServers` entry of the README's JSON block in "## Client, CLI and MCP server". */
function readmeConfig(): ServerConfig {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('Client, CLI and MCP server\n'))!;
  const block = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('the README has no JSON MCP client configuration');
  const servers = (JSON.parse(block) as { mcpServers: Record<string, ServerConfig> }).mcpServers;
  return Object.values(servers)[0]!;
}

describe('README MCP client configuration', () => {
  it('names no command that needs the repository as working directory or a published package', () => {
    const config = readmeConfig();
    expect(config.command).toBe('node');
    expect(config.args[0]).toBe(`${PLACEHOLDER}/packages/mcp/dist/bin.js`);
  });

  it('started from outside the repository, the server lists the tools', async () => {
    const config = readmeConfig();
    const args = config.args.map((a) => a.replace(PLACEHOLDER, repoRoot));
    const transport = new StdioClientTransport({
      command: config.command === 'node' ? process.execPath : config.command,
      args,
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? '', ...config.env, GATEWAY_MINDS_URL: 'http://127.0.0.1:9' },
    });
    const client = new Client({ name: 'readme-config-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const readOnly = [...specOperations()].filter(([, s]) => s.method === 'get' || s.operation['x-read-only'] === true).map(([id]) => id);
      expect(args).toContain('--read-only');
      expect(tools.map((t) => t.name).sort()).toEqual(readOnly.sort());
    } finally {
      await client.close();
    }
  });
});
