import type { Database } from '@gateway-minds/db';
import type { Logger } from '@gateway-minds/service-kit';
import type { AgentDirectory } from './agents.js';

/** What the handlers share. */
export interface Deps {
  db: Database;
  agents: AgentDirectory;
  logger: Logger;
  /** The region new Minds report. */
  region: string;
  /** The base_url of a Mind. */
  mindBaseUrl: (mindId: string) => string;
  /** A running Mind whose host has not reported for this long is reported `host_not_reporting` in usage. */
  hostReportStaleMs: number;
  /** Called after a desired state changed (create, resume, stop): wakes this process's controller. */
  desiredStateChanged: () => void;
}
