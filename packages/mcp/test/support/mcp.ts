import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const bin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

/** The built `gateway-minds-mcp` as a child process, through the SDK's own client over stdio. */
export async function connect(args: string[] = [], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, ...args], env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'gateway-minds-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** The JSON a tool answered (its text content). */
export function parsed(result: Awaited<ReturnType<Client['callTool']>>): any {
  const [first] = result.content as { type: string; text: string }[];
  return JSON.parse(first!.text);
}
