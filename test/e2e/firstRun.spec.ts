// A person's first run: create a workload for the synthetic trainer, run it, watch it, find it again after a reload.
import path from 'node:path';
import { expect, REPO_ROOT, screenshot, test } from './serverFixture.js';

const SYNTHETIC_DIR = path.join(REPO_ROOT, 'resources/workloads/synthetic');

test('create a workload, run it, see its progress and status, reload and see the stored output', async ({ page, server }) => {
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await page.goto(server.url);
  // A fresh database opens on the first-run view; its New run link leads to the form.
  await page.getByTestId('first-run-new-run').click();
  await expect(page.getByTestId('workload-select')).toBeVisible();

  await page.getByTestId('new-workload-button').click();
  await page.getByTestId('workload-name').fill('synthetic small');
  await page.getByTestId('workload-cwd').fill(SYNTHETIC_DIR);
  await page.getByTestId('workload-command').fill(['node', 'train.js', '--batch-size', '{batch}', '--steps', '{steps}'].join('\n'));
  await page.getByTestId('workload-variables').fill('batch=8\nsteps=150');
  await screenshot(page, 'new-workload');
  await page.getByTestId('save-workload').click();

  await expect(page.getByTestId('var-batch')).toHaveValue('8');
  await page.getByTestId('var-batch').fill('16');
  await expect(page.getByTestId('command-preview')).toContainText('node train.js --batch-size 16 --steps 150');
  await screenshot(page, 'new-run');
  await page.getByTestId('start-run').click();

  const terminal = page.getByTestId('terminal');
  await expect(terminal).toContainText('synthetic: batch=16');
  await expect(terminal).toContainText(/train\s+\d+%\|/u);
  await screenshot(page, 'run-view-running');
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  await expect(terminal).toContainText('step 150: loss');
  await expect(terminal).toContainText('eval: loss');
  const row = page.getByTestId('runs-list').locator('[data-testid^="run-row-"]').first();
  await expect(row.getByTestId('status-badge')).toHaveText('succeeded');
  await screenshot(page, 'run-view');

  await page.reload();
  await row.click();
  await expect(page.getByTestId('run-status')).toHaveText('succeeded');
  await expect(page.getByTestId('terminal')).toContainText('step 150: loss');
  await expect(page.getByTestId('terminal')).toContainText('eval: loss');
  await screenshot(page, 'run-view-after-reload');
  expect(consoleErrors).toEqual([]);
});

test('stop a running training from the UI', async ({ page, server }) => {
  await page.goto(server.url);
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('workload-select').selectOption({ label: 'synthetic (builtin)' });
  await page.getByTestId('var-steps').fill('100000');
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('terminal')).toContainText('step 10: loss');
  await page.getByTestId('stop-run').click();
  await expect(page.getByTestId('run-status')).toHaveText('stopped', { timeout: 15_000 });
  await expect(page.getByTestId('terminal')).toContainText('interrupted at step');
  await screenshot(page, 'run-stopped');
});

test('the server refuses a page without the token', async ({ page, server }) => {
  const response = await page.goto(server.origin);
  expect(response?.status()).toBe(401);
  await expect(page.locator('body')).toContainText('token');
});
