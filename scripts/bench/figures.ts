/** The small statistics the benchmark scripts share. */
import { readdirSync, readFileSync } from 'node:fs';

/** The middle value (the upper one of an even count). */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The value at fraction p of values already sorted ascending. */
/**
 * The items in the order one round runs them: as given in even rounds, reversed in odd ones, so
 * that a host speeding up or slowing down within a round does not always favour the same items.
 */
export const inRoundOrder = <T>(items: readonly T[], round: number): T[] => (round % 2 ? [...items].reverse() : [...items]);

export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** CPU milliseconds (user + system) a process has used so far, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid: number | 'self'): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The part of cpuMs spent in the kernel (system calls: sockets, loopback, files). */
export function systemCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[12]) * 10;
}

/**
 * CPU milliseconds used so far by every PostgreSQL server process on this machine (the
 * backends serve the stack's pool, so a load window's difference is the database's share).
 */
export function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuMs(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}
