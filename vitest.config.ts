import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Integration tests talk to real processes; a hung one must fail, not stall the suite.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // 2-core machines: keep workers to the cores we have.
    maxWorkers: 2,
  },
});
