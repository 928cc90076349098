#!/usr/bin/env node
/**
 * gateway-admin: issue and revoke credentials, create organizations and agents,
 * against a running gateway's admin API. Prints JSON.
 *
 *   gateway-admin issue --kind bridge_session            a signed-in session with a Sandbox selection
 *   gateway-admin issue --kind api_key --scopes minds:read
 *   gateway-admin issue --kind agent_token --dpop-jkt <thumbprint>
 *   gateway-admin revoke <credential id>
 *   gateway-admin org create --name Acme
 *   gateway-admin agent create --org <organization id>
 *
 * issue flags: --kind, --org, --project, --scopes a,b, --no-sandbox, --derived,
 * --agent, --dpop-jkt, --expires-in <seconds>, --selection-expires-in <seconds>
 * (negative: already expired).
 *
 * Where: the data directory (DATA_DIR, default the repository's ./data, as npm start)
 * holds the admin token (admin-token; ADMIN_TOKEN_FILE or ADMIN_TOKEN override) and
 * the running gateway's admin listener (admin-url, written at start). --url <admin URL>
 * (or ADMIN_URL) names the gateway instead: any gateway of a deployment whose gateways
 * share one admin token (ADMIN_TOKEN) and one database answers alike.
 * Exit codes: 0 done, 1 the admin API refused or did not answer, 2 a usage error.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { credentialSchemes } from '@gateway-minds/contract';
import { adminUrlFile, isJwkThumbprint, JWK_THUMBPRINT_RULE, knownScopes, unknownScopes } from './admin-rules.js';

const usage = readFileSync(new URL(import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.startsWith(' * ') || l === ' *')
  .map((l) => l.slice(3))
  .join('\n')
  .trim();

/** One line on stderr and the exit code: no stack trace for a person's mistake. */
function fail(code: 1 | 2, message: string): never {
  process.stderr.write(`gateway-admin: ${message}${code === 2 ? ' (gateway-admin --help shows the usage)' : ''}\n`);
  process.exit(code);
}

const options = {
  kind: { type: 'string' },
  org: { type: 'string' },
  project: { type: 'string' },
  scopes: { type: 'string' },
  'no-sandbox': { type: 'boolean' },
  derived: { type: 'boolean' },
  agent: { type: 'string' },
  'dpop-jkt': { type: 'string' },
  'expires-in': { type: 'string' },
  'selection-expires-in': { type: 'string' },
  name: { type: 'string' },
  url: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * `--flag value` as `--flag=value` for the flags that take a value: a value may begin with '-' (a
 * base64url thumbprint does one time in 64, a negative number always), which node's parser would
 * otherwise refuse as ambiguous.
 */
function joinedValues(args: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i]!.startsWith('--') ? args[i]!.slice(2) : undefined;
    const takesValue = name !== undefined && (options as Record<string, { type: string }>)[name]?.type === 'string';
    if (takesValue && i + 1 < args.length) joined.push(`${args[i]}=${args[++i]}`);
    else joined.push(args[i]!);
  }
  return joined;
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({ strict: true, allowPositionals: true, options, args: joinedValues(process.argv.slice(2)) });
}
try {
  parsed = parse();
} catch (error) {
  // node's own wording runs on about quoting positionals; the first sentence is what a person needs.
  const unknownFlag = /^Unknown option '([^']+)'/.exec((error as Error).message)?.[1];
  fail(2, unknownFlag ? `unknown flag ${unknownFlag}` : (error as Error).message.split(/\.\s/)[0]!);
}
const { values, positionals } = parsed;

if (values.help || positionals.length === 0) {
  (values.help ? process.stdout : process.stderr).write(`${usage}\n`);
  process.exit(values.help ? 0 : 2);
}

/** The request a command line asks for, checked before anything is sent. */
function requestOf(): { path: string; body: unknown } {
  const [command, subject, ...extra] = positionals;
  if (extra.length) fail(2, `unexpected argument ${extra[0]}`);
  if (command === 'revoke') {
    if (!subject) fail(2, 'revoke needs a credential id');
    return { path: `/admin/credentials/${encodeURIComponent(subject)}/revoke`, body: {} };
  }
  if (command === 'org' && subject === 'create') return { path: '/admin/organizations', body: { name: values.name } };
  if (command === 'agent' && subject === 'create') {
    if (!values.org) fail(2, 'agent create needs --org <organization id>');
    return { path: '/admin/agents', body: { organization_id: values.org } };
  }
  if (command !== 'issue') fail(2, `unknown command ${[command, subject].filter(Boolean).join(' ')}`);
  if (subject) fail(2, `unexpected argument ${subject}`);

  const kind = values.kind ?? 'bridge_session';
  if (!Object.hasOwn(credentialSchemes, kind)) fail(2, `--kind must be one of ${Object.keys(credentialSchemes).join(', ')}; got ${kind}`);
  const scopes = values.scopes?.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = scopes ? unknownScopes(scopes) : [];
  if (unknown.length) fail(2, `--scopes: unknown ${unknown.join(', ')} (the contract knows ${knownScopes().join(', ')})`);
  if (values['dpop-jkt'] !== undefined && !isJwkThumbprint(values['dpop-jkt'])) fail(2, `--dpop-jkt must be ${JWK_THUMBPRINT_RULE}; got ${values['dpop-jkt']}`);
  const seconds = (flag: 'expires-in' | 'selection-expires-in') => {
    const raw = values[flag];
    if (raw === undefined) return undefined;
    const value = Number(raw);
    // Negative issues a credential that has already expired (for trying the refusal).
    if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(value)) fail(2, `--${flag} takes a whole number of seconds; got ${raw}`);
    return value;
  };
  return {
    path: '/admin/credentials',
    body: {
      kind,
      organization_id: values.org,
      project_id: values.project,
      scopes,
      sandbox: !values['no-sandbox'],
      original_session: !values.derived,
      agent_id: values.agent,
      dpop_jkt: values['dpop-jkt'],
      expires_in_seconds: seconds('expires-in'),
      selection_expires_in_seconds: seconds('selection-expires-in'),
    },
  };
}
const request = requestOf();

// The stack's data directory: npm start's default is ./data at the repository root (apps/stack),
// which is four levels above this file (apps/gateway/dist/admin/cli.js).
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const dataDir = resolve(process.env.DATA_DIR ?? join(repoRoot, 'data'));
const tokenFile = resolve(process.env.ADMIN_TOKEN_FILE ?? join(dataDir, 'admin-token'));
const adminToken = process.env.ADMIN_TOKEN?.trim() || (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined);
if (!adminToken) fail(1, `no admin token: ${tokenFile} does not exist. Start the stack (npm start) with this DATA_DIR, or set ADMIN_TOKEN.`);
const urlFile = adminUrlFile(tokenFile);
const recordedUrl = existsSync(urlFile) ? readFileSync(urlFile, 'utf8').trim() : undefined;
// Never a default port: the token goes only where it was named, or where this data directory's gateway said it listens.
const namedUrl = values.url ?? (process.env.ADMIN_URL || undefined);
const adminUrl = (namedUrl ?? recordedUrl)?.replace(/\/+$/, '');
if (!adminUrl) fail(1, `no running gateway found: ${urlFile} does not exist (a running gateway writes it). Start the stack (npm start), or name a gateway's admin listener with --url or ADMIN_URL.`);
if (namedUrl !== undefined && !URL.canParse(adminUrl)) fail(2, `--url / ADMIN_URL must be a URL such as http://127.0.0.1:8081; got ${namedUrl}`);

let response: Response;
try {
  response = await fetch(adminUrl + request.path, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(request.body),
  });
} catch {
  fail(1, `cannot reach the gateway's admin API at ${adminUrl}${values.url !== undefined ? ' (--url)' : process.env.ADMIN_URL ? ' (ADMIN_URL)' : ` (from ${urlFile})`}: is the stack running (npm start)?`);
}
const text = await response.text();
if (!response.ok) {
  let message = text;
  try {
    message = (JSON.parse(text) as { error?: string }).error ?? text;
  } catch {
    // not JSON: print it as it came
  }
  fail(1, `${response.status}: ${message}`);
}
process.stdout.write(`${JSON.stringify(JSON.parse(text), null, process.stdout.isTTY ? 2 : 0)}\n`);
