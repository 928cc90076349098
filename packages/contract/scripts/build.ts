/**
 * Builds the contract package from spec/ (contract-builder.ts says what that is).
 *
 *   tsx scripts/build.ts           once, from a clean dist (`npm run build`, turbo). A dist that a
 *                                  warm builder already built from exactly these inputs is kept.
 *   tsx scripts/build.ts --serve   kept warm for `npm run dev`: each `{ id, build: true }` message on
 *                                  the IPC channel lints, bundles, generates and compiles, and is
 *                                  answered `{ id, outcome }` (problems with file and line, and each
 *                                  step's time), after `{ id, bundled: true }` once dist/openapi.json
 *                                  holds the new document (before the compile); `{ id, snapshot: name }` keeps a copy of the
 *                                  outputs, `{ id, restore: name }` puts one back.
 */
import { ContractBuilder, formatProblem, inputsDigest, isCurrent, type BuildOutcome } from './contract-builder.js';

const builder = new ContractBuilder();

if (process.argv.includes('--serve')) {
  if (!process.send) throw new Error('--serve answers over an IPC channel: start it with one (child_process.fork or stdio "ipc")');
  // A reply the loop can no longer take (it is gone) ends this process too.
  const reply = (message: object) => process.send!(message, (error: Error | null) => error && process.exit(0));
  // One build at a time, in the order asked.
  let queue = Promise.resolve();
  process.on('message', (message: { id: number; build?: true; snapshot?: string; restore?: string }) => {
    queue = queue.then(async () => {
      if (message.snapshot) {
        await builder.snapshot(message.snapshot);
        reply({ id: message.id });
      } else if (message.restore) {
        reply({ id: message.id, restored: await builder.restore(message.restore) });
      } else if (message.build) {
        let outcome: BuildOutcome;
        try {
          outcome = await builder.build({ lint: true, clean: false, onBundled: () => reply({ id: message.id, bundled: true }) });
        } catch (error) {
          outcome = { ok: false, stage: 'bundle', problems: [], message: error instanceof Error ? (error.stack ?? error.message) : String(error), ms: {} };
        }
        // Problems travel as the lines a terminal shows (file:line:column, level, rule, message).
        reply({ id: message.id, outcome: { ...outcome, problems: outcome.problems.map((p) => ({ severity: p.severity, line: formatProblem(p) })) } });
      }
    });
  });
  // The loop that asked is gone (Ctrl-C, or it crashed): so is the reason to stay.
  process.on('disconnect', () => process.exit(0));
  reply({ ready: true });
} else {
  const digest = await inputsDigest();
  if (await isCurrent(digest)) {
    console.log('contract: dist is already built from these inputs (by npm run dev); nothing to do');
  } else {
    const outcome = await builder.build({ lint: false, clean: true });
    if (!outcome.ok) {
      console.error(`contract: ${outcome.message}`);
      for (const problem of outcome.problems) console.error(`- ${formatProblem(problem)}`);
      process.exit(1);
    }
    const steps = Object.entries(outcome.ms).map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`).join(', ');
    console.log(`contract: ${outcome.operations} operations, ${outcome.errorCodes} error codes -> dist (${steps})`);
  }
}
