/**
 * The usage report through the gateway when the window reaches past now. Interface, "Usage report
 * (Minds)": "Reported allocations and host telemetry carry explicit completeness. Unreported
 * telemetry is not zero." — so time that has not happened is not reported `complete: true` with
 * zeros. spec/DECISIONS.md, "A usage window reaching past now": the report is clamped to now and
 * says so (`to` is `measured_at`); a window that has not started is INVALID_QUERY.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '@gateway-minds/testkit';
import { caller, readyMind, waitForStatus, type Call } from '../src/http.js';

describe('a usage window reaching past now', () => {
  let stack: Stack;
  let call: Call;
  beforeAll(async () => {
    stack = await startStack();
    call = caller(stack.url, (await stack.issue('bridge_session')).token);
  });
  afterAll(() => stack?.close());

  const usage = (from: Date, to: Date) => call('GET', `/v1/minds/usage?from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`);

  it('is reported up to now, and says so: `to` is measured_at, never the requested future end', async () => {
    const mind = await readyMind(call, 'Sandbox usage ahead');
    const stopped = await call('POST', `/v1/minds/services/${mind.mind_id}/stop`, { body: { expected_generation: mind.desired_generation }, headers: { 'idempotency-key': randomUUID() } });
    expect(stopped.status).toBe(202);
    await waitForStatus(call, mind.mind_id, 'stopped');

    const asked = new Date(Date.now() + 3_600_000);
    const from = new Date(Date.now() - 3_600_000);
    const before = Date.now();
    const report = await usage(from, asked);
    const after = Date.now();
    expect(report.status).toBe(200);
    expect(report.body.from).toBe(from.toISOString());
    expect(report.body.to).toBe(report.body.measured_at);
    expect(Date.parse(report.body.to)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(report.body.to)).toBeLessThanOrEqual(after);
    expect(report.body.to).not.toBe(asked.toISOString());

    // The stopped Mind is complete over from..now: its storage is counted up to `to` only.
    const entry = report.body.minds.find((m: { mind_id: string }) => m.mind_id === mind.mind_id);
    expect(entry).toMatchObject({ complete: true, incomplete_reason: null, metering_compute: false });
    const storageSeconds = entry.storage_gb_seconds / 10; // F1: a 10 GB volume
    expect(storageSeconds).toBeLessThanOrEqual((Date.parse(report.body.to) - from.getTime()) / 1000);
  });

  it('a window already over is reported as asked', async () => {
    const to = new Date(Date.now() - 60_000);
    const report = await usage(new Date(to.getTime() - 3_600_000), to);
    expect(report.status).toBe(200);
    expect(report.body.to).toBe(to.toISOString());
  });

  it('a window that has not started is INVALID_QUERY (window_not_started)', async () => {
    const from = new Date(Date.now() + 3_600_000);
    const refused = await usage(from, new Date(from.getTime() + 3_600_000));
    expect({ status: refused.status, code: refused.body.error.code, reason: refused.body.error.reason }).toEqual({ status: 400, code: 'INVALID_QUERY', reason: 'window_not_started' });
  });
});
