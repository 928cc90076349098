/**
 * The published programs as a user runs them: the built `gateway-minds` CLI and `gateway-minds-mcp`
 * server, each a child process, found through their packages as an installed dependency is.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const require = createRequire(import.meta.url);
/** A package's built `dist/bin.js`, beside the entry point its exports name. */
const builtBin = (name: string) => join(dirname(require.resolve(name)), 'bin.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

function parse(stdout: string): unknown {
  try {
    return stdout.trim() ? JSON.parse(stdout) : undefined;
  } catch {
    return undefined;
  }
}

/** The built `gateway-minds` binary as a child process (stdout is a pipe). */
export function spawnCli(argv: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const bin = builtBin('@gateway-minds/cli');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...argv], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, json: parse(stdout) }));
  });
}

/** The built `gateway-minds-mcp` as a child process, through the SDK's own client over stdio. */
export async function connectMcp(args: string[] = [], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [builtBin('@gateway-minds/mcp'), ...args], env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'gateway-minds-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** The JSON a tool answered (its text content). */
export function parsed(result: Awaited<ReturnType<Client['callTool']>>): any {
  const [first] = result.content as { type: string; text: string }[];
  return JSON.parse(first!.text);
}
