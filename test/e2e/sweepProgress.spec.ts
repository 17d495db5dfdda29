// Progress for the long actions started from the UI (issue 28, item 17): a before/after and a typed sweep say which run
// of how many is under way with its config and repeat, how long it has run, that a run failed, and can be stopped.
// Everything on screen comes from the engine's sweeps.onDidChange events.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, screenshot, test } from './serverFixture.js';

/** Four runs of two seconds or so each, on a loaded machine: two minutes is generous. */
const LONG_ACTION_TIMEOUT_MS = 120_000;
/** No nvidia-smi at all: no waiting for an idle GPU. */
const NO_GPU = { TUNING_BENCH_NVIDIA_SMI: '', PATH: '/usr/bin:/bin' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

/** nanoGPT's step format, a step every 50 ms of wall time (about two seconds a run), its printed step time `ms`. */
function trainScript(ms: number): string {
  return `for i in $(seq 1 40); do echo "iter $i: loss 3.0$i, time ${ms}.00ms, mfu 1.00%"; sleep 0.05; done\n`;
}

/**
 * A change that breaks the training: it fails at the end of its steps with an error line. As long as a good run, so
 * the first failure is on screen for seconds before the second after-run fails too (a failure after 5 steps left it
 * there for less than Playwright's one-second look once runs ended faster).
 */
const BROKEN_SCRIPT = `${trainScript(20)}echo "RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x128 and 64x10)" >&2; exit 1\n`;

function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

test.use({ serverEnv: NO_GPU });

test('a before/after says which run of how many runs, for how long, and that the after side failed', async ({ page, server }) => {
  test.setTimeout(LONG_ACTION_TIMEOUT_MS + 60_000);
  const consoleErrors = collectConsoleErrors(page);
  const repo = path.join(server.dataDir, 'project');
  fs.mkdirSync(repo);
  git(repo, 'init', '-q');
  fs.writeFileSync(path.join(repo, 'train.sh'), trainScript(40));
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'the first version');
  fs.writeFileSync(path.join(repo, 'train.sh'), BROKEN_SCRIPT);
  git(repo, 'commit', '-qam', 'a wider classifier head');

  await page.goto(`${server.url}#/sweeps/before-after`);
  await page.getByTestId('ba-command').fill('sh train.sh');
  await page.getByTestId('ba-cwd').fill(repo);
  await page.getByTestId('ba-list-commits').click();
  await expect(page.getByTestId('ba-repository')).toContainText('main · working tree clean');
  await page.getByTestId('ba-repeats').fill('2');
  // A shared machine is never a quiet host: no waiting for one here.
  await page.getByTestId('ba-wait').uncheck();
  await page.getByTestId('ba-start').click();

  const bar = page.getByTestId('sweep-progress');
  const now = page.getByTestId('sweep-current');
  // Interleaved: before, after, after, before. The first run, as it runs, with its side and repeat and a live run link.
  await expect(bar.getByRole('progressbar')).toHaveAttribute('aria-valuemax', '4');
  await expect(now).toContainText(/^Run 1 of 4, \w{7} the first version, repeat 1\/2: running for \d+ s · run #1$/u);
  await expect(page.getByTestId('sweep-progress-text')).toHaveText('Before/after: 0 of 4 runs (0 %)');
  await expect(page.getByTestId('sweep-progress-detail')).toContainText(/^\d+ s in all$/u);
  await expect(page.getByTestId('sweep-cancel')).toBeEnabled();
  await expect(page.getByTestId('sweep-skip')).toBeEnabled();
  await screenshot(page, 'progress-01-before-after-first-run');

  // The after side fails: said in the progress at once, while the before/after goes on to its last run.
  const failure = page.getByTestId('sweep-progress-failure');
  await expect(failure).toContainText(/Run 2 of 4 failed \(\w{7} a wider classifier head, repeat 1\/2\): .*mat1 and mat2 shapes cannot be multiplied/u, {
    timeout: LONG_ACTION_TIMEOUT_MS,
  });
  await expect(now).toContainText(/^Run 4 of 4, \w{7} the first version, repeat 2\/2: running for \d+ s/u, { timeout: LONG_ACTION_TIMEOUT_MS });
  await expect(failure).toContainText('2 runs failed; the latest, run 3 of 4');
  await expect(page.getByTestId('sweep-progress-text')).toHaveText('Before/after: 3 of 4 runs (75 %)');
  // An ETA once runs have ended, from their measured durations.
  await expect(page.getByTestId('sweep-progress-detail')).toContainText(/^\d+ s in all · about .+ left$/u);
  await screenshot(page, 'progress-02-before-after-failed-side');

  // Both sides ran (the before side ok): the comparison opens.
  await expect(page).toHaveURL(/#\/compare\?sweeps=\d+$/u, { timeout: LONG_ACTION_TIMEOUT_MS });
  expect(consoleErrors).toEqual([]);
});

test('a typed sweep started from the UI counts its runs as they go, its elapsed time from the engine, and stops on Cancel', async ({ page, server }) => {
  test.setTimeout(LONG_ACTION_TIMEOUT_MS + 60_000);
  const consoleErrors = collectConsoleErrors(page);
  await page.goto(server.url);
  await page.getByTestId('new-sweep-button').click();
  await page.getByTestId('sweep-source-typed').check();
  await page.getByTestId('sweep-typed-command').fill(`for i in $(seq 1 60); do echo "iter $i: loss 3.0$i, time {ms}.00ms, mfu 1.00%"; sleep 0.05; done`);
  await page.getByTestId('sweep-typed-cwd').fill(server.dataDir);
  await page.getByTestId('vary-values-0').fill('30, 15');
  await page.getByTestId('sweep-plan-one-at-a-time').check();
  await page.getByTestId('sweep-repeats').fill('2');
  await page.getByTestId('sweep-wait').uncheck();
  await page.getByTestId('sweep-preview').click();
  await page.getByTestId('sweep-start').click();
  await expect(page).toHaveURL(/#\/sweeps\/\d+$/u);

  const now = page.getByTestId('sweep-current');
  await expect(now).toContainText(/^Run 1 of 4, baseline, repeat 1\/2: running for \d+ s/u);
  await expect(page.getByTestId('sweep-progress-text')).toHaveText('Sweep: 0 of 4 runs (0 %)');
  // The time it has run counts up while it runs.
  const firstReading = await now.textContent();
  await expect(now).not.toHaveText(firstReading!);
  await expect(now).toContainText(/^Run 1 of 4, baseline, repeat 1\/2: running for [1-9]\d* s/u);
  // The engine moves on: the second run, its config, and the bar.
  await expect(now).toContainText(/^Run 2 of 4, ms=15, repeat 1\/2: running for \d+ s/u, { timeout: LONG_ACTION_TIMEOUT_MS });
  await expect(page.getByTestId('sweep-progress-text')).toHaveText('Sweep: 1 of 4 runs (25 %)');
  await expect(page).toHaveTitle(/^▶ 1\/4 · /u);
  await screenshot(page, 'progress-03-typed-sweep-second-run');

  // Stop: the run under way and the rest; what ran is kept, and the bar says how far it got.
  await page.getByTestId('sweep-cancel').click();
  await expect(page.getByTestId('sweep-status')).toHaveText('cancelled', { timeout: 30_000 });
  await expect(now).toHaveCount(0);
  await expect(page.getByTestId('sweep-progress')).toHaveClass(/tone-stopped/u);
  await expect(page.getByTestId('sweep-config-0').getByTestId('run-link')).toHaveCount(1);
  await screenshot(page, 'progress-04-typed-sweep-stopped');
  expect(consoleErrors).toEqual([]);
});
