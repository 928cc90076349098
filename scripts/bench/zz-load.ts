import autocannon from 'autocannon';
import { operationPath } from '@gateway-minds/contract';
import { readyMind, startStack } from './stack.js';
const stack = await startStack({ databaseUrl: process.env.BENCH_DATABASE_URL || undefined });
try {
  const token = (await stack.issue('bridge_session')).token;
  const url = `${stack.gatewayUrl}${operationPath('minds_getMind', { mind_id: await readyMind(stack, token) })}`;
  console.log('PIDS', stack.gateway.pid, stack.minds.pid);
  const r = await autocannon({ url, connections: 10, duration: Number(process.env.DUR ?? 20), headers: { authorization: `Bearer ${token}` } });
  console.log(Math.round(r.requests.average), 'req/s', r.requests.total);
} finally { await stack.close(); }
