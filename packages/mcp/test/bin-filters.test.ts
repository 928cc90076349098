/**
 * The gateway-minds-mcp bin refuses a configuration that names what the spec does not have (an
 * unknown tool id or tag, filters leaving no tool, an unknown flag) before it starts serving: one line
 * on stderr, exit code 2. Without this a client would get a server with zero tools and no reason.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openapiDocument } from '@gateway-minds/contract/document';
import { bin } from './support/mcp.js';

/** The built bin with stdin closed: a server that started would wait on it, a refusal or --version exits at once. */
const start = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH ?? '', ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });

describe('a filter naming nothing the spec has fails before the server starts', () => {

  it.each([
    ['--tools with an unknown id', ['--tools', 'nope,minds_getMind'], {}, /^gateway-minds-mcp: unknown tools: nope \(/],
    ['GATEWAY_MINDS_MCP_TOOLS with unknown ids', [], { GATEWAY_MINDS_MCP_TOOLS: 'zzz,yyy' }, /^gateway-minds-mcp: unknown tools: zzz, yyy \(/],
    ['--tags with an unknown tag', ['--tags', 'Minds,Nope'], {}, /^gateway-minds-mcp: unknown tags: Nope \(known: Gateway, /],
    ['filters that together leave no tool', ['--read-only', '--tools', 'minds_stopMind'], {}, /leave no tools/],
    ['an unknown flag', ['--frob'], {}, /^gateway-minds-mcp: unknown flag --frob/],
  ] as const)('%s: exit 2 and one line naming it', async (_name, args, env, says) => {
    const { code, stderr } = await start([...args], env);
    expect(code).toBe(2);
    expect(stderr).toMatch(says);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

// README, "Use it from npm": "a package's version is the API version it speaks (the spec's info.version)".
describe('--version', () => {
  it("prints the API version the server speaks, the spec's info.version, and exits 0 without serving", async () => {
    const { code, stdout } = await start(['--version']);
    expect({ code, stdout }).toEqual({ code: 0, stdout: `${openapiDocument.info.version}\n` });
  });
});
