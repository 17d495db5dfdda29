// Playwright runs that are not checks, each asked for by its project: `bench` (the compare view's benchmark, from
// `npm run bench:ui` and `npm run bench compare`) and `screenshots` (the README's pictures, `npm run screenshots`).
import { defineConfig } from '@playwright/test';
import checks, { ON_DEMAND_SPECS } from './playwright.config.js';

export default defineConfig({
  ...checks,
  testIgnore: [],
  projects: [
    { name: 'bench', testMatch: ON_DEMAND_SPECS.bench },
    { name: 'screenshots', testMatch: ON_DEMAND_SPECS.screenshots },
  ],
});
