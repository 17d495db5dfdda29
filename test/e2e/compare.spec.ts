// Compare and export in the UI: two synthetic sweeps run by the CLI against the test server's database, compared
// side by side (verdicts, the gate, the baseline and grouping in the URL, overlaid charts), exported as Markdown whose
// figures are the ones on screen; and notes and tags edited in the runs table and the run view, kept across a reload,
// narrowing the table when filtered by.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from '@playwright/test';
import { DATA_DIR, expect, REPO_ROOT, screenshot, test, type HeadlessServer } from './serverFixture.js';

const execFileAsync = promisify(execFile);
const FAKE_NVIDIA_SMI = path.join(REPO_ROOT, 'test/fixtures/fake-nvidia-smi');
const FAKE_STATE = 'fake-nvidia-smi.json';
/** Ten short synthetic runs with a second of start-up each at most: generous. */
const SEED_TIMEOUT_MS = 90_000;

function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

/** The CLI on the server's own database (SQLite in WAL mode lets both write), on the same pretend GPU. */
async function cli(server: HeadlessServer, args: readonly string[]): Promise<unknown> {
  const { stdout } = await execFileAsync(process.execPath, [path.join(REPO_ROOT, 'bin/tuning-bench.js'), '--db', server.dbPath, ...args, '--json'], {
    cwd: server.dataDir,
    env: { ...process.env, TUNING_BENCH_NVIDIA_SMI: FAKE_NVIDIA_SMI, FAKE_NVIDIA_SMI_STATE: path.join(server.dataDir, FAKE_STATE) },
    timeout: SEED_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as unknown;
}

interface SweepJson {
  id: number;
  status: string;
  configs: Array<{ name: string; runIds: number[] }>;
}

async function sweep(server: HeadlessServer, args: readonly string[]): Promise<SweepJson> {
  const result = (await cli(server, ['sweep', '--workload', 'synthetic', '--no-wait-idle', ...args])) as SweepJson;
  expect(result.status).toBe('succeeded');
  return result;
}

/** A row's cell text as shown: the figure alone, without its interval under it. */
async function figure(page: Page, row: number, cell: 'row-throughput' | 'row-speedup'): Promise<string> {
  return (await page.getByTestId(`compare-row-${row}`).getByTestId(cell).locator('.figure').textContent())!.trim();
}

test.use({
  serverEnv: { TUNING_BENCH_NVIDIA_SMI: FAKE_NVIDIA_SMI, FAKE_NVIDIA_SMI_STATE: path.join(DATA_DIR, FAKE_STATE) },
});

test('two sweeps compared: verdicts, baseline, grouping and gate in the URL, charts, and a Markdown export with the same figures', async ({
  page,
  context,
  server,
}) => {
  test.setTimeout(SEED_TIMEOUT_MS + 90_000);
  const consoleErrors = collectConsoleErrors(page);
  // The ladder (baseline, +batch=16, +amp=on), and a second sweep on the workers.
  const first = await sweep(server, ['--set', 'steps=60', '--vary', 'batch=8,16', '--vary', 'amp=off,on', '--repeats', '2']);
  const second = await sweep(server, ['--set', 'steps=60', '--set', 'batch=16', '--vary', 'workers=0,4', '--repeats', '2']);
  expect(first.configs.map((c) => c.name)).toEqual(['baseline', '+batch=16', '+amp=on']);

  // From the sweep view: its Compare button opens the comparison of that sweep.
  await page.goto(`${server.url}#/sweeps/${first.id}`);
  await page.getByTestId('compare-sweep').click();
  await expect(page).toHaveURL(new RegExp(`#/compare\\?sweeps=${first.id}$`, 'u'));
  await expect(page.getByTestId('compare-table').locator('tbody tr')).toHaveCount(3);

  // Both sweeps: a row per config, repeats pooled; a column for each variable that differs between rows.
  await page.goto(`${server.url}#/compare?sweeps=${first.id},${second.id}`);
  const table = page.getByTestId('compare-table');
  await expect(table.locator('tbody tr')).toHaveCount(5);
  await expect(table.locator('thead th.variable')).toHaveText(['Batch', 'Workers', 'AMP']);
  await expect(page.getByTestId('compare-row-0').getByTestId('row-verdict')).toHaveText('baseline');
  await expect(page.getByTestId('compare-row-0')).toHaveClass(/baseline/u);
  // AMP on top of batch 16 is about 1.5 times the baseline on the synthetic workload's formula: no noise hides that.
  await expect(page.getByTestId('compare-row-2').getByTestId('row-name')).toHaveText('+amp=on');
  await expect(page.getByTestId('compare-row-2').getByTestId('row-verdict')).toHaveText('faster');
  await expect(page.getByTestId('compare-row-2').getByTestId('row-speedup')).toHaveClass(/verdict-text-faster/u);
  for (const row of [1, 3, 4]) {
    await expect(page.getByTestId(`compare-row-${row}`).getByTestId('row-verdict')).toHaveText(/^(faster|slower|same ±2 %|inconclusive)$/u);
  }
  // The second sweep ran after the first: its rows are not interleaved with the baseline's runs, and say so; its
  // batch=16 row (1.09x, as in sweep 1) is told only beyond ±10 %, its workers=4 row (about 1.7x) clears it.
  await expect(page.getByTestId('compare-row-1').getByTestId('row-apart')).toHaveCount(0);
  for (const row of [3, 4]) await expect(page.getByTestId(`compare-row-${row}`).getByTestId('row-apart')).toContainText('ran apart');
  await expect(page.getByTestId('compare-row-3').getByTestId('row-verdict')).toHaveText('inconclusive');
  await expect(page.getByTestId('compare-row-3').getByTestId('row-apart')).toHaveText('ran apart: one sweep decides');
  await expect(page.getByTestId('compare-row-3').getByTestId('row-apart')).toHaveAttribute('title', /ran apart in time .* run both in one sweep/u);
  await expect(page.getByTestId('compare-row-4').getByTestId('row-verdict')).toHaveText('faster');
  await expect(page.getByTestId('compare-row-4').getByTestId('row-apart')).toHaveText('ran apart; beyond ±10 %');
  // The baseline is what the others are gated against, not gated itself; the gate is stated.
  await expect(page.getByTestId('compare-row-0').getByTestId('row-gate')).toHaveText('n/a');
  await expect(page.getByTestId('compare-gate-text')).toContainText('within +0.05 of the baseline');
  await expect(page.getByTestId('compare-row-2').getByTestId('row-n')).toHaveText('2');
  // The fake GPU gives every row a VRAM peak and a power draw.
  await expect(page.getByTestId('compare-row-2').getByTestId('row-vram')).toHaveText(/^[\d,]+ MiB$/u);
  await expect(table.locator('tr.best')).toHaveCount(1);
  await expect(page.getByTestId('compare-notes')).toContainText('Losses compared pair by pair');
  // Rows are named by what they change against the one baseline; names two sweeps share say which sweep they are.
  await expect(page.getByTestId('compare-row-2').getByTestId('row-loss-delta')).toHaveAttribute('title', /against baseline's/u);
  const names = await table.getByTestId('row-name').allTextContents();
  expect(new Set(names).size, names.join(' | ')).toBe(names.length);
  await expect(page.getByTestId('compare-row-2').getByTestId('row-compared')).toContainText('loss');

  // The charts: one line a run (ten runs), drawn from the stored series.
  const charts = page.getByTestId('compare-charts');
  await expect(charts).toHaveAttribute('data-ready', 'true');
  await expect(page.getByTestId('compare-legend').locator('.legend-toggle')).toHaveCount(10);
  const throughputChart = page.getByTestId('compare-chart-throughput');
  await expect(throughputChart).toHaveAttribute('data-lines', '10');
  await expect(page.getByTestId('compare-chart-loss')).toHaveAttribute('data-points', /^[1-9]\d*$/u);
  await expect(page.getByTestId('compare-chart-power')).toHaveAttribute('data-points', /^[1-9]\d*$/u);
  const allPoints = Number(await throughputChart.getAttribute('data-points'));
  const firstRun = first.configs[0]!.runIds[0]!;
  await page.getByTestId(`legend-run-${firstRun}`).click();
  await expect(page.getByTestId(`legend-run-${firstRun}`)).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(async () => Number(await throughputChart.getAttribute('data-points'))).toBeLessThan(allPoints);
  await page.getByTestId('legend-show-all').click();
  await expect(throughputChart).toHaveAttribute('data-points', String(allPoints));
  const [png] = await Promise.all([page.waitForEvent('download'), throughputChart.getByTestId('save-chart-png').click()]);
  expect(png.suggestedFilename()).toMatch(/^comparison-[a-z-]+\.png$/u);

  await screenshot(page, 'compare-view');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'compare-view-dark');
  await page.getByTestId('compare-chart-power').scrollIntoViewIfNeeded();
  await screenshot(page, 'compare-charts-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await screenshot(page, 'compare-charts');
  await page.getByTestId('compare-view').evaluate((view) => view.closest('main')?.scrollTo(0, 0));
  // At 1400x900 the view's controls and the whole table (every column, the gate's too) fit from the top of the main
  // area, with the charts starting below it: the layout the README's picture shows, checked here since
  // `npm run screenshots` is not part of the tests.
  await expect(table).toBeInViewport({ ratio: 1 });
  await expect(throughputChart).toBeInViewport();

  // Markdown: the figures on screen are the file's, in the same format.
  const tokS = await figure(page, 2, 'row-throughput');
  const speedup = await figure(page, 2, 'row-speedup');
  const delta = (await page.getByTestId('compare-row-2').getByTestId('row-loss-delta').textContent())!.trim();
  // Four significant figures: 170,700 tok/s; 1.52x; a signed delta such as +0.0123 or -0.004.
  expect(tokS).toMatch(/^\d{1,3}(,\d{3})+$/u);
  expect(speedup).toMatch(/^\d+(\.\d+)?x$/u);
  expect(delta).toMatch(/^([+-]\d+(\.\d+)?(e-\d+)?|0)$/u);
  await page.getByTestId('export-menu').locator('summary').click();
  await screenshot(page, 'compare-export-menu');
  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-md').click()]);
  expect(md.suggestedFilename()).toMatch(/^tuning-bench-comparison-.*\.md$/u);
  const markdown = fs.readFileSync((await md.path())!, 'utf8');
  // Step time and loss beside throughput; the fake GPU's columns are there (Fairness and Notes only when a row has some).
  expect(markdown).toContain(
    '| Config | Batch | Workers | AMP | Tokens/s | Step time | Final loss | Eval loss | Speedup (95 % CI) | Verdict | n | Runs (steady steps, warm-up, left out) | Work / step |',
  );
  expect(markdown).toMatch(/\| VRAM \| GPU util \| Power \| Compared \| Δ \| Gate \|/u);
  expect(markdown).toMatch(/^Machine: Host .* · GPU NVIDIA GeForce RTX 4090 · Driver /mu);
  const ampLine = markdown.split('\n').find((line) => line.startsWith('| +amp=on'));
  expect(ampLine).toBeDefined();
  expect(ampLine).toMatch(new RegExp(`\\| ${tokS} \\| [\\d.]+ ms \\| [\\d.]+ \\| [\\d.]+ \\| ${speedup.replace('.', '\\.')} \\(`, 'u'));
  expect(ampLine).toContain('| faster | 2 |');
  expect(ampLine).toContain(`| ${delta} |`);
  await expect(page.getByTestId('export-message')).toContainText('Saved tuning-bench-comparison-');

  // Copy puts the same Markdown on the clipboard.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  await page.getByTestId('export-menu').locator('summary').click();
  await page.getByTestId('copy-md').click();
  await expect(page.getByTestId('export-message')).toHaveText('Markdown copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(markdown);
  const [csv] = await Promise.all([
    page.waitForEvent('download'),
    page
      .getByTestId('export-menu')
      .locator('summary')
      .click()
      .then(() => page.getByTestId('export-csv').click()),
  ]);
  expect(fs.readFileSync((await csv.path())!, 'utf8')).toMatch(/^config,batch,workers,amp,baseline,runs,throughput_median/u);

  // Another baseline: chosen among the rows, kept in the URL, and the verdicts are against it.
  const secondBaseline = second.configs[0]!.runIds[0]!;
  await page.getByTestId('baseline-select').selectOption(String(secondBaseline));
  await expect(page).toHaveURL(new RegExp(`baseline=${secondBaseline}`, 'u'));
  await expect(page.getByTestId('compare-row-3').getByTestId('row-verdict')).toHaveText('baseline');
  // Sweep 1's baseline is about 0.92x of it, but ran in the sweep before: within the ±10 % allowed for that, so
  // undecided; sweep 2's workers=4 ran beside it, so its 1.55x is told as measured.
  await expect(page.getByTestId('compare-row-0').getByTestId('row-verdict')).toHaveText('inconclusive');
  await expect(page.getByTestId('compare-row-0').getByTestId('row-apart')).toHaveText('ran apart: one sweep decides');
  await expect(page.getByTestId('compare-row-4').getByTestId('row-verdict')).toHaveText('faster');
  await expect(page.getByTestId('compare-row-4').getByTestId('row-speedup')).toHaveClass(/verdict-text-faster/u);
  await expect(page.getByTestId('compare-row-4').getByTestId('row-apart')).toHaveCount(0);

  // A row per run: every repeat on its own.
  await page.getByTestId('group-by-run').click();
  await expect(page).toHaveURL(/by=run/u);
  await expect(table.locator('tbody tr')).toHaveCount(10);
  await page.getByTestId('group-by-config').click();
  await expect(table.locator('tbody tr')).toHaveCount(5);

  // A gate of zero: the badge's title says the allowance, and the runs' own spread it weighs where repeats differ.
  await page.getByTestId('gate-absolute').fill('0');
  await page.getByTestId('gate-relative').fill('0');
  await page.getByTestId('gate-relative').press('Enter');
  await expect(page).toHaveURL(/abs=0&rel=0/u);
  await expect(page.getByTestId('compare-row-0').getByTestId('row-gate')).toHaveAttribute('title', /allowed \+0(\.0+)?(\)| and the runs' own spread, ±)/u);
  // A reload keeps the whole comparison: sweeps, baseline and gate.
  await page.reload();
  await expect(page.getByTestId('compare-row-3').getByTestId('row-verdict')).toHaveText('baseline');
  await expect(page.getByTestId('gate-absolute')).toHaveValue('0');
  await expect(page.getByTestId('gate-relative')).toHaveValue('0');
  expect(consoleErrors).toEqual([]);
});

test('notes and tags: edited in the runs table and the run view, kept across a reload, and filtered by', async ({ page, server }) => {
  test.setTimeout(SEED_TIMEOUT_MS + 60_000);
  const consoleErrors = collectConsoleErrors(page);
  const seeded = await sweep(server, ['--set', 'steps=30', '--vary', 'batch=8,16', '--repeats', '1']);
  const loose = (await cli(server, ['run', '--workload', 'synthetic', '--set', 'steps=30'])) as { id: number };
  const [a, b] = seeded.configs.map((c) => c.runIds[0]!) as [number, number];
  const c = loose.id;

  await page.goto(server.url);
  await page.getByTestId('runs-table-button').click();
  await expect(page).toHaveURL(/#\/runs$/u);
  const rows = page.getByTestId('runs-table').locator('tbody tr');
  await expect(rows).toHaveCount(3);

  // Tags: checked as the engine checks them before anything is sent.
  await page.getByTestId(`edit-tags-${a}`).click();
  await page.getByTestId(`tags-input-${a}`).fill('amp, bad tag!');
  await expect(page.getByTestId(`runs-table-row-${a}`).getByRole('alert')).toContainText('a tag is letters, digits and . _ - +');
  await expect(page.getByTestId(`tags-input-${a}-save`)).toBeDisabled();
  await page.getByTestId(`tags-input-${a}`).fill('amp, keep, amp');
  await page.getByTestId(`tags-input-${a}`).press('Enter');
  await expect(page.getByTestId(`tags-${a}`).locator('.tag-chip')).toHaveText(['amp', 'keep']);
  await page.getByTestId(`edit-tags-${b}`).click();
  await page.getByTestId(`tags-input-${b}`).fill('keep');
  await page.getByTestId(`tags-input-${b}-save`).click();
  await expect(page.getByTestId(`tags-${b}`).locator('.tag-chip')).toHaveText(['keep']);
  await page.getByTestId(`edit-notes-${c}`).click();
  await page.getByTestId(`notes-input-${c}`).fill('loose run, before the sweep idea');
  await page.getByTestId(`notes-input-${c}`).press('Enter');
  await expect(page.getByTestId(`notes-${c}`)).toHaveText('loose run, before the sweep idea');
  // Escape leaves the notes as they were.
  await page.getByTestId(`edit-notes-${c}`).click();
  await page.getByTestId(`notes-input-${c}`).fill('not this');
  await page.getByTestId(`notes-input-${c}`).press('Escape');
  await expect(page.getByTestId(`notes-${c}`)).toHaveText('loose run, before the sweep idea');

  // Kept by the engine: a reload shows them.
  await page.reload();
  await expect(page.getByTestId(`tags-${a}`).locator('.tag-chip')).toHaveText(['amp', 'keep']);
  await expect(page.getByTestId(`notes-${c}`)).toHaveText('loose run, before the sweep idea');

  // Filters narrow the table: by tag, by sweep, by free text over command, config and notes.
  await page.getByTestId('filter-tag').selectOption('amp');
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId(`runs-table-row-${a}`)).toBeVisible();
  await page.getByTestId('filter-tag').selectOption('keep');
  await expect(rows).toHaveCount(2);
  await expect(page.getByTestId('runs-count')).toHaveText('2 of 3 runs');
  await screenshot(page, 'runs-table-filtered');
  await page.getByTestId('clear-filters').click();
  await expect(rows).toHaveCount(3);
  await page.getByTestId('filter-sweep').selectOption('none');
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId(`runs-table-row-${c}`)).toBeVisible();
  await page.getByTestId('filter-sweep').selectOption(String(seeded.id));
  await expect(rows).toHaveCount(2);
  await expect(page.getByTestId('compare-sweep-filter')).toHaveAttribute('href', `#/compare?sweeps=${seeded.id}`);
  await page.getByTestId('clear-filters').click();
  await page.getByTestId('filter-text').fill('before the sweep');
  await expect(rows).toHaveCount(1);
  await page.getByTestId('filter-text').fill('batch=16');
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId(`runs-table-row-${b}`)).toBeVisible();
  await page.getByTestId('clear-filters').click();

  // Sorted by throughput, fastest first: batch 16 beats batch 8 on the synthetic workload.
  await page.getByTestId('sort-throughput').click();
  await expect(rows.first()).toHaveAttribute('data-testid', `runs-table-row-${b}`);
  await page.getByTestId('sort-id').click();
  await expect(rows.first()).toHaveAttribute('data-testid', `runs-table-row-${c}`);
  await screenshot(page, 'runs-table');

  // The run view has the same notes and tags, and edits them too.
  await page.goto(`${server.url}#/runs/${a}`);
  await expect(page.getByTestId('run-tags').locator('.tag-chip')).toHaveText(['amp', 'keep']);
  await page.getByTestId('edit-annotations').click();
  await page.getByTestId('run-notes-input').fill('AMP on top of batch 8\nloss looked fine');
  await page.getByTestId('run-tags-input').fill('amp, keep, fp16');
  await page.getByTestId('save-annotations').click();
  await expect(page.getByTestId('run-notes')).toHaveText('AMP on top of batch 8\nloss looked fine');
  await expect(page.getByTestId('run-tags').locator('.tag-chip')).toHaveText(['amp', 'keep', 'fp16']);
  await screenshot(page, 'run-view-notes-tags');
  await page.reload();
  await expect(page.getByTestId('run-notes')).toHaveText('AMP on top of batch 8\nloss looked fine');

  // Picked in the table and compared: a row per run, the first picked (the oldest) the baseline.
  await page.goto(`${server.url}#/runs`);
  await page.getByTestId(`select-run-${b}`).check();
  await expect(page.getByTestId('compare-selected')).toBeDisabled();
  await page.getByTestId(`select-run-${a}`).check();
  await page.getByTestId('compare-selected').click();
  await expect(page).toHaveURL(new RegExp(`#/compare\\?runs=${a},${b}&by=run$`, 'u'));
  await expect(page.getByTestId('compare-table').locator('tbody tr')).toHaveCount(2);
  await expect(page.getByTestId('compare-row-0').getByTestId('row-verdict')).toHaveText('baseline');
  // One run a side says nothing about run-to-run variance: no faster/slower, and the row says why.
  await expect(page.getByTestId('compare-row-1').getByTestId('row-verdict')).toHaveText('repeat to decide');
  await expect(page.getByTestId('compare-row-1').getByTestId('row-reason')).toHaveText('1 run each: repeat to decide');
  await expect(page.getByTestId('compare-row-1').getByTestId('row-n')).toHaveText('1');
  expect(consoleErrors).toEqual([]);
});
