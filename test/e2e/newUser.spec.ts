// A new user's first hour (issue 28), walked in the browser: a typed command, a format taught by regex with the charts
// updating, an epoch-restarting log imported with progress, any metric plotted, a run repeated with one change, an
// export read back; the keyboard, a 900 px window and the header, each looked at in a screenshot.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { DATA_DIR, expect, screenshot, test } from './serverFixture.js';

// The engine stands where the person started it: New run's directory starts there.
test.use({ serverEnv: { INIT_CWD: DATA_DIR } });

/** A plain step format the parsers know: the time after the loss is the step's time (issue 28, item 1). */
const KNOWN_FORMAT_SCRIPT = 'for i in $(seq 1 {steps}); do echo "step $i: loss 2.$((99 - i)), 45 ms"; done; echo flags: {amp}';
/** A format no parser knows: `l=` is no loss to them, `tm=` no time. */
const UNKNOWN_FORMAT_SCRIPT = 'for i in $(seq 1 {steps}); do echo "[ep 1 | it $i/{steps}] l=2.$((90 - i)) tm=45"; done';

/** Two epochs whose step counter starts again at 1, stamped 40 ms apart as a job runner would, with a grad norm beside the loss. */
function epochLog(): string {
  const lines: string[] = [];
  const start = Date.UTC(2024, 4, 2, 13, 45, 0);
  for (let epoch = 1; epoch <= 2; epoch++) {
    for (let step = 1; step <= 100; step++) {
      const at = new Date(start + ((epoch - 1) * 100 + step) * 40).toISOString();
      const loss = (3 - (epoch - 1) * 0.6 - step * 0.005).toFixed(4);
      lines.push(`${at} epoch ${epoch} step ${step}: loss ${loss}, grad_norm ${(0.5 + step / 400).toFixed(3)}, 40 ms`);
    }
  }
  return `${lines.join('\n')}\n`;
}

async function openNewRun(page: Page): Promise<void> {
  await page.getByTestId('new-run-button').click();
  await expect(page.getByRole('region', { name: 'New run' })).toBeVisible();
}

async function runTyped(page: Page, script: string, values: Record<string, string>): Promise<void> {
  await openNewRun(page);
  await page.getByTestId('source-typed').check();
  await page.getByTestId('typed-command').fill(script);
  for (const [name, value] of Object.entries(values)) await page.getByTestId(`var-${name}`).fill(value);
  await expect(page.getByTestId('run-blocked')).toHaveCount(0);
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
}

test('a new user: a typed command, a change run again, an export read back, a taught format, an epoch log, any metric', async ({ page, server }) => {
  test.setTimeout(240_000);
  await page.goto(server.url);

  // --- A typed command: the directory is where the engine started, Run says why it waits, an empty value is refused,
  // and a flag variable may be empty (left out).
  await page.getByTestId('first-run-new-run').click();
  await page.getByTestId('source-typed').check();
  await expect(page.getByTestId('typed-cwd')).toHaveValue(server.dataDir);
  await expect(page.getByTestId('start-run')).toBeDisabled();
  await expect(page.getByTestId('run-blocked')).toHaveText('Type the command to run.');
  await page.getByTestId('typed-command').fill('python3 train.py --batch_size {batch} {amp}');
  await expect(page.getByTestId('var-amp-flag')).toContainText('empty leaves it out');
  await expect(page.getByTestId('run-blocked')).toContainText('{batch} has no value');
  await expect(page.getByTestId('start-run')).toBeDisabled();
  await screenshot(page, 'newuser-01-typed-empty-value');
  await page.getByTestId('typed-command').fill(KNOWN_FORMAT_SCRIPT);
  await page.getByTestId('var-steps').fill('30');
  await expect(page.getByTestId('command-preview')).toContainText('seq 1 30');
  await expect(page.getByTestId('command-preview')).toContainText('echo flags:');
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  // Its printed 45 ms is the step time: a throughput, not "Waiting for throughput".
  await expect(page.getByTestId('summary-step-time')).toContainText('45');
  await expect(page.getByTestId('chart-throughput')).toHaveAttribute('data-points', '30');
  await screenshot(page, 'newuser-02-typed-run');

  // --- A run repeated with one change: Edit and run again fills New run from the run, as typed: the template with its
  // {variables} and their values (not the command they made); Run again runs it as it was.
  await page.getByTestId('edit-run-again').click();
  await expect(page.getByTestId('copied-from')).toContainText('A copy of run #1');
  await expect(page.getByTestId('typed-command')).toHaveValue(KNOWN_FORMAT_SCRIPT);
  await expect(page.getByTestId('var-steps')).toHaveValue('30');
  await expect(page.getByTestId('command-preview')).toContainText('seq 1 30');
  await page.getByTestId('var-steps').fill('40');
  await expect(page.getByTestId('command-preview')).toContainText('seq 1 40');
  await screenshot(page, 'newuser-03-edit-and-run-again');
  await page.getByTestId('start-run').click();
  await expect(page.locator('.run-title .run-id')).toHaveText('#2');
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  await expect(page.getByTestId('run-command')).toContainText('seq 1 40');
  await page.getByTestId('run-again').click();
  await expect(page.locator('.run-title .run-id')).toHaveText('#3');
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  await expect(page.getByTestId('run-command')).toContainText('seq 1 40');
  // Run again kept the template and its values: an edit of the repeat starts from them too.
  await page.getByTestId('edit-run-again').click();
  await expect(page.getByTestId('copied-from')).toContainText('A copy of run #3');
  await expect(page.getByTestId('typed-command')).toHaveValue(KNOWN_FORMAT_SCRIPT);
  await expect(page.getByTestId('var-steps')).toHaveValue('40');
  // New run remembers the last command typed, and its values.
  await page.getByTestId('runs-table-button').click();
  await openNewRun(page);
  await expect(page.getByTestId('typed-command')).toHaveValue(KNOWN_FORMAT_SCRIPT);
  await expect(page.getByTestId('var-steps')).toHaveValue('40');

  // --- The two runs compared and exported; the export read back holds both, with their steps.
  await page.getByTestId('runs-table-button').click();
  await page.getByTestId('select-run-1').check();
  await page.getByTestId('select-run-2').check();
  await page.getByTestId('compare-selected').click();
  await page.getByTestId('export-menu').locator('summary').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-md').click()]);
  const markdown = fs.readFileSync((await download.path())!, 'utf8');
  expect(markdown).toMatch(/^\|/mu);
  expect(markdown).toMatch(/\brun 1\b/u);
  expect(markdown).toMatch(/\brun 2\b/u);
  await screenshot(page, 'newuser-04-compare-export');

  // --- A format nobody knows: the regex panel is offered, and after "Save regex and parse again" the charts fill in place.
  await runTyped(page, UNKNOWN_FORMAT_SCRIPT, { steps: '30' });
  const notice = page.getByTestId('no-metrics');
  await expect(notice).toContainText('No step time, throughput or loss was found');
  await expect(page.getByTestId('charts-empty')).toBeVisible();
  await page.getByTestId('parsing-regex').fill('it (?<step>\\d+)/\\d+\\] l=(?<loss>[\\d.]+) tm=(?<step_time_ms>[\\d.]+)');
  await expect(page.getByTestId('regex-match-count')).toContainText('30 matching lines');
  await screenshot(page, 'newuser-05-teach-format');
  await page.getByTestId('reparse-with-regex').click();
  await expect(page.getByTestId('reparse-result')).toContainText('Now: 60 parsed values, 30 steps');
  await expect(notice).toHaveCount(0);
  // Without a reload: the charts were told the run's metrics were replaced.
  await expect(page.getByTestId('chart-loss')).toHaveAttribute('data-points', '30');
  await expect(page.getByTestId('chart-throughput')).toHaveAttribute('data-points', '30');
  await screenshot(page, 'newuser-06-taught-charts');
  // Run again now parses with the regex it was taught (it lives in the workload made for it).
  await page.getByTestId('run-again').click();
  await expect(page.locator('.run-title .run-id')).toHaveText('#5');
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  await expect(page.getByTestId('chart-loss')).toHaveAttribute('data-points', '30');
  await expect(page.getByTestId('no-metrics')).toHaveCount(0);
  // That workload holds the command as typed: an edit still changes {steps}, not the command it made.
  await page.getByTestId('edit-run-again').click();
  await expect(page.getByTestId('copied-from')).toContainText('A copy of run #5');
  await expect(page.getByTestId('var-steps')).toHaveValue('30');
  await expect(page.getByTestId('command-preview')).toContainText('seq 1 30');

  // --- An epoch-restarting log, imported as a file: 200 steps, none overwritten, and the summary says so.
  const logFile = path.join(server.dataDir, 'two-epochs.log');
  fs.writeFileSync(logFile, epochLog());
  await page.getByTestId('import-log-button').click();
  await page.getByTestId('import-file').setInputFiles(logFile);
  await expect(page.getByTestId('import-name')).toHaveValue('two-epochs.log');
  await page.getByTestId('import-submit').click();
  await expect(page.locator('.run-title h2')).toContainText('two-epochs.log');
  await expect(page.getByTestId('summary-steps')).toHaveText('200');
  await expect(page.getByTestId('summary-training-notes')).toContainText('step counter started again once');
  await expect(page.getByTestId('chart-loss')).toHaveAttribute('data-points', '200');

  // --- Any metric plotted, on a log scale, smoothed, against time.
  await page.getByTestId('add-metric-chart').selectOption({ label: 'grad_norm · 200 points' });
  const gradNorm = page.getByTestId('chart-metric-grad_norm');
  await expect(gradNorm).toHaveAttribute('data-points', '200');
  await page.getByTestId('chart-loss').getByTestId('log-y').check();
  await page.getByTestId('chart-smoothing').fill('0.8');
  await expect(page.getByTestId('chart-smoothing-value')).toHaveText('0.80');
  await page.getByTestId('chart-x-axis').selectOption('seconds');
  await expect(page.getByTestId('chart-loss')).toHaveAttribute('data-points', '200');
  await screenshot(page, 'newuser-07-any-metric');
  await page.getByTestId('chart-x-axis').selectOption('step');
  await gradNorm.getByTestId('remove-chart').click();
  await expect(gradNorm).toHaveCount(0);
});

test('a big log file imports in pieces, its progress shown', async ({ page, server }) => {
  // About 24 MiB: two dozen pieces, each answered before the next.
  const line = 'step 1: loss 2.5000, 45 ms, and a long tail of text so the file is big without many steps .........................\n';
  const big = path.join(server.dataDir, 'big.log');
  const body = Array.from({ length: 200_000 }, (_, i) => line.replace('step 1:', `step ${i + 1}:`)).join('');
  fs.writeFileSync(big, body);
  await page.goto(server.url);
  await page.getByTestId('import-log-button').click();
  await page.getByTestId('import-file').setInputFiles(big);
  await page.getByTestId('import-submit').click();
  const progress = page.getByTestId('import-progress');
  await expect(progress).toBeVisible();
  await expect(progress.getByRole('progressbar')).toHaveAttribute('aria-valuemax', String(Buffer.byteLength(body)));
  // It moves with each piece answered: seen part way, not only at 0.
  await expect(progress.getByTestId('import-progress-text')).toContainText(/: [1-9][\d.]* MiB of 23\.\d MiB/u);
  await screenshot(page, 'newuser-08-import-progress');
  await expect(page.locator('.run-title h2')).toContainText('big.log', { timeout: 60_000 });
  await expect(page.getByTestId('summary-steps')).toHaveText('200000');
});

test('an empty log file is refused with what to do', async ({ page, server }) => {
  const empty = path.join(server.dataDir, 'empty.log');
  fs.writeFileSync(empty, '');
  await page.goto(server.url);
  await page.getByTestId('import-log-button').click();
  await page.getByTestId('import-file').setInputFiles(empty);
  await page.getByTestId('import-submit').click();
  await expect(page.getByTestId('import-error')).toContainText('is empty (0 bytes): nothing was imported');
  await screenshot(page, 'newuser-09-empty-import');
});
