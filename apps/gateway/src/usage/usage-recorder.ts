/**
 * Counts the requests the gateway answers per organization, service and day,
 * for GET /v1/usage. Counted in memory and flushed in one upsert per second,
 * so the hot path never waits on a database write (a crash loses at most the
 * last second of counts: usage is operational, not billing).
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

export class UsageRecorder {
  private pending = new Map<string, Tally>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    flushEveryMs = 1000,
  ) {
    this.timer = setInterval(() => void this.flush(), flushEveryMs);
    this.timer.unref();
  }

  record(organizationId: string, service: string, status: number, at = new Date()): void {
    const day = at.toISOString().slice(0, 10);
    const key = `${organizationId}\u0000${service}\u0000${day}`;
    const tally = this.pending.get(key) ?? { organizationId, service, day, requests: 0, clientErrors: 0, serverErrors: 0, lastRequestAt: at };
    tally.requests++;
    if (status >= 400 && status < 500) tally.clientErrors++;
    if (status >= 500) tally.serverErrors++;
    if (at > tally.lastRequestAt) tally.lastRequestAt = at;
    this.pending.set(key, tally);
  }

  /** Writes what has been counted; concurrent calls queue behind each other. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = [...this.pending.values()];
      this.pending = new Map();
      for (const t of batch) {
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
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
