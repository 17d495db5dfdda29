// Vitest: unit and integration tests of the engine under plain Node (real pty, real SQLite files).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/reliability/**/*.test.ts'],
    // The soak runs alone afterwards (vitest.soak.config.ts, `npm run test:soak`).
    exclude: ['test/reliability/soak.test.ts'],
    environment: 'node',
    // node-pty and better-sqlite3 are native: separate processes are safer than worker threads.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
