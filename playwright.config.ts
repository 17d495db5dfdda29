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
  // `npm test` runs the checks only. The compare benchmark (minutes, no assertion on time) runs from
  // `npm run bench compare`, and the README's pictures are taken again by `npm run screenshots`.
  projects: [
    { name: 'e2e', testIgnore: [/compareBench\.spec\.ts$/u, /readmeScreenshots\.spec\.ts$/u] },
    { name: 'bench', testMatch: /compareBench\.spec\.ts$/u },
    { name: 'screenshots', testMatch: /readmeScreenshots\.spec\.ts$/u },
  ],
});
