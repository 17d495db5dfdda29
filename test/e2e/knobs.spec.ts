// The Knobs section of New run and New sweep: a knob chosen runs an unmodified PyTorch script with it, and the run's
// page says which knobs were in force, where in the script each applied, and why the others were not.
import fs from 'node:fs';
import path from 'node:path';
import { assertTorch, skipTorchTests, TORCH_PYTHON } from '../helpers/torch.js';
import { expect, REPO_ROOT, screenshot, test } from './serverFixture.js';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/knobs/slow_loader.py');

test.skip(skipTorchTests('knobs.spec.ts'), 'TUNING_BENCH_SKIP_TORCH_TESTS=1 and no PyTorch here');
test.beforeAll(assertTorch);

test('New run applies the knobs chosen, and the run says where each applied or why not', async ({ page, server }) => {
  test.setTimeout(120_000);
  fs.copyFileSync(FIXTURE, path.join(server.dataDir, 'slow_loader.py'));
  const loaderLine =
    fs
      .readFileSync(FIXTURE, 'utf8')
      .split('\n')
      .findIndex((line) => line.includes('DataLoader(dataset, batch_size=None)')) + 1;

  await page.goto(server.url);
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('source-typed').check();
  await page.getByTestId('typed-command').fill(`${TORCH_PYTHON} slow_loader.py --steps 16 --sleep-ms 20`);
  await page.getByTestId('typed-cwd').fill(server.dataDir);
  const knobs = page.getByTestId('knob-fields');
  await knobs.locator('summary').click();
  // Every knob with its one-line explanation.
  await expect(knobs.locator('.knob-row')).toHaveCount(11);
  await expect(page.getByTestId('knob-row-workers')).toContainText('DataLoader workers for loaders the script makes with none');
  await expect(page.getByTestId('knob-row-tf32')).toContainText('CUDA only.');
  await page.getByTestId('knob-workers').fill('0');
  await expect(page.getByTestId('knob-workers-error')).toHaveText('workers: "0" is not one of its values (1-64|off)');
  await page.getByTestId('knob-workers').fill('4');
  await expect(page.getByTestId('knob-workers-error')).toHaveCount(0);
  await page.getByTestId('knob-autocast').selectOption('bf16');
  await page.getByTestId('knob-tf32').check();
  await expect(knobs.locator('summary')).toContainText('3 set');
  await knobs.scrollIntoViewIfNeeded();
  await screenshot(page, 'knobs-new-run');

  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 60_000 });
  await expect(page.getByTestId('run-config')).toContainText('knob.workers=4');
  await expect(page.getByTestId('run-knobs-in-force')).toHaveText('in force: workers=4 autocast=bf16');
  await expect(page.getByTestId('run-knob-workers')).toContainText(`applied slow_loader.py:${loaderLine} num_workers=4 (was 0)`);
  await expect(page.getByTestId('run-knob-autocast')).toContainText("torch.autocast('cpu', dtype=torch.bfloat16)");
  await expect(page.getByTestId('run-knob-tf32')).toContainText('skipped');
  await expect(page.getByTestId('run-knob-tf32')).toContainText('no CUDA device here');
  await page.getByTestId('run-knobs').scrollIntoViewIfNeeded();
  await screenshot(page, 'knobs-run-page');

  // Edit and run again starts from the same knobs, to change one.
  await page.getByTestId('edit-run-again').click();
  await expect(page.getByTestId('copied-from')).toContainText('A copy of run #1');
  await expect(page.getByTestId('knob-workers')).toHaveValue('4');
  await expect(page.getByTestId('knob-autocast')).toHaveValue('bf16');
  await expect(page.getByTestId('knob-tf32')).toBeChecked();
  await expect(page.getByTestId('knob-fields').locator('summary')).toContainText('3 set');
});

test('New sweep varies a knob like any variable', async ({ page, server }) => {
  fs.copyFileSync(FIXTURE, path.join(server.dataDir, 'slow_loader.py'));
  await page.goto(server.url);
  await page.getByTestId('new-sweep-button').click();
  await page.getByTestId('sweep-source-typed').check();
  await page.getByTestId('sweep-typed-command').fill(`${TORCH_PYTHON} slow_loader.py --steps {steps}`);
  await page.getByTestId('sweep-typed-cwd').fill(server.dataDir);
  await page.getByTestId('vary-values-0').fill('8');
  const knobs = page.getByTestId('knob-fields');
  await knobs.locator('summary').click();
  await page.getByTestId('knob-autocast').fill('off,bf8');
  await expect(page.getByTestId('knob-autocast-error')).toHaveText('autocast: "bf8" is not one of its values (bf16|fp16|off)');
  await expect(page.getByTestId('sweep-start-note')).toContainText('knob autocast: "bf8"');
  await page.getByTestId('knob-autocast').fill('off,bf16');
  await page.getByTestId('knob-workers').fill('2');
  await page.getByTestId('sweep-preview').click();
  const plan = page.getByTestId('plan-table');
  await expect(plan).toContainText('knob.autocast=bf16');
  await expect(page.getByTestId('plan-run-count')).toContainText('2 configs');
  await knobs.scrollIntoViewIfNeeded();
  await screenshot(page, 'knobs-new-sweep');
});
