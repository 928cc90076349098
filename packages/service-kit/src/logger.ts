import { pino, type Logger } from 'pino';

/** Structured JSON logs on stdout; LOG_LEVEL overrides (silent in tests by default). */
export function createLogger(service: string): Logger {
  const level = process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info');
  return pino({ name: service, level, base: { service } });
}

export type { Logger };
