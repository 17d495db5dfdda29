// Before/after a code change in the UI, on a repository made here with two commits of a small script: a directory
// outside git refused with what to do, the commits listed, the diff before running, the two sides run with repeats,
// and the comparison it lands on, with the code diff between the two one click away; then uncommitted work offered
// as the working tree against HEAD.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, screenshot, test } from './serverFixture.js';

/** Four short runs of a shell script: a minute is generous. */
const BEFORE_AFTER_TIMEOUT_MS = 60_000;
/** No nvidia-smi at all: no waiting for an idle GPU. */
const NO_GPU = { TUNING_BENCH_NVIDIA_SMI: '', PATH: '/usr/bin:/bin' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

/** A training script in nanoGPT's format whose printed step time is `ms`. */
function trainScript(ms: number): string {
  return `for i in $(seq 1 30); do echo "iter $i: loss 3.0$i, time ${ms}.00ms, mfu 1.00%"; done\n`;
}

function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

test.use({ serverEnv: NO_GPU });

test('two commits picked from the list, run with repeats, land on the comparison with the code diff one click away', async ({ page, server }) => {
  test.setTimeout(BEFORE_AFTER_TIMEOUT_MS + 60_000);
  const consoleErrors = collectConsoleErrors(page);
  const repo = path.join(server.dataDir, 'project');
  fs.mkdirSync(repo);
  git(repo, 'init', '-q');
  fs.writeFileSync(path.join(repo, 'train.sh'), trainScript(40));
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'the first version');
  const slow = git(repo, 'rev-parse', 'HEAD').trim();
  fs.writeFileSync(path.join(repo, 'train.sh'), trainScript(20));
  git(repo, 'commit', '-qam', 'overlap data loading with compute');
  const fast = git(repo, 'rev-parse', 'HEAD').trim();

  await page.goto(server.url);
  await page.getByTestId('new-sweep-button').click();
  await page.getByTestId('before-after-button').click();
  await expect(page).toHaveURL(/#\/sweeps\/before-after$/u);
  await page.getByTestId('ba-command').fill('sh train.sh');

  // Outside a repository: said plainly, with what to give instead.
  await page.getByTestId('ba-cwd').fill(server.dataDir);
  await page.getByTestId('ba-list-commits').click();
  await expect(page.getByTestId('ba-git-error')).toContainText('is not in a git repository');
  await expect(page.getByTestId('ba-git-error')).toContainText("give a directory inside your project's repository");
  await expect(page.getByTestId('ba-start')).toBeDisabled();
  await screenshot(page, 'before-after-not-a-repo');

  await page.getByTestId('ba-cwd').fill(repo);
  await page.getByTestId('ba-list-commits').click();
  await expect(page.getByTestId('ba-repository')).toContainText('main · working tree clean');
  // A clean tree: the last commit against the one before it.
  await expect(page.getByTestId('ba-before')).toHaveValue(slow);
  await expect(page.getByTestId('ba-after')).toHaveValue(fast);
  // Branches first, then HEAD's recent commits, then any revision typed.
  await expect(page.getByTestId('ba-after').locator('option')).toHaveText([
    /^main · \w{7} overlap data loading with compute$/u,
    /overlap data loading with compute \(HEAD\)/u,
    /the first version/u,
    'Another revision (type it)…',
  ]);
  await expect(page.getByTestId('ba-after-label')).toContainText(`${fast.slice(0, 7)} overlap data loading with compute`);
  // Nothing git does not track: nothing to link.
  await expect(page.getByTestId('ba-data')).toContainText('Nothing untracked or ignored');
  await page.getByTestId('show-revision-diff').click();
  await expect(page.getByTestId('revision-diff-text')).toContainText('time 40.00ms');
  await expect(page.getByTestId('revision-diff-text')).toContainText('time 20.00ms');
  await page.getByTestId('ba-repeats').fill('2');
  // A shared machine is never a quiet host: no waiting for one here.
  await page.getByTestId('ba-wait').uncheck();
  // Each step of the script holds 8 samples on both sides: the comparison reads per sample.
  await page.getByTestId('ba-work-kind').selectOption('samples');
  await page.getByTestId('ba-work').fill('8');
  await expect(page.getByTestId('ba-start')).toHaveText('▶ Run before/after (4 runs)');
  await screenshot(page, 'before-after-form');

  await page.getByTestId('ba-start').click();
  await expect(page.getByTestId('ba-running')).toBeVisible();
  // It lands on the comparison once both sides have run.
  await expect(page).toHaveURL(/#\/compare\?sweeps=\d+$/u, { timeout: BEFORE_AFTER_TIMEOUT_MS });
  await expect(page.getByTestId('compare-view')).toHaveAttribute('data-ready', 'true');
  const rows = page.getByTestId('compare-view').locator('tbody tr');
  await expect(rows).toHaveCount(2);
  // Sides by short SHA and subject.
  await expect(rows.nth(0).getByTestId('row-name')).toHaveText(`${slow.slice(0, 7)} the first version`);
  await expect(rows.nth(0).getByTestId('row-verdict')).toHaveText('baseline');
  await expect(rows.nth(1).getByTestId('row-name')).toHaveText(`${fast.slice(0, 7)} overlap data loading with compute`);
  await expect(rows.nth(1).getByTestId('row-verdict')).toHaveText('faster');
  await expect(rows.nth(1).getByTestId('row-speedup')).toContainText('2');
  await expect(page.getByTestId('compare-table').locator('thead')).toContainText('Samples/s');

  // The change it measured, one click away.
  await page.getByTestId('show-revision-diff').click();
  await expect(page.getByTestId('revision-diff-facts')).toContainText(`${slow.slice(0, 7)} → ${fast.slice(0, 7)}`);
  await expect(page.getByTestId('revision-diff-text')).toContainText('-for i in $(seq 1 30); do echo "iter $i: loss 3.0$i, time 40.00ms, mfu 1.00%"; done');
  await expect(page.getByTestId('revision-diff-text')).toContainText('+for i in $(seq 1 30); do echo "iter $i: loss 3.0$i, time 20.00ms, mfu 1.00%"; done');
  await screenshot(page, 'before-after-compare');

  // Uncommitted work: offered as the working tree against HEAD.
  fs.writeFileSync(path.join(repo, 'train.sh'), trainScript(10));
  await page.goto(`${server.url}#/sweeps/before-after`);
  await page.getByTestId('ba-command').fill('sh train.sh');
  await page.getByTestId('ba-cwd').fill(repo);
  await page.getByTestId('ba-list-commits').click();
  await expect(page.getByTestId('ba-repository')).toContainText('uncommitted changes in the working tree');
  await expect(page.getByTestId('ba-before')).toHaveValue(fast);
  await expect(page.getByTestId('ba-after')).toHaveValue('WORKTREE');
  await page.getByTestId('show-revision-diff').click();
  await expect(page.getByTestId('revision-diff-text')).toContainText('time 10.00ms');
  // The tree was only read.
  expect(git(repo, 'status', '--porcelain')).toBe(' M train.sh\n');
  expect(consoleErrors).toEqual([]);
});
