import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Remembers which Database's transaction callback the current async call chain is in, so that a
 * call to that Database (instead of `tx`) inside the callback fails loudly. On PGlite such a call
 * would wait for the transaction to finish, which waits for the call: a deadlock. On PostgreSQL it
 * would run on another pooled connection, outside the transaction.
 */
const current = new AsyncLocalStorage<{ owner: object; open: boolean }>();

export function runInTransactionScope<T>(owner: object, fn: () => Promise<T>): Promise<T> {
  const scope = { owner, open: true };
  // `open` is cleared when fn settles: work that fn left running in the background may use the Database afterwards.
  return current.run(scope, fn).finally(() => {
    scope.open = false;
  });
}

export function assertNotInTransaction(owner: object): void {
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
