// Sweeps in the UI: a ladder built in the New sweep form, its plan previewed before Start, run live to a matrix of
// speedups with links to every run; the batch finder against a simulated memory limit, its answer put into the form;
// a sweep that holds GPU settings on the fake nvidia-smi and puts them back; a sweep whose engine died, resumed, its
// interrupted run linked to the run that replaced it; and a typed command swept with no workload.
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { DATA_DIR, expect, REPO_ROOT, screenshot, startServer, test } from './serverFixture.js';

/** Six short runs of the synthetic workload, with a second of start-up each at most: a minute and a half is generous. */
const SWEEP_TIMEOUT_MS = 90_000;
/** No nvidia-smi at all: no waiting for an idle GPU, and no GPU settings to offer. */
const NO_GPU = { TUNING_BENCH_NVIDIA_SMI: '', PATH: '/usr/bin:/bin' };

function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

async function openNewSweep(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByTestId('new-sweep-button').click();
  await expect(page).toHaveURL(/#\/sweeps\/new$/u);
  await page.getByTestId('sweep-workload').selectOption({ label: 'synthetic (builtin)' });
}

async function speedupOf(page: Page, index: number): Promise<number> {
  return Number(await page.getByTestId(`speedup-${index}`).getAttribute('data-value'));
}

test.describe('without a GPU', () => {
  test.use({ serverEnv: NO_GPU });

  test('a ladder built in the form: the plan previewed before Start, live progress, the matrix with speedups and run links', async ({ page, server }) => {
    test.setTimeout(SWEEP_TIMEOUT_MS + 60_000);
    const consoleErrors = collectConsoleErrors(page);
    await openNewSweep(page, server.url);
    await expect(page.getByTestId('sweep-gpu-settings')).toHaveCount(0);

    // The first row is ready for the batch; amp is a second row.
    await expect(page.getByTestId('vary-name-0')).toHaveValue('batch');
    await page.getByTestId('vary-values-0').fill('8, 16');
    await page.getByTestId('vary-add').click();
    await page.getByTestId('vary-name-1').selectOption('amp');
    await page.getByTestId('vary-values-1').fill('off,on');
    await expect(page.getByTestId('vary-count-1')).toHaveText('2 values');
    // Varied variables leave the shared ones; the rest keep their defaults until typed over.
    await expect(page.getByTestId('shared-batch')).toHaveCount(0);
    await expect(page.getByTestId('shared-workers')).toHaveValue('0');
    await page.getByTestId('shared-steps').fill('40');
    await page.getByTestId('sweep-plan-ladder').check();
    await page.getByTestId('sweep-repeats').fill('2');
    // A shared machine is never a quiet host: no waiting for one here.
    await page.getByTestId('sweep-wait').uncheck();

    // Nothing starts before its plan has been seen.
    await expect(page.getByTestId('sweep-start')).toBeDisabled();
    await expect(page.getByTestId('sweep-start-note')).toContainText('Preview the plan first');
    await page.getByTestId('sweep-preview').click();
    await expect(page.getByTestId('plan-run-count')).toHaveText('3 configs × 2 repeats = 6 runs');
    await expect(page.getByTestId('plan-table').locator('tbody tr')).toHaveCount(3);
    await expect(page.getByTestId('plan-config-0').getByTestId('plan-command')).toContainText('--batch-size 8 --workers 0 --amp off');
    await expect(page.getByTestId('plan-config-1').getByTestId('plan-command')).toContainText('--batch-size 16 --workers 0 --amp off');
    await expect(page.getByTestId('plan-config-2').getByTestId('plan-command')).toContainText('--batch-size 16 --workers 0 --amp on');
    await expect(page.getByTestId('plan-config-2')).toContainText('+amp=on');
    for (const index of [0, 1, 2]) await expect(page.getByTestId(`plan-config-${index}`).getByTestId('plan-command')).toContainText('--steps 40');
    // A fresh database has no earlier run to estimate from, and says so.
    await expect(page.getByTestId('plan-estimate')).toHaveText('no estimate');
    await expect(page.getByTestId('plan-estimate-basis')).toContainText('no earlier finished run');
    await expect(page.getByTestId('sweep-start')).toBeEnabled();
    await expect(page.getByTestId('sweep-start')).toHaveText('▶ Start sweep (6 runs)');
    await screenshot(page, 'sweep-builder');
    await page.getByTestId('plan-table').scrollIntoViewIfNeeded();
    await screenshot(page, 'sweep-builder-preview');

    // A change after the preview asks for a new one; changing it back makes the preview current again.
    await page.getByTestId('sweep-repeats').fill('3');
    await expect(page.getByTestId('sweep-start')).toBeDisabled();
    await expect(page.getByTestId('sweep-start-note')).toContainText('preview the plan again');
    await page.getByTestId('sweep-repeats').fill('2');
    await expect(page.getByTestId('sweep-start')).toBeEnabled();

    await page.getByTestId('sweep-start').click();
    await expect(page).toHaveURL(/#\/sweeps\/\d+$/u);
    await expect(page.getByTestId('sweep-status')).toHaveText(/queued|running/u);
    await expect(page.getByTestId('sweep-current')).toContainText(/^Run \d of 6, .+, repeat \d\/2: (running for|waiting) \d+ s/u);
    await expect(page).toHaveTitle(/^▶ \d\/6 · synthetic ladder — Tuning Bench$/u);
    await expect(page.getByTestId('sweep-pause')).toBeEnabled();
    await expect(page.getByTestId('sweep-cancel')).toBeEnabled();
    await screenshot(page, 'sweep-running');

    await expect(page.getByTestId('sweep-status')).toHaveText('succeeded', { timeout: SWEEP_TIMEOUT_MS });
    await expect(page.getByTestId('sweep-toast')).toHaveText(/Sweep \d+ finished: succeeded/u);
    await expect(page.getByTestId('sweep-progress-text')).toHaveText('Sweep: 6 of 6 runs (100 %)');
    await expect(page.getByTestId('sweep-pause')).toHaveCount(0);

    const matrix = page.getByTestId('sweep-matrix');
    await expect(matrix.locator('tbody tr')).toHaveCount(3);
    for (const index of [0, 1, 2]) {
      const row = page.getByTestId(`sweep-config-${index}`);
      await expect(row.getByTestId('config-status')).toHaveText('done');
      await expect(row.getByTestId('run-link')).toHaveCount(2);
      await expect(row.getByTestId('config-throughput')).toContainText('tokens/s');
    }
    await expect(page.getByTestId('speedup-0')).toHaveText('baseline');
    // The synthetic formula: batch 16 is ~1.09× batch 8, and AMP on top ~1.53×.
    expect(await speedupOf(page, 1)).toBeGreaterThan(1);
    expect(await speedupOf(page, 2)).toBeGreaterThan(await speedupOf(page, 1));
    await expect(page.getByTestId('sweep-row-1').getByTestId('sweep-row-status')).toHaveText('succeeded');
    await expect(page.getByTestId('compare-sweep')).toHaveAttribute('href', /^#\/compare\?(.*&)?sweeps=1(&|$)/u);
    await screenshot(page, 'sweep-succeeded');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'sweep-succeeded-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // The title flashes the end, then is the app's name again.
    await expect(page).toHaveTitle('Tuning Bench', { timeout: 15_000 });

    // Each run link opens that run, which knows its place in the sweep.
    await page.getByTestId('sweep-config-2').getByTestId('run-link').first().click();
    await expect(page).toHaveURL(/#\/runs\/\d+$/u);
    await expect(page.getByTestId('run-status')).toHaveText('succeeded');
    await expect(page.getByTestId('run-command')).toContainText('--batch-size 16 --workers 0 --amp on');

    await page.getByTestId('all-sweeps-button').click();
    await expect(page.getByTestId('sweeps-table').locator('tbody tr')).toHaveCount(1);
    await expect(page.getByTestId('sweeps-table-status')).toHaveText('succeeded');
    await screenshot(page, 'sweeps-list');
    expect(consoleErrors).toEqual([]);
  });
});

test.describe('a typed command, without a GPU', () => {
  test.use({ serverEnv: NO_GPU });

  test('New sweep takes a typed command: its {placeholder} varied over two values, quoted by the app, run to the end, compared with a verdict', async ({
    page,
    server,
  }) => {
    test.setTimeout(SWEEP_TIMEOUT_MS + 60_000);
    const consoleErrors = collectConsoleErrors(page);
    await page.goto(server.url);
    await page.getByTestId('new-sweep-button').click();
    await page.getByTestId('sweep-source-typed').check();
    await expect(page.getByTestId('sweep-workload')).toHaveCount(0);
    // A step time that follows {ms}, and a shared {note} whose value would be two commands if the app did not quote it.
    await page
      .getByTestId('sweep-typed-command')
      .fill('for i in $(seq 1 40); do echo "iter $i: loss 3.0$i, time {ms}.00ms, mfu 1.00%"; done; echo note: {note}');
    await page.getByTestId('sweep-typed-cwd').fill(server.dataDir);
    // The first placeholder is ready to vary; the other is shared by every config.
    await expect(page.getByTestId('vary-name-0')).toHaveValue('ms');
    await page.getByTestId('vary-values-0').fill('30, 15');
    await page.getByTestId('shared-note').fill('a b; echo injected');
    await page.getByTestId('sweep-plan-one-at-a-time').check();
    await page.getByTestId('sweep-repeats').fill('2');
    // A shared machine is never a quiet host: no waiting for one here.
    await page.getByTestId('sweep-wait').uncheck();
    await screenshot(page, 'sweep-typed-form');
    await page.getByTestId('sweep-preview').click();
    await expect(page.getByTestId('plan-run-count')).toHaveText('2 configs × 2 repeats = 4 runs');
    await expect(page.getByTestId('plan-config-0').getByTestId('plan-command')).toContainText('time "30".00ms');
    await expect(page.getByTestId('plan-config-1').getByTestId('plan-command')).toContainText('time "15".00ms');
    // One word, whatever it holds: the ; stays inside the quotes.
    await expect(page.getByTestId('plan-config-1').getByTestId('plan-command')).toContainText(`note: '\\''a b; echo injected'\\''`);
    await expect(page.getByTestId('plan-config-1')).toContainText('ms=15');
    await screenshot(page, 'sweep-typed-builder');

    await page.getByTestId('sweep-start').click();
    await expect(page).toHaveURL(/#\/sweeps\/\d+$/u);
    await expect(page.getByTestId('sweep-status')).toHaveText('succeeded', { timeout: SWEEP_TIMEOUT_MS });
    await expect(page.getByTestId('sweep-progress-text')).toHaveText('Sweep: 4 of 4 runs (100 %)');
    for (const index of [0, 1]) {
      await expect(page.getByTestId(`sweep-config-${index}`).getByTestId('config-status')).toHaveText('done');
      await expect(page.getByTestId(`sweep-config-${index}`).getByTestId('run-link')).toHaveCount(2);
    }
    // Half the step time: twice the steps per second.
    expect(await speedupOf(page, 1)).toBeCloseTo(2, 1);
    await screenshot(page, 'sweep-typed-succeeded');

    // A run of it printed the note as one argument: the quoting kept "echo injected" from running.
    await page.getByTestId('sweep-config-1').getByTestId('run-link').first().click();
    await expect(page.getByTestId('run-config')).toContainText('ms=15');
    await expect(page.locator('.xterm-rows')).toContainText('note: a b; echo injected');
    await page.goBack();

    await page.getByTestId('compare-sweep').click();
    await expect(page.getByTestId('compare-view')).toHaveAttribute('data-ready', 'true');
    const rows = page.getByTestId('compare-view').locator('tbody tr');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0).getByTestId('row-verdict')).toHaveText('baseline');
    await expect(rows.nth(1).getByTestId('row-verdict')).toHaveText('faster');
    await screenshot(page, 'sweep-typed-compare');
    expect(consoleErrors).toEqual([]);
  });
});

test.describe('a sweep its tune ended, without a GPU', () => {
  test.use({ serverEnv: NO_GPU });

  test('a tune step whose knob did not act reads "ended early", with why, not "cancelled"', async ({ page, server }) => {
    test.setTimeout(SWEEP_TIMEOUT_MS);
    // No torch: the workers knob finds no DataLoader in the first run, and the tune ends its step there.
    const script = ['import time', 'for step in range(1, 21):', '    time.sleep(0.01)', '    print(f"step {step} loss {3 - step / 20:.4f}", flush=True)'];
    fs.writeFileSync(path.join(server.dataDir, 'train.py'), script.join('\n'));
    const cli = [path.join(REPO_ROOT, 'bin/tuning-bench.js'), '--db', server.dbPath, 'tune', '--only', 'workers', '--repeats', '3', '--max-repeats', '3'];
    execFileSync(process.execPath, [...cli, '--no-wait-idle', '--', '/usr/bin/python3', 'train.py'], {
      cwd: server.dataDir,
      env: { ...process.env, ...NO_GPU },
      stdio: 'pipe',
    });

    await page.goto(`${server.url}#/sweeps`);
    const status = page.getByTestId('sweeps-table-status').first();
    await expect(status).toHaveText('ended early');
    await expect(status).toHaveAttribute('title', /^Ended by its tune: the knob was unused in run \d+/u);
    await page.goto(`${server.url}#/sweeps/1`);
    await expect(page.getByTestId('sweep-status')).toHaveText('ended early');
    await expect(page.getByTestId('sweep-ended-note')).toContainText('so its other runs would have measured the same command again');
    await expect(page.getByTestId('sweep-error')).toHaveCount(0);
    // Both runs ran the script, where the tune was typed (the CLI once took an inherited INIT_CWD for where it stood).
    await expect(page.getByTestId('sweep-failures')).toHaveCount(0);
    await screenshot(page, 'sweep-ended-by-tune');
  });
});

test.describe('a typed batch sweep, judged per sample', () => {
  test.use({ serverEnv: NO_GPU });

  test('batch 16 against 64 with samples per step {batch}: samples/s, and batch 64 faster per sample and best', async ({ page, server }) => {
    test.setTimeout(SWEEP_TIMEOUT_MS + 60_000);
    const consoleErrors = collectConsoleErrors(page);
    await page.goto(server.url);
    await page.getByTestId('new-sweep-button').click();
    await page.getByTestId('sweep-source-typed').check();
    // The stand-in: 24.75 ms a step at batch 16, 76.25 ms at batch 64 (3.1x slower per step, 1.30x faster per sample).
    await page.getByTestId('sweep-typed-command').fill('python3 train.py --batch {batch} --steps 40 --run-sd 0.005 --step-sd 0.01');
    await page.getByTestId('sweep-typed-cwd').fill(path.join(REPO_ROOT, 'test/fixtures/standin'));
    await expect(page.getByTestId('vary-name-0')).toHaveValue('batch');
    await page.getByTestId('vary-values-0').fill('16, 64');
    await page.getByTestId('sweep-repeats').fill('3');
    await page.getByTestId('sweep-work-kind').selectOption('samples');
    await expect(page.getByTestId('sweep-work-expression')).toHaveValue('{batch}');
    // This machine is shared: the runs do not wait for a quiet host here (the flag says it was busy).
    await page.getByTestId('sweep-wait').uncheck();
    await screenshot(page, 'sweep-batch-per-sample-form');
    await page.getByTestId('sweep-preview').click();
    await expect(page.getByTestId('plan-run-count')).toHaveText('2 configs × 3 repeats = 6 runs');
    await page.getByTestId('sweep-start').click();
    await expect(page).toHaveURL(/#\/sweeps\/\d+$/u);
    await expect(page.getByTestId('sweep-status')).toHaveText('succeeded', { timeout: SWEEP_TIMEOUT_MS });
    // The sweep's own matrix says the same as the comparison: per sample, faster.
    await expect(page.getByTestId('verdict-1')).toHaveText(/^faster/u);
    await expect(page.getByTestId('sweep-config-1').getByTestId('config-throughput')).toContainText('samples/s');
    await screenshot(page, 'sweep-batch-per-sample');

    await page.getByTestId('compare-sweep').click();
    await expect(page.getByTestId('compare-view')).toHaveAttribute('data-ready', 'true');
    const table = page.getByTestId('compare-table');
    await expect(table.locator('thead')).toContainText('Samples/s');
    const big = page.getByTestId('compare-row-1');
    await expect(big.getByTestId('row-verdict')).toHaveText('faster');
    await expect(big.getByTestId('row-best')).toBeVisible();
    await expect(page.getByTestId('compare-row-0').getByTestId('row-best')).toHaveCount(0);
    expect(Number(await big.getByTestId('row-speedup').getAttribute('data-value'))).toBeCloseTo(1.3, 1);
    await expect(big.getByTestId('row-throughput')).toHaveAttribute('data-work', '64 samples');
    await screenshot(page, 'compare-batch-per-sample');
    expect(consoleErrors).toEqual([]);
  });

  test('without the work per step, batch 64 gets no speedup and the row says what to give', async ({ page, server }) => {
    test.setTimeout(SWEEP_TIMEOUT_MS + 60_000);
    await page.goto(server.url);
    await page.getByTestId('new-sweep-button').click();
    await page.getByTestId('sweep-source-typed').check();
    await page.getByTestId('sweep-typed-command').fill('python3 train.py --batch {batch} --steps 30 --run-sd 0.005 --step-sd 0.01');
    await page.getByTestId('sweep-typed-cwd').fill(path.join(REPO_ROOT, 'test/fixtures/standin'));
    await page.getByTestId('vary-values-0').fill('16, 64');
    await page.getByTestId('sweep-repeats').fill('2');
    await page.getByTestId('sweep-wait').uncheck();
    await page.getByTestId('sweep-preview').click();
    await page.getByTestId('sweep-start').click();
    await expect(page.getByTestId('sweep-status')).toHaveText('succeeded', { timeout: SWEEP_TIMEOUT_MS });
    // The matrix shows no 0.33x "slower" either: no speedup, with the reason a hover away.
    // ⚠ follows when the shared machine was busy during a run: the verdict word is what this checks.
    await expect(page.getByTestId('verdict-1')).toHaveText(/^no speedup( ⚠)?$/u);
    await expect(page.getByTestId('speedup-1')).toHaveAttribute('data-value', '');
    await expect(page.getByTestId('speedup-1')).toHaveAttribute('title', /batch differs/u);
    await page.getByTestId('compare-sweep').click();
    await expect(page.getByTestId('compare-view')).toHaveAttribute('data-ready', 'true');
    const big = page.getByTestId('compare-row-1');
    await expect(big.getByTestId('row-verdict')).toHaveText('no speedup');
    await expect(big.getByTestId('row-reason')).toContainText('batch differs (16 vs 64)');
    await expect(big.getByTestId('row-reason')).toContainText("--samples-per-step '{batch}'");
    await expect(page.getByTestId('compare-row-0').getByTestId('row-best')).toBeVisible();
    await screenshot(page, 'compare-batch-no-work');
  });
});

test.describe('with a simulated GPU memory limit of batch 24', () => {
  test.use({ serverEnv: { ...NO_GPU, SYNTHETIC_MAX_BATCH: '24' } });

  test('the batch finder doubles and bisects to 24, and "Use 24" puts it into the form', async ({ page, server }) => {
    test.setTimeout(SWEEP_TIMEOUT_MS + 60_000);
    const consoleErrors = collectConsoleErrors(page);
    await openNewSweep(page, server.url);
    await page.getByTestId('vary-values-0').fill('8, 16');
    await expect(page.getByTestId('finder-variable')).toHaveValue('batch');
    // It starts from the baseline's batch unless told otherwise.
    await expect(page.getByTestId('finder-start')).toHaveAttribute('placeholder', '8');
    await expect(page.getByTestId('finder-steps')).toHaveValue('20');
    await page.getByTestId('finder-start-button').click();

    await expect(page).toHaveURL(/#\/sweeps\/\d+$/u);
    await expect(page.getByTestId('sweep-plan-label')).toHaveText('batch finder');
    await expect(page.getByTestId('sweep-status')).toHaveText('succeeded', { timeout: SWEEP_TIMEOUT_MS });
    await expect(page.getByTestId('finder-message')).toHaveText('batch=24 is the largest that fits; 25 ran out of memory');
    await expect(page.getByTestId('sweep-toast')).toHaveText(/Batch finder \d+ finished: succeeded/u);
    // 8, 16 fit; 32 runs out of memory; then 24 fits and 28, 26, 25 do not.
    const matrix = page.getByTestId('sweep-matrix');
    await expect(matrix.locator('tbody tr')).toHaveCount(7);
    await expect(matrix.getByTestId('config-status').filter({ hasText: 'OOM' })).toHaveCount(4);
    await expect(page.getByTestId('sweep-config-2')).toContainText('batch=32');
    await expect(page.getByTestId('sweep-config-2').getByTestId('config-status')).toHaveText('OOM');
    await screenshot(page, 'sweep-batch-finder');

    await page.getByTestId('use-batch').click();
    await expect(page).toHaveURL(/#\/sweeps\/new$/u);
    await expect(page.getByTestId('vary-values-0')).toHaveValue('8, 16, 24');
    await expect(page.getByTestId('finder-last')).toContainText('batch=24 is the largest that fits');
    await page.getByTestId('sweep-preview').click();
    await expect(page.getByTestId('plan-config-2').getByTestId('plan-command')).toContainText('--batch-size 24');
    await screenshot(page, 'sweep-builder-after-finder');
    expect(consoleErrors).toEqual([]);
  });
});

test.describe('on the fake nvidia-smi, as root', () => {
  test.use({
    serverEnv: {
      TUNING_BENCH_NVIDIA_SMI: path.join(REPO_ROOT, 'test/fixtures/fake-nvidia-smi'),
      // Per test: parallel tests must not share one pretend GPU.
      FAKE_NVIDIA_SMI_STATE: path.join(DATA_DIR, 'gpu-state.json'),
      FAKE_NVIDIA_SMI_ROOT: '1',
    },
  });

  test('a sweep with the Max sustained profile holds the clocks for its runs and puts them back at its end', async ({ page, server }) => {
    test.setTimeout(SWEEP_TIMEOUT_MS + 60_000);
    const consoleErrors = collectConsoleErrors(page);
    await openNewSweep(page, server.url);
    await page.getByTestId('vary-values-0').fill('8,16');
    await page.getByTestId('shared-steps').fill('40');
    await page.getByTestId('sweep-plan-one-at-a-time').check();
    await page.getByTestId('sweep-repeats').fill('1');
    await page.getByTestId('sweep-wait').uncheck();
    await expect(page.getByTestId('sweep-max-wait')).toBeDisabled();

    await expect(page.getByTestId('sweep-gpu-settings')).toBeVisible();
    await page.getByTestId('sweep-gpu-profile').selectOption({ label: 'Max sustained' });
    await expect(page.getByTestId('sweep-gpu-lock-clocks')).not.toHaveValue('');
    await expect(page.getByTestId('sweep-gpu-summary')).toContainText('For the whole sweep: ');
    await expect(page.getByTestId('sweep-gpu-summary')).toContainText('lock GPU clocks at');
    await page.getByTestId('sweep-preview').click();
    await expect(page.getByTestId('plan-run-count')).toHaveText('2 configs × 1 repeat = 2 runs');
    await screenshot(page, 'sweep-builder-gpu');

    await page.getByTestId('sweep-start').click();
    await expect(page.getByTestId('sweep-status')).toHaveText('succeeded', { timeout: SWEEP_TIMEOUT_MS });
    await expect(page.getByTestId('sweep-config-1').getByTestId('config-status')).toHaveText('done');
    // The fake's telemetry follows the synthetic load: a peak VRAM per config.
    await expect(page.getByTestId('sweep-config-1')).toContainText(/[\d,]+ MiB/u);
    await page.getByTestId('sweep-request').locator('summary').click();
    await expect(page.getByTestId('sweep-request-gpu')).toContainText(/lock GPU clocks at \d+ MHz/u);

    // Put back: the fake's clocks are unlocked again.
    const state = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'gpu-state.json'), 'utf8')) as {
      gpus: Record<string, { gpuClockLock: unknown }>;
    };
    expect(state.gpus['0']?.gpuClockLock).toBeNull();
    await screenshot(page, 'sweep-gpu-succeeded');
    expect(consoleErrors).toEqual([]);
  });
});

test('a sweep whose engine was killed is offered for resumption, and resumed runs what was left', async ({ page }) => {
  test.setTimeout(SWEEP_TIMEOUT_MS + 60_000);
  const consoleErrors = collectConsoleErrors(page);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-e2e-sweep-resume-'));
  const servers: ChildProcess[] = [];
  try {
    const first = await startServer(dataDir, { env: NO_GPU });
    servers.push(first.child);
    await openNewSweep(page, first.url);
    await page.getByTestId('vary-values-0').fill('8, 16');
    // Runs of a few seconds: long enough to be killed in the middle of the first.
    await page.getByTestId('shared-steps').fill('300');
    await page.getByTestId('sweep-repeats').fill('1');
    await page.getByTestId('sweep-wait').uncheck();
    await page.getByTestId('sweep-preview').click();
    await page.getByTestId('sweep-start').click();
    await expect(page.getByTestId('sweep-current')).toContainText('Run 1 of 2, baseline');
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;

    const second = await startServer(dataDir, { env: NO_GPU });
    servers.push(second.child);
    await page.goto(second.url);
    const row = page.getByTestId('sweep-row-1');
    await expect(row.getByTestId('sweep-row-status')).toHaveText('interrupted');
    await page.getByTestId('all-sweeps-button').click();
    await expect(page.getByTestId('interrupted-note')).toContainText('One sweep was interrupted');
    await expect(page.getByTestId('resume-sweep-1')).toHaveCount(2);
    await screenshot(page, 'sweeps-interrupted');

    await row.click();
    await expect(page.getByTestId('sweep-status')).toHaveText('interrupted');
    await expect(page.getByTestId('sweep-interrupted')).toContainText('Resume runs what is left');
    await expect(page.getByTestId('sweep-pause')).toHaveCount(0);
    await page.getByTestId('sweep-resume').click();
    await expect(page.getByTestId('sweep-status')).toHaveText(/queued|running/u);
    await expect(page.getByTestId('sweep-status')).toHaveText('succeeded', { timeout: SWEEP_TIMEOUT_MS });
    await expect(page.getByTestId('sweep-toast')).toContainText('Sweep 1 finished: succeeded');
    await expect(page.getByTestId('sweep-progress-text')).toHaveText('Sweep: 2 of 2 runs (100 %)');
    // The killed run stays listed (interrupted) beside the one that replaced it.
    await expect(page.getByTestId('sweep-config-0').getByTestId('run-link')).toHaveCount(2);
    await expect(page.getByTestId('sweep-config-0').getByTestId('config-status')).toHaveText('done');
    await expect(page.getByTestId('sweep-config-1').getByTestId('run-link')).toHaveCount(1);
    await screenshot(page, 'sweep-resumed');

    // The killed run's page says its place was run again, and links to the run that did; that run links back.
    await page.getByTestId('sweep-config-0').getByTestId('run-link').first().click();
    await expect(page.getByTestId('run-status')).toHaveText('interrupted');
    const replacedBy = page.getByTestId('run-replaced-by');
    await expect(replacedBy).toContainText('when the sweep resumed, it ran this place again as run #');
    await expect(page.getByTestId('run-replaces')).toHaveCount(0);
    await screenshot(page, 'run-replaced');
    const interruptedUrl = page.url();
    await replacedBy.getByRole('link').click();
    await expect(page.getByTestId('run-status')).toHaveText('succeeded');
    await expect(page.getByTestId('run-sweep')).toContainText('baseline · rep 1');
    await expect(page.getByTestId('run-replaces')).toContainText('it replaces run #1, which was interrupted');
    await expect(page.getByTestId('run-replaced-by')).toHaveCount(0);
    await screenshot(page, 'run-replacement');
    await page.getByTestId('run-replaces').getByRole('link').click();
    await expect(page).toHaveURL(interruptedUrl);
    // The first page tried to reconnect to the killed server before it was left: that much is expected.
    expect(consoleErrors.filter((error) => !error.includes('ERR_CONNECTION_REFUSED'))).toEqual([]);
  } finally {
    for (const child of servers) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
