// Telemetry in the UI: live GPU and host charts of a synthetic run on the fake nvidia-smi, the summary's GPU and energy
// figures, the GPU info panel and the run's environment; and a machine without nvidia-smi, which gets host charts only.
import path from 'node:path';
import type { Page } from '@playwright/test';
import { DATA_DIR, expect, REPO_ROOT, screenshot, test } from './serverFixture.js';

async function startSynthetic(page: Page, steps: number): Promise<void> {
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('workload-select').selectOption({ label: 'synthetic (builtin)' });
  await page.getByTestId('var-steps').fill(String(steps));
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-status')).toBeVisible();
}

function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

const SOME_POINTS = /^[1-9]\d*$/u;

test.describe('with the fake nvidia-smi', () => {
  test.use({
    serverEnv: {
      TUNING_BENCH_NVIDIA_SMI: path.join(REPO_ROOT, 'test/fixtures/fake-nvidia-smi'),
      // Per test: parallel tests must not share one pretend GPU.
      FAKE_NVIDIA_SMI_STATE: path.join(DATA_DIR, 'fake-nvidia-smi.json'),
    },
  });

  test('a synthetic run draws GPU and host telemetry live and ends with GPU, energy and host figures', async ({ page, server }) => {
    const consoleErrors = collectConsoleErrors(page);
    await page.goto(server.url);
    // Long enough (about 12 s) that a busy machine still draws live points before it ends.
    await startSynthetic(page, 1000);
    await page.getByTestId('charts-tab-telemetry').click();

    // While it runs: GPU samples come 4 times a second, host ones twice, drawn live.
    await expect(page.getByTestId('chart-gpu-util')).toHaveAttribute('data-points', SOME_POINTS);
    await expect(page.getByTestId('chart-gpu-power')).toHaveAttribute('data-points', SOME_POINTS);
    await expect(page.getByTestId('chart-host-cpu')).toHaveAttribute('data-points', SOME_POINTS);
    await expect(page.getByTestId('run-status')).toHaveText('running');
    await expect(page.getByTestId('no-gpu-note')).toHaveCount(0);
    const livePoints = Number(await page.getByTestId('chart-gpu-util').getAttribute('data-points'));
    await expect.poll(async () => Number(await page.getByTestId('chart-gpu-util').getAttribute('data-points'))).toBeGreaterThan(livePoints);
    await screenshot(page, 'telemetry-running');

    await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 60_000 });
    for (const chart of ['chart-gpu-vram', 'chart-gpu-temp', 'chart-gpu-clock', 'chart-run-cpu', 'chart-host-rss']) {
      await expect(page.getByTestId(chart)).toHaveAttribute('data-points', SOME_POINTS);
    }
    await expect(page.getByTestId('summary-gpu')).toContainText('%');
    const utilMean = Number(await page.getByTestId('summary-gpu').locator('dd').getAttribute('data-value'));
    expect(utilMean).toBeGreaterThan(0);
    await expect(page.getByTestId('summary-vram')).toContainText(/[\d,]+ MiB/u);
    await expect(page.getByTestId('summary-energy')).toContainText(/[\d,.]+ J/u);
    await expect(page.getByTestId('summary-energy')).toContainText('integrated power');
    await expect(page.getByTestId('summary-throttle')).toBeVisible();
    await expect(page.getByTestId('summary-host')).toContainText(/CPU [\d.]+ %/u);
    await expect(page.getByTestId('summary-host')).toContainText('RSS peak');

    const environment = page.getByTestId('run-fingerprint');
    await expect(environment).toContainText('NVIDIA GeForce RTX 4090');
    await environment.locator('summary').click();
    await expect(environment).toContainText('595.71.05');
    await screenshot(page, 'telemetry-summary');

    // Zooming one chart zooms them all; Reset zoom on any shows the whole run again.
    const utilChart = page.getByTestId('chart-gpu-util');
    await utilChart.locator('canvas').hover();
    await page.mouse.wheel(0, -400);
    await expect(page.getByTestId('chart-host-rss').getByTestId('reset-zoom')).toBeEnabled();
    await page.getByTestId('chart-host-rss').getByTestId('reset-zoom').click();
    await expect(utilChart.getByTestId('reset-zoom')).toBeDisabled();

    const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('chart-gpu-power').getByTestId('save-chart-png').click()]);
    expect(png.suggestedFilename()).toMatch(/^run-\d+-power\.png$/u);

    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'telemetry-summary-dark');

    await page.getByTestId('gpu-info-button').click();
    const info = page.getByTestId('gpu-info');
    await expect(info).toContainText('NVIDIA GeForce RTX 4090');
    await expect(page.getByTestId('gpu-driver')).toHaveText('595.71.05');
    await expect(info).toContainText('Power limit');
    await expect(info).toContainText('PCIe');
    await screenshot(page, 'gpu-info-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'gpu-info');
    expect(consoleErrors).toEqual([]);
  });
});

test.describe('without nvidia-smi', () => {
  test.use({ serverEnv: { TUNING_BENCH_NVIDIA_SMI: '', PATH: '/usr/bin:/bin' } });

  test('a run gets host charts only and says why; the GPU panel says there is no NVIDIA GPU', async ({ page, server }) => {
    const consoleErrors = collectConsoleErrors(page);
    await page.goto(server.url);
    await startSynthetic(page, 100);
    await page.getByTestId('charts-tab-telemetry').click();

    await expect(page.getByTestId('no-gpu-note')).toContainText('No GPU telemetry');
    await expect(page.getByTestId('no-gpu-note')).toContainText('host telemetry only');
    await expect(page.getByTestId('chart-host-cpu')).toHaveAttribute('data-points', SOME_POINTS);
    await expect(page.getByTestId('chart-gpu-util')).toHaveCount(0);
    await expect(page.getByTestId('telemetry-status')).toContainText('no nvidia-smi found');
    await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
    await expect(page.getByTestId('chart-host-rss')).toHaveAttribute('data-points', SOME_POINTS);
    await expect(page.getByTestId('chart-gpu-util')).toHaveCount(0);
    await expect(page.getByTestId('summary-host')).toContainText('RSS peak');
    await expect(page.getByTestId('run-fingerprint')).toContainText('no NVIDIA GPU');
    await screenshot(page, 'telemetry-host-only');

    await page.getByTestId('telemetry-status').locator('summary').click();
    await expect(page.getByTestId('telemetry-status').locator('li')).toHaveCount(1);
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'telemetry-host-only-dark');
    await page.getByTestId('telemetry-status').locator('summary').click();

    await page.getByTestId('gpu-info-button').click();
    await expect(page.getByTestId('gpu-info')).toContainText('No NVIDIA GPU found: host telemetry only');
    await screenshot(page, 'gpu-info-none-dark');

    // Why, kept with the run under its own label (not as an environment fact), for a page opened later.
    await page.emulateMedia({ colorScheme: 'light' });
    await page.reload();
    await page.getByTestId('run-fingerprint').locator('summary').click();
    await expect(page.locator('[data-testid="run-fingerprint"] [data-key="telemetryNotes"]')).toHaveText(/^Telemetry.*no nvidia-smi found/u);
    await screenshot(page, 'telemetry-host-only-environment');
    expect(consoleErrors).toEqual([]);
  });
});
