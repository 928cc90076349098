/**
 * What the controller needs from the machinery that runs Minds. A real
 * implementation talks to a host API; SimulatedHost (simulated-host.ts) fakes
 * one with configurable delays.
 */

import type { Schemas } from '@gateway-minds/contract';

/** Profile, vCPUs, memory and volume size (the contract's MindCapacity). */
export type HostCapacity = Schemas['MindCapacity'];

/** What the host is asked to make true for one Mind at one generation. */
export interface HostSpec {
  mindId: string;
  volumeId: string;
  generation: number;
  state: 'running' | 'stopped';
  capacity: HostCapacity;
}

export interface HostObservation {
  /**
   * pending: being provisioned or started (not serving); running; stopped (volume
   * retained); failed (the last action failed); absent (the host has no instance).
   * While a stop is in progress the host still reports running.
   */
  state: 'pending' | 'running' | 'stopped' | 'failed' | 'absent';
  /** The generation the host last finished applying (0 when none). */
  generation: number;
  /** The capacity the instance runs with, or null before the host first reports one. */
  capacity: HostCapacity | null;
  /** Host-confirmed start of the current run (state running), else null. */
  runningSince: Date | null;
  /** Host-confirmed end of the last run, else null. */
  stoppedAt: Date | null;
  /** Host-confirmed creation of the retained volume, else null. */
  volumeCreatedAt: Date | null;
  /** Error code of a failed action, else null. */
  errorCode: string | null;
  /** CPU seconds the Mind has used since it was created (telemetry), up to reportedAt. */
  cpuSecondsTotal: number;
  reportedAt: Date;
}

/** The host did not answer: its state is unknown (the Mind becomes `uncertain`). */
export class HostUnreachableError extends Error {
  constructor(message = 'the host did not answer') {
    super(message);
    this.name = 'HostUnreachableError';
  }
}

export interface HostDriver {
  /**
   * Asks the host to bring the Mind to `spec` and returns without waiting for it.
   * Idempotent per generation: asking again for a generation already asked changes
   * nothing. The controller asks once per generation and never retries on its own.
   */
  apply(spec: HostSpec): Promise<void>;
  /** What the host reports for the Mind now; throws HostUnreachableError when it cannot tell. */
  observe(mindId: string): Promise<HostObservation>;
}
