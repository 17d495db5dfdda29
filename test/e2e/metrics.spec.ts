// Metrics in the UI: live charts and the summary of a synthetic run, a step limit, imported logs, the metric regex tester.
import fs from 'node:fs';
import os from 'node:os';
import type { Page } from '@playwright/test';
import { expect, screenshot, test } from './serverFixture.js';

/** The synthetic workload's steady throughput is a formula of its flags; the engine's median must land this close. */
const THROUGHPUT_TOLERANCE = 0.02;

/** nanoGPT's train.py output, as it prints it (its first MFU is -100%: "not measured yet"). */
const NANOGPT_LOG = [
  'step 0: train loss 4.2874, val loss 4.2823',
  'iter 0: loss 4.2649, time 29927.58ms, mfu -100.00%',
  'iter 10: loss 3.2512, time 931.02ms, mfu 16.57%',
  'iter 20: loss 2.8040, time 931.10ms, mfu 16.58%',
  'iter 30: loss 2.6120, time 930.02ms, mfu 16.58%',
  'iter 40: loss 2.5117, time 929.90ms, mfu 16.58%',
  'iter 50: loss 2.4049, time 929.71ms, mfu 16.59%',
  'step 50: train loss 2.3920, val loss 2.4101',
  '',
].join('\n');

const STEP_LINES = ['step 120: loss 2.314, 41250 tok/s, 24.8 ms/step', 'eval: loss 2.40', 'step 130: loss 2.301, 41310 tok/s, 24.7 ms/step', ''].join('\n');

async function startSynthetic(page: Page, steps: number, maxSteps?: number): Promise<void> {
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('workload-select').selectOption({ label: 'synthetic (builtin)' });
  await page.getByTestId('var-steps').fill(String(steps));
  if (maxSteps !== undefined) await page.getByTestId('max-steps').fill(String(maxSteps));
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-status')).toBeVisible();
}

async function importPasted(page: Page, name: string, text: string): Promise<void> {
  await page.getByTestId('import-log-button').click();
  await page.getByTestId('import-text').fill(text);
  await page.getByTestId('import-name').fill(name);
  await page.getByTestId('import-submit').click();
  await expect(page.locator('.run-title h2')).toContainText(name);
}

function points(page: Page, chart: 'chart-throughput' | 'chart-loss'): Promise<number> {
  return page
    .getByTestId(chart)
    .getAttribute('data-points')
    .then((value) => Number(value ?? 0));
}

test('a synthetic run draws throughput and loss live, and ends with a summary that matches its own figure', async ({ page, server }) => {
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await page.goto(server.url);
  await startSynthetic(page, 300);

  const throughputChart = page.getByTestId('chart-throughput');
  await expect(throughputChart.locator('canvas')).toBeVisible();
  // While it runs: the points come live, a few times a second.
  await expect(throughputChart).toHaveAttribute('data-points', /^[1-9]\d*$/u);
  await expect(page.getByTestId('run-status')).toHaveText('running');
  await screenshot(page, 'metrics-running');

  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  // One step line every 10 steps: 30 throughput points, and as many losses beside the eval.
  await expect(throughputChart).toHaveAttribute('data-points', '30');
  expect(await points(page, 'chart-loss')).toBeGreaterThanOrEqual(30);
  await expect(throughputChart.locator('.chart-title')).toHaveText('Throughput');

  // xterm draws only the rows in view: searching scrolls the line the workload printed at its start into it.
  await page.getByTestId('terminal-search').fill('expected steady');
  await expect(page.getByTestId('search-results')).toHaveText('1 of 1');
  await expect(page.getByTestId('terminal')).toContainText('expected steady');
  const terminalText = (await page.getByTestId('terminal').textContent()) ?? '';
  const expected = Number(/expected steady ([\d.]+) tok\/s/u.exec(terminalText)?.[1]);
  expect(expected).toBeGreaterThan(0);
  const card = page.getByTestId('summary-card');
  await expect(card).toBeVisible();
  const median = Number(await page.getByTestId('summary-throughput').getAttribute('data-value'));
  expect(Math.abs(median - expected) / expected).toBeLessThan(THROUGHPUT_TOLERANCE);
  await expect(page.getByTestId('summary-throughput')).toContainText('tokens/s');
  await expect(page.getByTestId('summary-step-time')).toContainText('ms');
  await expect(page.getByTestId('summary-warmup')).toContainText(/excluded \d+ steps \/ [\d.]+ s, detected automatically/u);
  await expect(page.getByTestId('summary-steps')).toHaveText('300');
  await expect(page.getByTestId('summary-loss')).toContainText(/final [\d.]+ · best [\d.]+ · eval [\d.]+/u);
  await expect(page.getByTestId('summary-loss')).toContainText('✓ fell');
  await expect(page.getByTestId('summary-source')).toHaveText('Metrics: terminal output');
  await expect(page.getByTestId('summary-nan')).toHaveCount(0);
  await screenshot(page, 'metrics-summary');

  // Zoom in with the wheel, then back.
  const reset = throughputChart.getByTestId('reset-zoom');
  await expect(reset).toBeDisabled();
  await throughputChart.locator('canvas').hover();
  await page.mouse.wheel(0, -400);
  await expect(reset).toBeEnabled();
  await reset.click();
  await expect(reset).toBeDisabled();

  const [png] = await Promise.all([page.waitForEvent('download'), throughputChart.getByTestId('save-chart-png').click()]);
  expect(png.suggestedFilename()).toMatch(/^run-\d+-throughput\.png$/u);
  const bytes = fs.readFileSync(await png.path());
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');

  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'metrics-summary-dark');

  // Folded away, the terminal gets the room; unfolded, the charts come back with their data.
  await page.getByTestId('charts-toggle').click();
  await expect(throughputChart).toHaveCount(0);
  await page.getByTestId('charts-toggle').click();
  await expect(throughputChart).toHaveAttribute('data-points', '30');
  expect(consoleErrors).toEqual([]);
});

test('a step limit stops a long run once its metrics reach the step', async ({ page, server }) => {
  await page.goto(server.url);
  await startSynthetic(page, 100_000, 50);
  await expect(page.getByTestId('run-status')).toHaveText('stopped', { timeout: 30_000 });
  await expect(page.getByTestId('run-exit-class')).toHaveCount(0);
  await expect(page.getByTestId('summary-card')).toBeVisible();
  const steps = Number(await page.getByTestId('summary-steps').textContent());
  expect(steps).toBeGreaterThanOrEqual(50);
  expect(steps).toBeLessThan(100_000);
  await screenshot(page, 'metrics-step-limit');
});

test('a pasted nanoGPT log is imported as a run with its summary and charts', async ({ page, server }) => {
  await page.goto(server.url);
  await page.getByTestId('import-log-button').click();
  await page.getByTestId('import-text').fill(NANOGPT_LOG);
  await page.getByTestId('import-name').fill('nanogpt sample');
  await screenshot(page, 'import-dialog');
  await page.getByTestId('import-submit').click();

  await expect(page.locator('.run-title h2')).toContainText('nanogpt sample');
  await expect(page.getByTestId('run-status')).toHaveText('succeeded');
  await expect(page.getByTestId('summary-card')).toBeVisible();
  // Only step times in the log: the throughput is in steps per second.
  await expect(page.getByTestId('summary-throughput')).toContainText('steps/s');
  // Iter 0 is warm-up and iter 50 carries the step-50 eval (nanoGPT evaluates inside that iteration): the median of iters 10-40.
  await expect(page.getByTestId('summary-step-time')).toHaveText('931 ms');
  await expect(page.getByTestId('summary-steps')).toHaveText('50');
  await expect(page.getByTestId('summary-loss')).toContainText('final 2.405 · best 2.405 · eval 2.41');
  await expect(page.getByTestId('summary-warmup')).toContainText('detected automatically');
  await expect(page.getByTestId('chart-throughput').locator('.chart-title')).toHaveText('Throughput (from step time)');
  expect(await points(page, 'chart-throughput')).toBeGreaterThanOrEqual(5);
  // Train losses and the two evaluations.
  await expect(page.getByTestId('chart-loss')).toHaveAttribute('data-points', '8');
  await expect(page.getByTestId('runs-list').getByTestId('run-row-1')).toContainText('nanogpt sample');
  await screenshot(page, 'import-nanogpt');

  // Warm-up and left-out steps set by hand: the summary is made again from the stored log, and says who set them.
  await page.getByTestId('run-steps-details').locator('summary').click();
  await page.getByTestId('run-steps-warmup').fill('15');
  await page.getByTestId('run-steps-exclude').fill('3o');
  await expect(page.getByTestId('run-steps-note')).toContainText('neither a step nor a range');
  await expect(page.getByTestId('run-steps-apply')).toBeDisabled();
  await page.getByTestId('run-steps-exclude').fill('');
  await page.getByTestId('run-steps-apply').click();
  await expect(page.getByTestId('run-steps-note')).toContainText('Summary made again');
  await expect(page.getByTestId('summary-warmup')).toContainText('set by hand for the run');
  await screenshot(page, 'run-steps-set-by-hand');
});

test('an imported log with a NaN loss is flagged; one without metrics says so quietly', async ({ page, server }) => {
  await page.goto(server.url);
  await importPasted(page, 'diverged', NANOGPT_LOG.replace('iter 40: loss 2.5117', 'iter 40: loss nan'));
  await expect(page.getByTestId('nan-note')).toHaveText('NaN in loss at step 40');
  await expect(page.getByTestId('summary-nan')).toBeVisible();
  await screenshot(page, 'import-nan');

  await importPasted(page, 'no metrics', 'hello from a script that prints no numbers\nbye\n');
  await expect(page.getByTestId('charts-empty')).toContainText('No metrics parsed from this run’s output');
  await expect(page.getByTestId('summary-card')).toHaveCount(0);
});

test('a running command without metrics keeps the charts’ room, so the terminal does not jump when they come', async ({ page, server }) => {
  await page.goto(server.url);
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('new-workload-button').click();
  await page.getByTestId('workload-name').fill('quiet then loud');
  await page.getByTestId('workload-cwd').fill(os.tmpdir());
  await page.getByTestId('workload-mode').selectOption('shell');
  await page
    .getByTestId('workload-command')
    .fill('echo warming up; sleep 2; for i in 1 2 3 4 5; do echo "step $i: loss 2.$i, 1000 tok/s, 10 ms/step"; sleep 0.3; done');
  await page.getByTestId('save-workload').click();
  await expect(page.getByTestId('workload-select').locator('option:checked')).toHaveText('quiet then loud');
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('terminal')).toContainText('warming up');
  await expect(page.getByTestId('charts-empty')).toHaveText('No metrics parsed from this run’s output yet.');
  const terminalBox = await page.getByTestId('terminal').boundingBox();
  await expect(page.getByTestId('chart-throughput')).toContainText('Waiting for throughput');
  await screenshot(page, 'metrics-waiting');
  await expect(page.getByTestId('chart-throughput')).toHaveAttribute('data-points', /^[1-9]\d*$/u);
  await expect(page.getByTestId('charts-empty')).toHaveCount(0);
  expect(await page.getByTestId('terminal').boundingBox()).toEqual(terminalBox);
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 15_000 });
  await expect(page.getByTestId('chart-throughput')).toHaveAttribute('data-points', '5');
});

test('a long log is drawn decimated, and zooms into its steps', async ({ page, server }) => {
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  const lines: string[] = [];
  for (let i = 0; i < 5000; i += 1) {
    const ms = 930 + 20 * Math.sin(i / 40) + (i % 500 === 0 ? 2000 : 0);
    lines.push(`iter ${i}: loss ${(1.2 + 3 * Math.exp(-i / 800)).toFixed(4)}, time ${ms.toFixed(2)}ms, mfu 16.59%`);
  }
  await page.goto(server.url);
  await page.getByTestId('import-log-button').click();
  await page.getByTestId('import-file').setInputFiles({ name: 'long run.log', mimeType: 'text/plain', buffer: Buffer.from(`${lines.join('\n')}\n`) });
  await expect(page.getByTestId('import-name')).toHaveValue('long run.log');
  await page.getByTestId('import-submit').click();
  await expect(page.locator('.run-title h2')).toContainText('long run.log');
  await expect(page.getByTestId('chart-throughput')).toHaveAttribute('data-points', '5000');
  await expect(page.getByTestId('chart-loss')).toHaveAttribute('data-points', '5000');
  // No eval lines in this log: the lone spikes are a small share, so the symmetric rule drops them and says so.
  // Iter 0's spike is the first step's warm-up; the other nine are left out, with the median they would have given.
  await expect(page.getByTestId('summary-outliers')).toContainText('9 steps left out (9 far from the median); step time with them');
  const canvas = page.getByTestId('chart-loss').locator('canvas');
  const box = (await canvas.boundingBox())!;
  // A dragged range zooms in; Reset zoom shows every step again.
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await expect(page.getByTestId('chart-loss').getByTestId('reset-zoom')).toBeEnabled();
  await screenshot(page, 'metrics-long-zoomed');
  await page.getByTestId('chart-loss').getByTestId('reset-zoom').click();
  await screenshot(page, 'metrics-long');
  expect(consoleErrors).toEqual([]);
});

// A file over the import limit (2 GiB, sent in pieces) is refused before reading: test/integration/importInPieces.test.ts.
test('a log file is imported from the file picker', async ({ page, server }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(server.url);
  await page.getByTestId('import-log-button').click();
  await page.getByTestId('import-file').setInputFiles({ name: 'train run.log', mimeType: 'text/plain', buffer: Buffer.from(NANOGPT_LOG) });
  await expect(page.getByTestId('import-file-info')).toContainText('train run.log');
  await expect(page.getByTestId('import-name')).toHaveValue('train run.log');
  await expect(page.getByTestId('import-text')).toBeDisabled();
  await screenshot(page, 'import-file-dark');
  await page.getByTestId('import-submit').click();
  await expect(page.locator('.run-title h2')).toContainText('train run.log');
  await expect(page.getByTestId('summary-steps')).toHaveText('50');
});

test('the metric regex tester shows matches as they are typed, and a broken pattern’s error', async ({ page, server }) => {
  await page.goto(server.url);
  await importPasted(page, 'step lines', STEP_LINES);
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('new-workload-button').click();
  await page.getByTestId('workload-tokens-per-step').fill('{batch} * {seq_len}');
  const regex = page.getByTestId('workload-metric-regex');
  const result = page.getByTestId('regex-test-result');
  await regex.fill('step (?<step>\\d+): loss (?<loss>[\\d.]+), (?<tokens_per_sec>\\d+) tok/s');
  await page.getByTestId('regex-test-text').fill(STEP_LINES);
  await expect(result).toContainText('2 matching lines');
  await expect(result.locator('tbody tr')).toHaveCount(2);
  await expect(result.locator('tbody tr').first()).toContainText('2.314');
  await expect(result.locator('thead')).toContainText('tokens_per_sec');
  await screenshot(page, 'regex-tester');

  await regex.fill('step (?<step>\\d+');
  await expect(page.getByTestId('regex-error')).toContainText('not a valid regular expression');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'regex-tester-error-dark');

  // Against a stored run's log instead of the sample.
  await regex.fill('eval: loss (?<eval_loss>[\\d.]+)');
  await page.getByTestId('regex-test-run').selectOption({ label: 'against stored run #1 step lines (succeeded)' });
  await expect(result).toContainText('1 matching line');
  await expect(result.locator('tbody tr').first()).toContainText('2.4');
});
