// The README's pictures, in the light theme at 1400x900 on the fake RTX 4090: the first-run view, GPU control, a
// finished ladder sweep and its comparison. Always taken (so the views stay fit to be shown); written to
// docs/screenshots only with UPDATE_README_SCREENSHOTS=1, so an ordinary test run leaves the tracked files alone.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from '@playwright/test';
import { DATA_DIR, expect, REPO_ROOT, screenshot, test, type HeadlessServer } from './serverFixture.js';

const execFileAsync = promisify(execFile);
const FAKE_NVIDIA_SMI = path.join(REPO_ROOT, 'test/fixtures/fake-nvidia-smi');
const FAKE_STATE = 'fake-nvidia-smi.json';
const README_SCREENSHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');
const UPDATE_README = process.env.UPDATE_README_SCREENSHOTS === '1';
/** Eight runs of 60 synthetic steps with a second of start-up each at most: generous. */
const SWEEP_TIMEOUT_MS = 90_000;

/** Into test-results/screenshots as readme-NAME.png always, and over docs/screenshots/NAME.png when asked. */
async function readmeScreenshot(page: Page, name: string): Promise<void> {
  await screenshot(page, `readme-${name}`);
  if (!UPDATE_README) return;
  fs.mkdirSync(README_SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(README_SCREENSHOTS, `${name}.png`) });
}

interface SweepJson {
  id: number;
  status: string;
  configs: Array<{ name: string; runIds: number[] }>;
}

/** The CLI on the server's own database (SQLite in WAL mode lets both write), on the same pretend GPU. */
async function cliSweep(server: HeadlessServer, args: readonly string[]): Promise<SweepJson> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [path.join(REPO_ROOT, 'bin/tuning-bench.js'), '--db', server.dbPath, 'sweep', '--workload', 'synthetic', '--no-wait-idle', ...args, '--json'],
    {
      cwd: server.dataDir,
      env: { ...process.env, TUNING_BENCH_NVIDIA_SMI: FAKE_NVIDIA_SMI, FAKE_NVIDIA_SMI_STATE: path.join(server.dataDir, FAKE_STATE) },
      timeout: SWEEP_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return JSON.parse(stdout) as SweepJson;
}

function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

test.use({
  viewport: { width: 1400, height: 900 },
  colorScheme: 'light',
  serverEnv: { TUNING_BENCH_NVIDIA_SMI: FAKE_NVIDIA_SMI, FAKE_NVIDIA_SMI_STATE: path.join(DATA_DIR, FAKE_STATE) },
});

test('README screenshots: the first-run view, GPU control, a finished ladder sweep and its comparison', async ({ page, server }) => {
  test.setTimeout(SWEEP_TIMEOUT_MS + 60_000);
  const consoleErrors = collectConsoleErrors(page);

  await page.goto(server.url);
  await expect(page.getByTestId('first-run-gpu-name')).toHaveText('GPU 0 · NVIDIA GeForce RTX 4090');
  await expect(page.getByTestId('first-run-gpu-driver')).toHaveText(/^\d+\.\d+/u);
  await expect(page.getByTestId('first-run-try')).toBeEnabled();
  await readmeScreenshot(page, 'welcome');

  await page.getByTestId('gpu-control-button').click();
  await expect(page.getByTestId('gpu-control-name')).toContainText('NVIDIA GeForce RTX 4090');
  await expect(page.getByTestId('gpu-state-power')).toContainText('450 W');
  await expect(page.getByTestId('gpu-manual-none')).toBeVisible();
  // Not caught mid-refresh ("Reading…").
  await expect(page.getByTestId('gpu-control-refresh')).toHaveText('Refresh');
  await readmeScreenshot(page, 'gpu-control');

  // The ladder: baseline, then +batch=16, +workers=4 and +amp=on, each on top of the one before.
  const sweep = await cliSweep(server, [
    '--set',
    'steps=60',
    '--vary',
    'batch=8,16',
    '--vary',
    'workers=0,4',
    '--vary',
    'amp=off,on',
    '--plan',
    'ladder',
    '--repeats',
    '2',
  ]);
  expect(sweep.status).toBe('succeeded');
  expect(sweep.configs.map((config) => config.name)).toEqual(['baseline', '+batch=16', '+workers=4', '+amp=on']);

  await page.goto(`${server.url}#/sweeps/${sweep.id}`);
  await expect(page.getByTestId('sweep-status')).toHaveText('succeeded');
  await expect(page.getByTestId('sweep-matrix').locator('tbody tr')).toHaveCount(4);
  await expect(page.getByTestId('speedup-0')).toHaveText('baseline');
  for (const index of [1, 2, 3]) await expect(page.getByTestId(`speedup-${index}`)).toHaveAttribute('data-value', /^\d/u);
  await readmeScreenshot(page, 'sweep');

  await page.getByTestId('compare-sweep').click();
  await expect(page).toHaveURL(new RegExp(`#/compare\\?sweeps=${sweep.id}$`, 'u'));
  await expect(page.getByTestId('compare-table').locator('tbody tr')).toHaveCount(4);
  await expect(page.getByTestId('compare-row-3').getByTestId('row-verdict')).toHaveText('faster');
  await expect(page.getByTestId('compare-charts')).toHaveAttribute('data-ready', 'true');
  await expect(page.getByTestId('compare-chart-throughput')).toHaveAttribute('data-lines', '8');
  // At 1400x900 the view's controls and the whole table (every column, the gate's too) fit from the top of the main area;
  // the charts follow below the table's notes.
  await page.getByTestId('compare-view').evaluate((view) => view.closest('main')?.scrollTo(0, 0));
  await expect(page.getByTestId('compare-table')).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId('compare-chart-throughput')).toBeInViewport();
  await expect(page.getByTestId('compare-chart-loss')).toBeInViewport();
  await readmeScreenshot(page, 'compare');

  expect(consoleErrors).toEqual([]);
});
