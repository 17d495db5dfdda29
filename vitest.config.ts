// Vitest: unit and integration tests of the engine under plain Node (real pty, real SQLite files).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/reliability/**/*.test.ts'],
    environment: 'node',
    // node-pty and better-sqlite3 are native: separate processes are safer than worker threads.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
