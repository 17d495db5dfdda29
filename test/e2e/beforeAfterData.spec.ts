// Before/after in the UI on a repository shaped like nanoGPT, whose data git ignores: the form offers the data ticked
// (caches not), any revision typed or picked by branch, both sides run with the data linked, the verdict, then a
// profile of each side made after the sweep (in its worktree made again); and, with the data unticked, each side's
// failure with what to do.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { assertTorch, skipTorchTests, TORCH_PYTHON } from '../helpers/torch.js';
import { expect, REPO_ROOT, screenshot, test } from './serverFixture.js';

/** No nvidia-smi at all: no waiting for an idle GPU. */
const NO_GPU = { TUNING_BENCH_NVIDIA_SMI: '', PATH: '/usr/bin:/bin' };
/** Six runs of a small PyTorch loop (each a few seconds to import torch) and two profiles, on a busy 2-core machine. */
const SWEEP_TIMEOUT_MS = 240_000;
const NANO_LOOP = path.join(REPO_ROOT, 'test/fixtures/profiling/nano_loop.py');

test.skip(skipTorchTests('beforeAfterData.spec.ts'), 'TUNING_BENCH_SKIP_TORCH_TESTS=1 and no PyTorch here');
test.beforeAll(assertTorch);
test.use({ serverEnv: NO_GPU });

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

/**
 * A nanoGPT-like repository: train.py (the fixture's loop) whose get_batch() waits 150 ms per batch in the first
 * commit and not in the second; data/shakespeare_char/prepare.py tracked, its .bin files ignored; a __pycache__/.
 */
function nanoRepo(dir: string): { repo: string; slow: string; fast: string } {
  const repo = path.join(dir, 'nano');
  const data = path.join(repo, 'data/shakespeare_char');
  fs.mkdirSync(data, { recursive: true });
  git(repo, 'init', '-q');
  fs.writeFileSync(path.join(repo, '.gitignore'), '*.bin\n__pycache__/\n');
  fs.writeFileSync(path.join(data, 'prepare.py'), '"""Writes train.bin and val.bin (here: the test writes them)."""\n');
  const loop = fs.readFileSync(NANO_LOOP, 'utf8');
  const withDefault = (ms: string) =>
    loop.replace('parser.add_argument("--batch-ms", type=float, default=0.0)', `parser.add_argument("--batch-ms", type=float, default=${ms})`);
  fs.writeFileSync(path.join(repo, 'train.py'), withDefault('150.0'));
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'read batches from disk one by one');
  const slow = git(repo, 'rev-parse', 'HEAD').trim();
  fs.writeFileSync(path.join(repo, 'train.py'), withDefault('0.0'));
  git(repo, 'commit', '-qam', 'keep the batches in memory');
  const fast = git(repo, 'rev-parse', 'HEAD').trim();
  for (const [split, count] of [
    ['train', 50_000],
    ['val', 5_000],
  ] as const) {
    const tokens = new Uint16Array(count).map((_, i) => (i * 7919) % 65);
    fs.writeFileSync(path.join(data, `${split}.bin`), Buffer.from(tokens.buffer));
  }
  fs.mkdirSync(path.join(repo, '__pycache__'));
  fs.writeFileSync(path.join(repo, '__pycache__/train.cpython-311.pyc'), 'cache');
  return { repo, slow, fast };
}

async function openForm(page: Page, url: string, repo: string): Promise<void> {
  await page.goto(`${url}#/sweeps/before-after`);
  await page.getByTestId('ba-command').fill(`${TORCH_PYTHON} train.py --iters 26 --eval-interval 1000 --eval-iters 2`);
  await page.getByTestId('ba-cwd').fill(repo);
  await page.getByTestId('ba-list-commits').click();
  await expect(page.getByTestId('ba-repository')).toContainText('main · working tree clean');
}

test('the data git ignores is offered ticked and linked: both sides run, a verdict, then a profile of each side', async ({ page, server }) => {
  test.setTimeout(SWEEP_TIMEOUT_MS + 180_000);
  const { repo, slow, fast } = nanoRepo(server.dataDir);
  await openForm(page, server.url, repo);

  // The data is offered ticked, linked file by file inside the tracked data/; the cache is offered unticked.
  await expect(page.getByTestId('ba-link-data/')).toBeChecked();
  await expect(page.getByTestId('ba-data')).toContainText('data/shakespeare_char/train.bin, data/shakespeare_char/val.bin');
  await expect(page.getByTestId('ba-link-__pycache__/')).not.toBeChecked();

  // Any revision: the before side typed, the after side picked by its branch; each shown with its commit's subject.
  await page.getByTestId('ba-before').selectOption({ label: 'Another revision (type it)…' });
  await page.getByTestId('ba-before-typed').fill('HEAD~1');
  await page.getByTestId('ba-before-typed').press('Enter');
  await expect(page.getByTestId('ba-before-label')).toContainText(`${slow.slice(0, 7)} read batches from disk one by one`);
  await page.getByTestId('ba-after').selectOption('main');
  await expect(page.getByTestId('ba-after-label')).toContainText(`${fast.slice(0, 7)} keep the batches in memory`);
  await page.getByTestId('ba-repeats').fill('3');
  // Three a side: with two, one run slowed by a busy machine leaves a t-interval (1 degree of freedom) too wide to decide.
  // A shared machine is never a quiet host: no waiting for one here.
  await page.getByTestId('ba-wait').uncheck();
  await screenshot(page, 'before-after-data-form');

  await page.getByTestId('ba-start').click();
  await expect(page.getByTestId('ba-running')).toBeVisible();
  await expect(page).toHaveURL(/#\/compare\?sweeps=\d+$/u, { timeout: SWEEP_TIMEOUT_MS });
  await expect(page.getByTestId('compare-view')).toHaveAttribute('data-ready', 'true');
  const rows = page.getByTestId('compare-view').locator('tbody tr');
  await expect(rows).toHaveCount(2);
  // Sides by short SHA and subject; the verdict.
  await expect(rows.nth(0).getByTestId('row-name')).toHaveText(`${slow.slice(0, 7)} read batches from disk one by one`);
  await expect(rows.nth(1).getByTestId('row-name')).toHaveText(`${fast.slice(0, 7)} keep the batches in memory`);
  await expect(rows.nth(1).getByTestId('row-verdict')).toHaveText('faster');
  await expect(page.getByTestId('sweep-links')).toContainText('data/shakespeare_char/train.bin, data/shakespeare_char/val.bin');
  await expect(page.getByTestId('sweep-failures')).toHaveCount(0);
  await screenshot(page, 'before-after-data-verdict');

  // A profile of each side, after the sweep (its worktrees are gone: each is made again).
  const profiles = page.getByTestId('compare-profiles');
  await profiles.scrollIntoViewIfNeeded();
  await profiles.getByRole('button', { name: 'Profile the baseline' }).click();
  await expect(profiles.getByText('has no profile yet')).toHaveCount(0, { timeout: 120_000 });
  await profiles.getByRole('button', { name: 'Profile', exact: true }).click();
  const after = profiles.locator('.compare-profile');
  await expect(after.locator('.profile-diagnosis')).toContainText(/input: \d+\.\d → \d+\.\d ms per step \(-\d+\.\d ms, faster/u, { timeout: 120_000 });
  await expect(after.locator('tr', { hasText: 'input' })).toBeVisible();
  await after.scrollIntoViewIfNeeded();
  await screenshot(page, 'before-after-data-profiles');

  // The baseline side's own page: where it ran and what was linked, and its profile naming the script's batch code as input.
  const listed = execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin/tuning-bench.js'), '--db', server.dbPath, 'runs', '--json'], { encoding: 'utf8' });
  // The baseline row's first run: the one its Profile button profiled.
  const sideRuns = (JSON.parse(listed) as Array<{ id: number; configIndex: number | null; sweepId: number | null }>).filter(
    (r) => r.sweepId !== null && r.configIndex === 0,
  );
  const baselineRun = Math.min(...sideRuns.map((r) => r.id));
  await page.goto(`${server.url}#/runs/${baselineRun}`);
  await expect(page.getByTestId('run-checkout')).toContainText(`Ran in a temporary worktree of HEAD~1 (${slow.slice(0, 12)})`);
  await expect(page.getByTestId('run-checkout')).toContainText('Linked from your tree: data/shakespeare_char/train.bin, data/shakespeare_char/val.bin');
  await page.getByTestId('charts-tab-profile').click();
  await expect(page.getByTestId('profile-diagnosis')).toContainText("in the script's own batch code (get_batch (train.py:");
  await expect(page.getByTestId('profile-input')).toContainText('Input is waiting in a torch DataLoader');
  await screenshot(page, 'before-after-data-side-profile');
  // The user's tree was only read: nothing tracked changed, no worktree left.
  expect(git(repo, 'status', '--porcelain')).toBe('');
  expect(git(repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
});

test('with the data unticked, each side says why it failed and what to do', async ({ page, server }) => {
  test.setTimeout(SWEEP_TIMEOUT_MS);
  const { repo } = nanoRepo(server.dataDir);
  await openForm(page, server.url, repo);
  await page.getByTestId('ba-link-data/').uncheck();
  await page.getByTestId('ba-repeats').fill('1');
  await page.getByTestId('ba-wait').uncheck();
  await page.getByTestId('ba-start').click();
  await expect(page.getByTestId('ba-running')).toContainText('It ended failed', { timeout: SWEEP_TIMEOUT_MS });
  const failures = page.getByTestId('sweep-failures');
  await expect(failures).toContainText('Every config failed');
  await expect(failures.getByTestId('sweep-failure-reason').first()).toContainText(
    "FileNotFoundError: [Errno 2] No such file or directory: 'data/shakespeare_char/train.bin'",
  );
  await expect(failures.getByTestId('sweep-failure-hint').first()).toContainText(
    'data/shakespeare_char/train.bin is in your tree but not in the worktree: git does not track it',
  );
  await screenshot(page, 'before-after-data-failed');
  // The sweep's own page says the same.
  await page.getByRole('link', { name: /Open sweep #\d+/u }).click();
  await expect(page.getByTestId('sweep-failures')).toContainText('Tick it under "Data git does not track"');
});
