import { configDefaults, defineConfig } from 'vitest/config';

// The files that start the review CLI with git and redocly: the `e2e` project (`npm run test:e2e`),
// which `npm test` runs after every workspace's fast tests.
const endToEnd = ['test/changelog.test.ts', 'test/cli.test.ts'];

export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    // The CLI tests run git, redocly lint and the bundler for real.
    testTimeout: 180_000, // a review spawns tsx, git and redocly; on a shared 2-core machine two of them can take a minute
    projects: [
      { extends: true, test: { name: 'fast', exclude: [...configDefaults.exclude, ...endToEnd], typecheck: { enabled: true } } },
      { extends: true, test: { name: 'e2e', include: endToEnd } },
    ],
  },
});
