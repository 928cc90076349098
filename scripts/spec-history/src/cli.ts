/**
 * npm run spec:review -- --base <git ref> [options]: the review of src/review-command.ts, on this
 * process's arguments, directory, environment and output.
 */
import { runReview } from './review-command.js';

process.exitCode = await runReview(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
