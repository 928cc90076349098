import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Remembers which Database's transaction callback the current async call chain is in, so that a
 * call to that Database (instead of `tx`) inside the callback fails loudly. On PGlite such a call
 * would wait for the transaction to finish, which waits for the call: a deadlock. On PostgreSQL it
 * would run on another pooled connection, outside the transaction.
 */
const current = new AsyncLocalStorage<{ owner: object; open: boolean }>();

/**
 * A development check, off when NODE_ENV=production, as response validation is. On Node 20 an
 * AsyncLocalStorage in use turns on promise hooks for every promise of the process: they cost the
 * Minds service 8% of its CPU per request and the gateway 5% (scripts/bench, interleaved A/B).
 * Tests and development run with it, so a misuse on a tested path fails there.
 */
const checked = process.env.NODE_ENV !== 'production';

export function runInTransactionScope<T>(owner: object, fn: () => Promise<T>): Promise<T> {
  if (!checked) return fn();
  const scope = { owner, open: true };
  // `open` is cleared when fn settles: work that fn left running in the background may use the Database afterwards.
  return current.run(scope, fn).finally(() => {
    scope.open = false;
  });
}

export function assertNotInTransaction(owner: object): void {
  if (!checked) return;
  const scope = current.getStore();
  if (scope?.open && scope.owner === owner) {
    throw new Error('Database called inside its own transaction callback: use the tx argument instead');
  }
}

const isolationLevels = new Set(['read committed', 'repeatable read', 'serializable']);

/** The isolation level as SQL, checked at run time because it is spliced into the statement. */
export function isolationSql(level: string | undefined): string {
  const chosen = level ?? 'read committed';
  if (!isolationLevels.has(chosen)) throw new Error(`unknown isolation level: ${chosen}`);
  return chosen.toUpperCase();
}
