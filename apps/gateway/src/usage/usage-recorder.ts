/**
 * Counts the requests the gateway answers per organization, service and day,
 * for GET /v1/usage. Counted in memory and flushed in one upsert per second,
 * so the hot path never waits on a database write (a crash loses at most the
 * last second of counts: usage is operational, not billing). A write that
 * fails (the database lost for a moment) keeps its counts for the next flush;
 * the one whose statement was cut may have been applied, and is counted again.
 */
import type { Database } from '@gateway-minds/db';

interface Tally {
  organizationId: string;
  service: string;
  day: string;
  requests: number;
  clientErrors: number;
  serverErrors: number;
  lastRequestAt: Date;
}

const keyOf = (organizationId: string, service: string, day: string) => `${organizationId}\u0000${service}\u0000${day}`;

export class UsageRecorder {
  private pending = new Map<string, Tally>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    flushEveryMs = 1000,
  ) {
    // A failed background flush must not become an unhandled rejection (which ends the process).
    this.timer = setInterval(() => this.flush().catch((error: Error) => process.emitWarning(`usage counts not written yet: ${error.message}`)), flushEveryMs);
    this.timer.unref();
  }

  record(organizationId: string, service: string, status: number, at = new Date()): void {
    const day = at.toISOString().slice(0, 10);
    const key = keyOf(organizationId, service, day);
    const tally = this.pending.get(key) ?? { organizationId, service, day, requests: 0, clientErrors: 0, serverErrors: 0, lastRequestAt: at };
    tally.requests++;
    if (status >= 400 && status < 500) tally.clientErrors++;
    if (status >= 500) tally.serverErrors++;
    if (at > tally.lastRequestAt) tally.lastRequestAt = at;
    this.pending.set(key, tally);
  }

  /**
   * Writes what has been counted; concurrent calls queue behind each other. Rejects when the
   * database fails; the queue stays usable and the unwritten counts wait for the next flush.
   */
  flush(): Promise<void> {
    const run = this.flushing.then(() => this.write());
    this.flushing = run.catch(() => {});
    return run;
  }

  private async write(): Promise<void> {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    for (const [index, t] of batch.entries()) {
      try {
        await this.db.query(
          `insert into request_counts (organization_id, service, day, requests, client_errors, server_errors, last_request_at)
           values ($1, $2, $3, $4, $5, $6, $7)
           on conflict (organization_id, service, day) do update set
             requests = request_counts.requests + excluded.requests,
             client_errors = request_counts.client_errors + excluded.client_errors,
             server_errors = request_counts.server_errors + excluded.server_errors,
             last_request_at = greatest(request_counts.last_request_at, excluded.last_request_at)`,
          [t.organizationId, t.service, t.day, t.requests, t.clientErrors, t.serverErrors, t.lastRequestAt],
        );
      } catch (error) {
        for (const unwritten of batch.slice(index)) this.merge(unwritten);
        throw error;
      }
    }
  }

  /** Adds a tally back to the pending counts (a failed write). */
  private merge(t: Tally): void {
    const key = keyOf(t.organizationId, t.service, t.day);
    const pending = this.pending.get(key);
    if (!pending) return void this.pending.set(key, t);
    pending.requests += t.requests;
    pending.clientErrors += t.clientErrors;
    pending.serverErrors += t.serverErrors;
    if (t.lastRequestAt > pending.lastRequestAt) pending.lastRequestAt = t.lastRequestAt;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
