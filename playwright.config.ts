// Playwright: what a person sees, in Debian's Chromium against the headless server (and Electron where it exists).
import { defineConfig } from '@playwright/test';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Specs that measure or take pictures rather than check: run on demand by playwright.ondemand.config.ts. */
export const ON_DEMAND_SPECS = { bench: /compareBench\.spec\.ts$/u, screenshots: /readmeScreenshots\.spec\.ts$/u };

export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results/playwright',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    viewport: { width: 1400, height: 900 },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
    },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
  },
  // Checks only, so a plain `npx playwright test` is what `npm test` runs. The compare benchmark (minutes, no assertion
  // on time) and the README's pictures run from playwright.ondemand.config.ts: `npm run bench:ui`, `npm run screenshots`.
  testIgnore: [ON_DEMAND_SPECS.bench, ON_DEMAND_SPECS.screenshots],
});
