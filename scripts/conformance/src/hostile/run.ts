/**
 * Sends hostile requests and judges each answer: the documented code with its
 * catalog status, an ErrorEnvelope that validates, the request id in both the
 * header and the body, never a 5xx.
 */
import type { OperationId } from '@gateway-minds/contract';
import { pool, type HttpClient, type RawAnswer } from './client.js';
import type { HostileCase } from './requests.js';
import { envelopeProblems, operationSpec } from './spec.js';

export interface Verdict {
  case: HostileCase;
  status: number;
  code: string | undefined;
  problems: string[];
}

export function judge(hostile: HostileCase, answer: RawAnswer | Error): Verdict {
  if (answer instanceof Error) return { case: hostile, status: 0, code: undefined, problems: [`no answer: ${answer.message}`] };
  const problems: string[] = [];
  const code = answer.json?.error?.code as string | undefined;
  if (answer.status >= 500) problems.push(`server error ${answer.status} ${code}`);
  if (!code || !(hostile.expected as string[]).includes(code)) problems.push(`expected ${hostile.expected.join(' or ')}, got ${answer.status} ${code ?? answer.text.slice(0, 120)}`);
  if (answer.status < 400) problems.push(`accepted with ${answer.status}`);
  else {
    problems.push(...envelopeProblems(operationSpec(hostile.operation), answer.status, answer.json));
    if (answer.headers['x-request-id'] !== answer.json?.error?.request_id) problems.push('X-Request-Id differs from error.request_id');
    if (!String(answer.headers['content-type']).startsWith('application/json')) problems.push(`content-type ${answer.headers['content-type']}`);
  }
  return { case: hostile, status: answer.status, code, problems };
}

export async function sendAll(client: HttpClient, cases: HostileCase[], concurrency: number): Promise<Verdict[]> {
  return pool(cases, concurrency, async (hostile) => judge(hostile, await client.send(hostile.request).catch((error: Error) => error)));
}

export interface Tally {
  byOperation: Map<OperationId, { requests: number; refused: number; byCode: Map<string, number> }>;
  byCategory: Map<string, number>;
  serverErrors: number;
  failures: Verdict[];
}

export function tally(verdicts: Verdict[]): Tally {
  const out: Tally = { byOperation: new Map(), byCategory: new Map(), serverErrors: 0, failures: [] };
  for (const verdict of verdicts) {
    const entry = out.byOperation.get(verdict.case.operation) ?? { requests: 0, refused: 0, byCode: new Map() };
    entry.requests++;
    if (verdict.status >= 400 && verdict.status < 500) entry.refused++;
    entry.byCode.set(verdict.code ?? String(verdict.status), (entry.byCode.get(verdict.code ?? String(verdict.status)) ?? 0) + 1);
    out.byOperation.set(verdict.case.operation, entry);
    const group = verdict.case.category;
    out.byCategory.set(group, (out.byCategory.get(group) ?? 0) + 1);
    if (verdict.status >= 500) out.serverErrors++;
    if (verdict.problems.length) out.failures.push(verdict);
  }
  return out;
}

/** One line per failure: the case, what came back, and the request as sent (truncated). */
export function describeFailure(verdict: Verdict): string {
  const { request } = verdict.case;
  const body = request.body === undefined ? '' : ` body=${(Buffer.isBuffer(request.body) ? `<${request.body.length} bytes>` : JSON.stringify(request.body.slice(0, 200)))}`;
  const headers = Object.entries(request.headers ?? {})
    .filter(([name]) => name !== 'authorization')
    .map(([name, value]) => `${name}: ${JSON.stringify(value).slice(0, 80)}`)
    .join(', ');
  return `${verdict.case.operation} ${verdict.case.category} @${verdict.case.location}: ${verdict.problems.join('; ')} | ${request.method} ${request.path.slice(0, 160)} {${headers}}${body}`;
}

export function report(result: Tally, seconds: number): string {
  const lines: string[] = [];
  const width = Math.max(...[...result.byOperation.keys()].map((k) => k.length));
  lines.push(`${'operation'.padEnd(width)}  requests  codes`);
  let total = 0;
  for (const [operation, entry] of result.byOperation) {
    total += entry.requests;
    const codes = [...entry.byCode].sort((a, b) => b[1] - a[1]).map(([code, n]) => `${code} ${n}`).join(', ');
    lines.push(`${operation.padEnd(width)}  ${String(entry.requests).padStart(8)}  ${codes}`);
  }
  lines.push(`${'TOTAL'.padEnd(width)}  ${String(total).padStart(8)}  in ${seconds.toFixed(1)} s (${Math.round(total / seconds)} req/s), 5xx: ${result.serverErrors}, failures: ${result.failures.length}`);
  lines.push('by category: ' + [...result.byCategory].sort((a, b) => a[0].localeCompare(b[0])).map(([category, n]) => `${category} ${n}`).join(', '));
  return lines.join('\n');
}
