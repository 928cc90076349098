import { configDefaults, defineConfig } from 'vitest/config';

// The files that start turbo on a scratch copy of the repository: the `e2e` project (`npm run test:e2e`),
// which `npm test` runs after every workspace's fast tests.
const endToEnd = ['test/pipeline.test.ts'];

export default defineConfig({
  test: {
    // Files share their worker's modules (the contract's compiled validators, the services' apps):
    // importing them again for every file was a fifth of the suites' CPU time. No suite mocks modules.
    isolate: false,
    projects: [
      { extends: true, test: { name: 'fast', exclude: [...configDefaults.exclude, ...endToEnd], typecheck: { enabled: true } } },
      { extends: true, test: { name: 'e2e', include: endToEnd } },
    ],
  },
});
