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
 * ADMIN_URL (default http://127.0.0.1:8081) and the admin token (ADMIN_TOKEN, or
 * the file DATA_DIR/admin-token, DATA_DIR defaulting to ./data) say where.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
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
    help: { type: 'boolean', short: 'h' },
  },
});

const usage = readFileSync(new URL(import.meta.url), 'utf8').split('\n').filter((l) => l.startsWith(' * ')).map((l) => l.slice(3)).join('\n');
if (values.help || positionals.length === 0) {
  console.log(usage);
  process.exit(values.help ? 0 : 2);
}

const adminUrl = (process.env.ADMIN_URL ?? 'http://127.0.0.1:8081').replace(/\/+$/, '');
const tokenFile = join(resolve(process.env.DATA_DIR ?? 'data'), 'admin-token');
const adminToken = process.env.ADMIN_TOKEN ?? (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined);
if (!adminToken) {
  console.error(`No admin token: set ADMIN_TOKEN or start the gateway once so that ${tokenFile} exists.`);
  process.exit(2);
}

async function post(path: string, body: unknown): Promise<void> {
  let response: Response;
  try {
    response = await fetch(adminUrl + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    console.error(`Cannot reach the gateway's admin API at ${adminUrl}: is the stack running (npm start)?`);
    process.exit(1);
  }
  const text = await response.text();
  if (!response.ok) {
    console.error(`${response.status}: ${text}`);
    process.exit(1);
  }
  console.log(JSON.stringify(JSON.parse(text), null, process.stdout.isTTY ? 2 : 0));
}

const seconds = (value: string | undefined) => (value === undefined ? undefined : Number(value));
const [command, subject] = positionals;
if (command === 'issue') {
  await post('/admin/credentials', {
    kind: values.kind ?? 'bridge_session',
    organization_id: values.org,
    project_id: values.project,
    scopes: values.scopes?.split(',').filter(Boolean),
    sandbox: !values['no-sandbox'],
    original_session: !values.derived,
    agent_id: values.agent,
    dpop_jkt: values['dpop-jkt'],
    expires_in_seconds: seconds(values['expires-in']),
    selection_expires_in_seconds: seconds(values['selection-expires-in']),
  });
} else if (command === 'revoke' && subject) {
  await post(`/admin/credentials/${encodeURIComponent(subject)}/revoke`, {});
} else if (command === 'org' && subject === 'create') {
  await post('/admin/organizations', { name: values.name });
} else if (command === 'agent' && subject === 'create') {
  await post('/admin/agents', { organization_id: values.org });
} else {
  console.error(usage);
  process.exit(2);
}
