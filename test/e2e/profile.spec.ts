// The run view's Profile tab: the Profile button re-runs an unmodified PyTorch script with a window profiled,
// then the tab shows the diagnosis, a phase bar per step and the operator table, and "Open trace" saves the trace.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { assertTorch, skipTorchTests, TORCH_PYTHON } from '../helpers/torch.js';
import { expect, REPO_ROOT, screenshot, test } from './serverFixture.js';

const SLEEPY = path.join(REPO_ROOT, 'test/fixtures/profiling/sleepy_loader.py');

test.skip(skipTorchTests('profile.spec.ts'), 'TUNING_BENCH_SKIP_TORCH_TESTS=1 and no PyTorch here');
test.beforeAll(assertTorch);

test('Profile re-runs a run and shows where its steps go', async ({ page, server }) => {
  test.setTimeout(120_000);
  // A plain run recorded by the CLI on the server's database (both faces share one file).
  const seeded = spawnSync(
    process.execPath,
    [
      path.join(REPO_ROOT, 'bin/tuning-bench.js'),
      '--db',
      server.dbPath,
      'run',
      '--json',
      '--',
      TORCH_PYTHON,
      SLEEPY,
      '--steps',
      '30',
      '--sleep-ms',
      '30',
      '--width',
      '64',
    ],
    { cwd: server.dataDir, encoding: 'utf8', timeout: 60_000 },
  );
  expect(seeded.status, seeded.stderr).toBe(0);
  const runId = (JSON.parse(seeded.stdout) as { id: number }).id;

  await page.goto(`${server.url}#/runs/${runId}`);
  await page.getByTestId('charts-tab-profile').click();
  await expect(page.getByTestId('profile-none')).toBeVisible();
  await page.getByTestId('profile-button').click();
  await expect(page.getByTestId('profile-button')).toContainText('Profiling in run #');

  await expect(page.getByTestId('profile-ops')).toBeVisible({ timeout: 60_000 });
  // Ten steady steps from step 11 (as the script numbers them); a step this busy machine slowed is left out and drawn faint.
  await expect(page.getByTestId('profile-source')).toContainText(
    /^torch\.profiler on cpu, steps 11-\d+ as the script numbers them after 10 warm-up steps; means over 10 steps/u,
  );
  await expect(page.getByTestId('profile-diagnosis')).toContainText('input-bound');
  await expect(page.getByTestId('phase-bar-mean').getByRole('img')).toHaveAttribute(
    'aria-label',
    /^data loading \d+ %, input \(script's batch code\) \d+ %, forward/u,
  );
  const leftOut = await page.locator('.phase-row.left-out').count();
  await expect(page.locator('.phase-row')).toHaveCount(11 + leftOut);
  await expect(page.getByTestId('profile-ops').locator('td.op-name')).toContainText(['aten::addmm']);
  await screenshot(page, 'run-profile');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('open-trace').click()]);
  expect(download.suggestedFilename()).toMatch(/^run-\d+-trace\.json$/u);
  const trace = JSON.parse(fs.readFileSync((await download.path())!, 'utf8')) as unknown;
  const events = Array.isArray(trace) ? trace : (trace as { traceEvents: unknown[] }).traceEvents;
  expect(events.length).toBeGreaterThan(100);
});

test("the compare view shows a config's profile beside the baseline's", async ({ page, server }) => {
  test.setTimeout(120_000);
  const profiledRun = (sleepMs: number) => {
    const result = spawnSync(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin/tuning-bench.js'),
        '--db',
        server.dbPath,
        'run',
        '--json',
        '--profile',
        '--profile-warmup',
        '4',
        '--profile-steps',
        '6',
        '--',
        TORCH_PYTHON,
        SLEEPY,
        '--steps',
        '14',
        '--sleep-ms',
        String(sleepMs),
        '--width',
        '64',
      ],
      { cwd: server.dataDir, encoding: 'utf8', timeout: 60_000 },
    );
    expect(result.status, result.stderr).toBe(0);
    return (JSON.parse(result.stdout) as { id: number }).id;
  };
  const baseline = profiledRun(30);
  const faster = profiledRun(1);

  await page.goto(`${server.url}#/compare?runs=${baseline},${faster}&baseline=${baseline}&by=run`);
  const row = page.getByTestId(`compare-profile-row-${faster}`);
  await expect(row).toBeVisible({ timeout: 30_000 });
  await expect(row.locator('.profile-diagnosis')).toContainText(/data loading: \d+\.\d → \d+\.\d ms per step \(-\d+\.\d ms, faster/u);
  await expect(row.locator('tr', { hasText: 'data loading' })).toContainText('-');
  await row.scrollIntoViewIfNeeded();
  await screenshot(page, 'compare-profiles');
});
