/**
 * The write stream the durability test kills the Minds process in the middle
 * of, through the gateway: memory inserts into "memory" Minds and stop/resume
 * with Idempotency-Keys on "lifecycle" Minds, from several workers at once.
 * Every attempt goes into a ledger with its outcome as the caller saw it:
 * acknowledged (2xx), refused (a 4xx: nothing written), or unknown (a 5xx or
 * no answer: the outcome is unknown, as the contract says of UPSTREAM_*).
 */
import { randomUUID } from 'node:crypto';
import type { HttpClient, RawAnswer } from '../hostile/client.js';

export type Outcome = 'acknowledged' | 'refused' | 'unknown';

export interface InsertAttempt {
  mindId: string;
  event: { id: string; content: string; timestamp: string; event_type: string; summary: string | null; tags: string[] };
  outcome: Outcome;
  status: number;
  storageId?: string;
}

export interface LifecycleAttempt {
  mindId: string;
  action: 'stop' | 'resume';
  key: string;
  body: { expected_generation: number; wake_reason?: string };
  outcome: Outcome;
  status: number;
  /** The acknowledged answer, as sent. */
  text?: string;
  json?: any;
}

export interface LifecycleMind {
  mindId: string;
  /** desired_generation and desired_state as last acknowledged. */
  generation: number;
  state: 'running' | 'stopped';
  busy: boolean;
  /** An attempt with an unknown outcome is pending: no further lifecycle call until it is resolved. */
  uncertain: boolean;
}

export interface Ledger {
  inserts: InsertAttempt[];
  lifecycle: LifecycleAttempt[];
}

const FILLER = ['\u00fcn\u00efc\u00f8d\u00e9', '\u{1F331}', 'durable', '\u05e9\u05dc\u05d5\u05dd', '\u4f60\u597d', 'write-ahead', '\u00e9t\u00e9', 'kill -9'];

/** A unique, checkable event: its content names it, with 0.1 to 3 KB of multi-byte text. */
export function newEvent(cycle: number, n: number): InsertAttempt['event'] {
  const id = randomUUID();
  const words = Array.from({ length: 10 + ((n * 37) % 300) }, (_, i) => FILLER[(n + i) % FILLER.length]);
  return {
    id,
    content: `durability ${cycle}.${n} ${id} ${words.join(' ')}`,
    timestamp: new Date().toISOString(),
    event_type: 'Knowledge',
    summary: n % 3 === 0 ? null : `event ${cycle}.${n} \u{1F9EA}`,
    tags: ['durability', `cycle-${cycle}`],
  };
}

export interface StreamOptions {
  cycle: number;
  memoryMinds: string[];
  lifecycleMinds: LifecycleMind[];
  concurrency: number;
  /** Share of lifecycle calls, 0..1. */
  lifecycleShare: number;
  /** Resolves when the stream should stop. */
  until: Promise<unknown>;
}

const unknownStatus = (answer: RawAnswer | Error) => answer instanceof Error || answer.status >= 500;

/** Runs the stream until `until` resolves; appends every attempt to the ledger. */
export async function runStream(client: HttpClient, token: string, ledger: Ledger, options: StreamOptions): Promise<void> {
  let stop = false;
  void options.until.then(() => (stop = true));
  let n = ledger.inserts.length;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  async function insert(): Promise<void> {
    const mindId = options.memoryMinds[n % options.memoryMinds.length]!;
    const event = newEvent(options.cycle, n++);
    const attempt: InsertAttempt = { mindId, event, outcome: 'unknown', status: 0 };
    ledger.inserts.push(attempt);
    const answer = await client
      .send({ method: 'POST', path: `/v1/minds/memory/episodic?mind=${mindId}`, headers, body: JSON.stringify({ event }) })
      .catch((error: Error) => error);
    if (!(answer instanceof Error)) attempt.status = answer.status;
    if (unknownStatus(answer)) return;
    const ok = answer as RawAnswer;
    if (ok.status === 200) {
      attempt.outcome = 'acknowledged';
      attempt.storageId = ok.json.id;
    } else {
      attempt.outcome = 'refused';
    }
  }

  async function lifecycle(mind: LifecycleMind): Promise<void> {
    mind.busy = true;
    const action = mind.state === 'running' ? 'stop' : 'resume';
    const body = action === 'resume' ? { expected_generation: mind.generation, wake_reason: 'manual' } : { expected_generation: mind.generation };
    const attempt: LifecycleAttempt = { mindId: mind.mindId, action, key: randomUUID(), body, outcome: 'unknown', status: 0 };
    ledger.lifecycle.push(attempt);
    const answer = await client
      .send({ method: 'POST', path: `/v1/minds/services/${mind.mindId}/${action}`, headers: { ...headers, 'idempotency-key': attempt.key }, body: JSON.stringify(body) })
      .catch((error: Error) => error);
    if (!(answer instanceof Error)) attempt.status = answer.status;
    if (unknownStatus(answer)) {
      mind.uncertain = true;
    } else {
      const ok = answer as RawAnswer;
      if (ok.status === 202) {
        attempt.outcome = 'acknowledged';
        attempt.text = ok.text;
        attempt.json = ok.json;
        mind.generation = ok.json.desired_generation;
        mind.state = ok.json.desired_state;
      } else {
        attempt.outcome = 'refused';
        throw new Error(`${action} refused: ${ok.status} ${ok.text}`);
      }
    }
    mind.busy = false;
  }

  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, worker) => {
      let turn = 0;
      while (!stop) {
        const free = options.lifecycleMinds.filter((m) => !m.busy && !m.uncertain);
        const wantLifecycle = free.length > 0 && ((turn++ * 7919 + worker * 104729) % 100) / 100 < options.lifecycleShare;
        if (wantLifecycle) await lifecycle(free[worker % free.length]!);
        else await insert();
      }
    }),
  );
}

export function countOutcomes<T extends { outcome: Outcome }>(attempts: T[]): Record<Outcome, number> {
  const out: Record<Outcome, number> = { acknowledged: 0, refused: 0, unknown: 0 };
  for (const attempt of attempts) out[attempt.outcome]++;
  return out;
}
