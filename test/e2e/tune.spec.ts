// Tune from a run's page: the knobs' ladder on the run's command as it is, to the table and the suggested diff.
import fs from 'node:fs';
import path from 'node:path';
import { assertTorch, skipTorchTests, TORCH_PYTHON } from '../helpers/torch.js';
import { expect, REPO_ROOT, screenshot, test } from './serverFixture.js';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/knobs/tune_mlp.py');

test.skip(skipTorchTests('tune.spec.ts'), 'TUNING_BENCH_SKIP_TORCH_TESTS=1 and no PyTorch here');
test.beforeAll(assertTorch);

test('Tune on a run keeps workers for a script that loads in its loop, and shows the change to make', async ({ page, server }) => {
  test.setTimeout(300_000);
  fs.copyFileSync(FIXTURE, path.join(server.dataDir, 'tune_mlp.py'));
  const loaderLine =
    fs
      .readFileSync(FIXTURE, 'utf8')
      .split('\n')
      .findIndex((line) => line.includes('torch.utils.data.DataLoader(')) + 1;

  await page.goto(server.url);
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('source-typed').check();
  await page.getByTestId('typed-command').fill(`${TORCH_PYTHON} tune_mlp.py --steps 40`);
  await page.getByTestId('typed-cwd').fill(server.dataDir);
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 60_000 });

  const tune = page.getByTestId('run-tune');
  await tune.locator('summary').click();
  await page.getByTestId('tune-steps').fill('40');
  // Others share this machine's CPU: waiting for it to be quiet could take the whole test.
  await page.getByTestId('tune-wait-idle').uncheck();
  await page.getByTestId('tune-start').click();
  await expect(page.getByTestId('tune-start')).toContainText('Tuning…');
  // A page that reloads mid-tune finds it again, still running (the engine keeps it), and follows it to its end.
  await page.reload();
  await expect(page.getByTestId('tune-status')).toContainText('running');
  await expect(page.getByTestId('tune-cancel')).toBeVisible();
  await expect(page.getByTestId('tune-status')).toHaveText('succeeded', { timeout: 240_000 });
  await expect(page.getByTestId('tune-table')).toBeVisible();
  const workers = page.getByTestId('tune-step-+workers=4');
  await expect(workers).toContainText('faster');
  await expect(workers.locator('td').last()).toHaveText('yes');
  await expect(page.getByTestId('tune-step-+autocast=bf16').locator('td').last()).toHaveText('no');
  await expect(page.getByTestId('tune-reason-+tf32=on')).toContainText('skipped: no CUDA device here');
  await expect(page.getByTestId('tune-total')).toContainText('workers=4 persistentWorkers=on');
  await expect(page.getByTestId('tune-suggestions')).toContainText(`tune_mlp.py:${loaderLine}: DataLoader(..., num_workers=4, persistent_workers=True)`);
  await expect(page.getByTestId('tune-patch')).toContainText('+        num_workers=4,');
  await expect(page.getByTestId('tune-patch')).toContainText('--- a/tune_mlp.py');
  // The report to keep or send: the page's own answer, as one Markdown file.
  const download = page.waitForEvent('download');
  await page.getByTestId('tune-export-md').click();
  const report = fs.readFileSync((await (await download).path())!, 'utf8');
  expect(report).toMatch(/^# Tuning results: /u);
  expect(report).toContain('Keep `workers=4 persistentWorkers=on`');
  expect(report).toContain('+        num_workers=4,');
  await tune.scrollIntoViewIfNeeded();
  await screenshot(page, 'tune-run-page');
});
