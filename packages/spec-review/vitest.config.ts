import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    isolate: false, // modules load once per worker, not per file: README "Tests"
    typecheck: { enabled: true, checker: 'tsgo' },
  },
});
