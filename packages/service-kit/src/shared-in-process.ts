import { createHash } from 'node:crypto';

/**
 * What one process builds from a document once and shares between the apps it builds from the same
 * one (a stack started again in the same process, every stack a test suite starts): by a hash of
 * what it is built from, as JSON, so that apps built from equal copies share it; the oldest goes
 * once more than `kept` are held.
 */
export function sharedInProcess<T>(kept: number): (from: unknown, build: () => T) => { value: T; shared: boolean } {
  const built = new Map<string, T>();
  return (from, build) => {
    // Hashed before the build: a build may change what it is given.
    const key = createHash('sha256').update(JSON.stringify(from)).digest('base64url');
    const found = built.get(key);
    if (found !== undefined) return { value: found, shared: true };
    const value = build();
    built.set(key, value);
    if (built.size > kept) built.delete(built.keys().next().value!);
    return { value, shared: false };
  };
}
