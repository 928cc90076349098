/**
 * One controller replica for scripts/bench/controller.ts: a MindsController on its own pool over the
 * bench's PostgreSQL schema, with the simulated host. Reports how many Minds it has reconciled (host
 * observations) every second; 'stop' stops the loop and closes the pool. It listens for changes
 * notified by others, as the service does.
 *
 * BENCH_CTL_LEGACY_MODULE names another controller module to run instead (the bench's "before").
 */
import { openDatabase } from '@gateway-minds/db';
import { MindsController, SimulatedHost, WorkListener, type ControllerOptions, type HostDriver } from '@gateway-minds/minds';
import { MINDS_PAGE_COST, migrationsDir } from '@gateway-minds/minds/internals';
import { createLogger } from '@gateway-minds/service-kit';

const settings = JSON.parse(process.env.BENCH_CTL_SETTINGS ?? '{}') as Omit<ControllerOptions, 'logger'> & { concurrency?: number };
const provisionMs = Number(process.env.BENCH_CTL_PROVISION_MS);
const db = await openDatabase({
  url: process.env.BENCH_CTL_DATABASE_URL!,
  schema: process.env.BENCH_CTL_SCHEMA!,
  migrationsDir,
  pageCost: MINDS_PAGE_COST,
  poolSize: (settings.concurrency ?? 1) + 2,
});
const simulated = new SimulatedHost(db, { provisionMs, stopMs: provisionMs });
let reconciles = 0;
const host: HostDriver = {
  apply: (spec) => simulated.apply(spec),
  observe: (mindId) => {
    reconciles++; // every reconcile observes the host once
    return simulated.observe(mindId);
  },
};
const legacy = process.env.BENCH_CTL_LEGACY_MODULE;
const Controller = (legacy ? ((await import(legacy)) as { MindsController: typeof MindsController }).MindsController : MindsController);
const controller = new Controller(db, host, { ...settings, logger: createLogger('bench-controller') });
controller.start();
// As the service wires it (service.ts): a change notified by any replica wakes this one. The "before" controller had none.
const wakeUps = legacy ? undefined : new WorkListener(process.env.BENCH_CTL_DATABASE_URL!, process.env.BENCH_CTL_SCHEMA!, () => controller.wake(), createLogger('bench-controller'));
await wakeUps?.start();
process.send?.({ ready: true });
setInterval(() => process.send?.({ reconciles }), 1000).unref();
process.on('message', (message) => {
  if (message !== 'stop') return;
  void (async () => {
    await wakeUps?.close();
    await controller.stop();
    await db.close();
    process.send?.({ reconciles, stopped: true }, () => process.exit(0));
  })();
});
