// The first-run view of a fresh database: what the app does, the GPU it found (or plainly none), the synthetic workload
// one click away, and the ways to New run, New sweep, Import log and GPU control; gone once a run exists.
import path from 'node:path';
import type { Page } from '@playwright/test';
import { DATA_DIR, expect, REPO_ROOT, screenshot, test } from './serverFixture.js';

const FAKE_NVIDIA_SMI = path.join(REPO_ROOT, 'test/fixtures/fake-nvidia-smi');

function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

test.describe('without a GPU', () => {
  // A path where nothing is: the engine's own probe says why there is no GPU.
  test.use({ serverEnv: { TUNING_BENCH_NVIDIA_SMI: path.join(DATA_DIR, 'no-such-dir', 'nvidia-smi') } });

  test('says there is no GPU, and its button runs the synthetic workload to success', async ({ page, server }) => {
    const consoleErrors = collectConsoleErrors(page);
    await page.goto(server.url);
    const welcome = page.getByTestId('first-run');
    await expect(welcome).toBeVisible();
    await expect(welcome.getByRole('heading', { name: 'Welcome to Tuning Bench' })).toBeVisible();
    await expect(page.getByTestId('first-run-no-gpu')).toContainText(/^No NVIDIA GPU found: .+ — runs still record host telemetry \(CPU, memory\)$/u);
    await expect(page.getByTestId('first-run-gpu')).toHaveCount(0);
    await expect(page.getByTestId('workload-select')).toHaveCount(0);
    await screenshot(page, 'welcome-no-gpu');

    await page.getByTestId('first-run-try').click();
    await expect(page).toHaveURL(/#\/runs\/\d+$/u);
    await expect(page.getByTestId('run-command')).toContainText('--steps 300');
    await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
    await expect(page.getByTestId('terminal')).toContainText('step 300: loss');
    await expect(page.getByTestId('runs-list').locator('[data-testid^="run-row-"]')).toHaveCount(1);

    // With a run stored, the bare address is New run again, after a reload too.
    await page.goto(server.url);
    await expect(page.getByTestId('workload-select')).toBeVisible();
    await expect(page.getByTestId('first-run')).toHaveCount(0);
    expect(consoleErrors).toEqual([]);
  });
});

test.describe('with the fake nvidia-smi', () => {
  test.use({ serverEnv: { TUNING_BENCH_NVIDIA_SMI: FAKE_NVIDIA_SMI, FAKE_NVIDIA_SMI_STATE: path.join(DATA_DIR, 'gpu-state.json') } });

  test('names the GPU and its driver, and links to New run, New sweep, Import log and GPU control', async ({ page, server }) => {
    const consoleErrors = collectConsoleErrors(page);
    await page.goto(server.url);
    await expect(page.getByTestId('first-run-gpu-name')).toHaveText('GPU 0 · NVIDIA GeForce RTX 4090');
    await expect(page.getByTestId('first-run-gpu-driver')).toHaveText(/^\d+\.\d+/u);
    await expect(page.getByTestId('first-run-gpu')).toContainText('450 W');
    await expect(page.getByTestId('first-run-no-gpu')).toHaveCount(0);
    await screenshot(page, 'welcome');

    await page.getByTestId('first-run-new-run').click();
    await expect(page).toHaveURL(/#\/new$/u);
    await expect(page.getByTestId('workload-select')).toBeVisible();
    // Still no run: the bare address keeps the welcome.
    await page.goBack();
    await expect(page.getByTestId('first-run')).toBeVisible();

    await page.getByTestId('first-run-new-sweep').click();
    await expect(page).toHaveURL(/#\/sweeps\/new$/u);
    await page.goBack();

    await page.getByTestId('first-run-gpu-control').click();
    await expect(page).toHaveURL(/#\/gpu$/u);
    await expect(page.getByTestId('gpu-control-name')).toContainText('NVIDIA GeForce RTX 4090');
    await page.goBack();

    await page.getByTestId('first-run-import-log').click();
    await expect(page.getByRole('dialog', { name: 'Import a training log' })).toBeVisible();
    await page.getByTestId('import-text').fill('iter 10: loss 2.4049, time 929.71ms, mfu 16.59%\niter 20: loss 2.3001, time 930.02ms, mfu 16.61%\n');
    await page.getByTestId('import-name').fill('pasted on the welcome');
    await page.getByTestId('import-submit').click();
    await expect(page).toHaveURL(/#\/runs\/\d+$/u);
    await expect(page.locator('.run-title h2')).toContainText('pasted on the welcome');
    expect(consoleErrors).toEqual([]);
  });
});
