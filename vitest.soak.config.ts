// Vitest: the one-minute soak of serve under load (test/reliability/soak.test.ts), run on its own after the other
// tests: it measures how long the engine leaves a run's terminal unread, which other tests sharing the cores would skew.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/reliability/soak.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 240_000,
  },
});
