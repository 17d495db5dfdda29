// The exports read as an advisor would (issue 28, item 16): two configs on a box without a GPU, each run twice with one
// seed (identical repeats), compared in the UI and exported; the HTML report opened on its own in a 1,440 px window fits
// it, has no empty GPU columns, draws a throughput chart from the data on which each repeat is seen, and asks nothing of
// the network; the Markdown says the command, machine and software, with step time and loss beside throughput.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { promisify } from 'node:util';
import type { Page } from '@playwright/test';
import { compareRuns } from '../../electron/core/compare/compare.js';
import { EXPORTERS } from '../../electron/core/export/exporters.js';
import { qualityGate, run as runSchema, type Run } from '../../electron/shared/api.js';
import { expect, REPO_ROOT, SCREENSHOTS, test, type HeadlessServer } from './serverFixture.js';

const execFileAsync = promisify(execFile);
/** No nvidia-smi, whatever this machine has: the report of a box without a GPU. */
const NO_GPU = { TUNING_BENCH_NVIDIA_SMI: '/nonexistent/nvidia-smi' };
/** The window the issue measured the report in. */
const REPORT_WIDTH_PX = 1440;

test.use({ serverEnv: NO_GPU });

/** One synthetic run by the CLI on the server's database; one seed (the default) every time, so repeats are identical. */
async function run(server: HeadlessServer, batch: number): Promise<void> {
  await execFileAsync(
    process.execPath,
    [
      path.join(REPO_ROOT, 'bin/tuning-bench.js'),
      '--db',
      server.dbPath,
      'run',
      '--workload',
      'synthetic',
      '--set',
      `batch=${batch}`,
      '--set',
      'steps=60',
      '--json',
    ],
    {
      cwd: server.dataDir,
      env: { ...process.env, ...NO_GPU },
      timeout: 60_000,
    },
  );
}

/** The page and each table's box: a table wider than its box would scroll inside it, so fitting means no hidden columns either. */
async function expectFits(report: Page): Promise<void> {
  const widths = await report.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    tables: [...document.querySelectorAll('.table')].map((box) => ({ scroll: box.scrollWidth, client: box.clientWidth })),
  }));
  expect(widths.page).toBeLessThanOrEqual(REPORT_WIDTH_PX);
  expect(widths.tables.length).toBeGreaterThan(0);
  for (const table of widths.tables) expect(table.scroll).toBeLessThanOrEqual(table.client);
}

test('an exported report fits 1,440 px, drops empty columns, charts throughput with every repeat seen, and the Markdown says where it ran', async ({
  page,
  browser,
  server,
}) => {
  for (const batch of [8, 8, 16, 16]) await run(server, batch);

  await page.goto(server.url);
  await page.getByTestId('runs-table-button').click();
  for (const id of [1, 2, 3, 4]) await page.getByTestId(`select-run-${id}`).check();
  await page.getByTestId('compare-selected').click();
  await expect(page.getByTestId('compare-table')).toBeVisible();
  // Repeats pooled: a row per config, its two runs in it.
  await page.getByTestId('group-by-config').click();
  await expect(page.getByTestId('compare-row-1')).toBeVisible();
  await expect(page.getByTestId('compare-row-2')).toHaveCount(0);

  await page.getByTestId('export-menu').locator('summary').click();
  const [mdDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-md').click()]);
  const markdown = fs.readFileSync((await mdDownload.path())!, 'utf8');
  expect(markdown).toMatch(/^Command: .*train\.js --batch-size 8 /mu);
  expect(markdown).toMatch(/^Machine: Host \S+ · GPU none \(no nvidia-smi: host telemetry only\) · CPU .+, \d+ threads · Memory \d+ GiB · Kernel \S+ {2}$/mu);
  const header = markdown.split('\n').find((line) => line.startsWith('| Config'))!;
  expect(header).toMatch(/^\| Config \| Batch \| Tokens\/s \| Step time \| Final loss \| /u);
  expect(header).not.toMatch(/VRAM|GPU util|Power/u);
  // The runs ran one after the other, batch 8's before batch 16's: not interleaved, so batch 16's 1.09x is within the
  // shift a machine may make between them, undecided, and the baseline stays the best.
  expect(markdown).toMatch(/^\| batch=8 \(baseline\) ★ \| 8 \| [\d,]+ \| 12\.\d\d ms \| \d\.\d{3} \| /mu);
  expect(markdown).toMatch(
    /^\| batch=16 \| 16 \| .* \| 1\.09x \(1\.09-1\.09\) \| inconclusive \(more runs like these cannot decide\) \| .*ran apart in time/mu,
  );

  await page.getByTestId('export-menu').locator('summary').click();
  const [htmlDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-html').click()]);
  const reportPath = path.join(server.dataDir, htmlDownload.suggestedFilename());
  await htmlDownload.saveAs(reportPath);

  // The report alone, as the advisor opens it: a file, in a window of the issue's width.
  const context = await browser.newContext({ viewport: { width: REPORT_WIDTH_PX, height: 900 } });
  const report = await context.newPage();
  const requests: string[] = [];
  report.on('request', (request) => requests.push(request.url()));
  await report.goto(`file://${reportPath}`);
  expect(requests.filter((url) => !url.startsWith('file://'))).toEqual([]);

  await expectFits(report);

  const titlesOf = async (selector: string) => (await report.locator(selector).allInnerTexts()).map((h) => h.split('\n')[0]!.trim());
  expect(await titlesOf('[data-testid="comparison-table"] th')).toEqual(
    expect.arrayContaining(['Config', 'Tokens/s', 'Step time', 'Final loss', 'Speedup', 'Verdict', 'n']),
  );
  // No table of the report has a column for what a box without a GPU cannot measure.
  const everyTitle = await titlesOf('th');
  for (const empty of ['VRAM', 'GPU util', 'Power', 'Energy']) expect(everyTitle).not.toContain(empty);

  // The throughput chart: a dot per run; repeats of one value stacked apart (their boxes do not overlap) and counted.
  const chart = report.locator('svg[data-chart="throughput"]');
  await expect(chart).toBeVisible();
  await expect(chart.locator('circle[data-run]')).toHaveCount(4);
  for (const [first, second] of [
    [1, 2],
    [3, 4],
  ] as const) {
    const a = (await chart.locator(`circle[data-run="${first}"]`).boundingBox())!;
    const b = (await chart.locator(`circle[data-run="${second}"]`).boundingBox())!;
    expect(Math.abs(a.x - b.x)).toBeLessThan(0.5);
    expect(Math.abs(a.y - b.y)).toBeGreaterThanOrEqual(a.height);
  }
  await expect(chart.locator('text[data-identical="2"]')).toHaveCount(2);
  // The step charts draw each pair once and name both; the runs table says which run copies which.
  await expect(report.locator('svg[aria-label="Tokens/s by step"]')).toContainText('#1 batch=8 = #2 (identical)');
  await expect(report.getByTestId('runs-table')).toContainText('#1 (identical copy)');

  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await report.screenshot({ path: path.join(SCREENSHOTS, 'export-report-1440.png'), fullPage: true });
  await context.close();
});

/** A grid on an H100 box: every GPU column has figures, six variables vary, names and values are long. */
function wideGrid(): Run[] {
  const values: Record<string, string[]> = {
    batch: ['8', '16', '32'],
    num_workers: ['0', '4'],
    amp: ['off', 'bf16'],
    compile: ['off', 'max-autotune'],
    gradient_accumulation_steps: ['1', '4'],
    lr: ['3e-4', '1e-3'],
  };
  let configs: Array<Record<string, string>> = [{}];
  for (const [name, options] of Object.entries(values)) configs = configs.flatMap((config) => options.map((value) => ({ ...config, [name]: value })));
  let id = 0;
  // 24 of the 96, spread over all of them (37 and 96 share no factor, so these are 24 different ones).
  const picked = Array.from({ length: 24 }, (_, i) => configs[(i * 37) % configs.length]!);
  return picked.flatMap((config) =>
    [0, 1, 2].map((repeat) => {
      id++;
      const throughput = 100_000 * (1 + Number(config.batch) / 16) * (config.amp === 'bf16' ? 1.8 : 1) * (1 + 0.003 * (repeat % 2));
      return runSchema.parse({
        id,
        workloadId: 1,
        workloadName: 'train',
        status: 'succeeded',
        exitCode: 0,
        signal: null,
        exitClass: 'ok',
        exitReason: null,
        startedAt: new Date(Date.UTC(2026, 10, 27, 10, 0, id)).toISOString(),
        endedAt: null,
        command: ['python', 'train.py'],
        cwd: '/data/experiments',
        config,
        env: {},
        pid: null,
        outputBytes: 0,
        summary: {
          steps: 500,
          steadySteps: 480,
          throughput: { median: throughput, iqr: 100, unit: 'tokens/s', blocks: [throughput, throughput + repeat] },
          stepTimeMs: { median: ((Number(config.batch) * 1024) / throughput) * 1000 },
          finalLoss: 2.3456,
          evalLoss: 2.4012,
          nanDetected: false,
          gpu: { utilMean: 91.3, vramPeakMiB: 61_234, powerMeanW: 612.5, energyJ: 100_000, throttledSeconds: 0 },
          host: null,
          tokensPerStep: Number(config.batch) * 1024,
          fairness: {
            ok: repeat !== 1,
            issues:
              repeat === 1
                ? [
                    { kind: 'host-busy', message: 'others used 1.2 cores' },
                    { kind: 'throttled', message: 'power cap' },
                  ]
                : [],
          },
          lossCurve: [
            [250, 3],
            [500, 2.3456],
          ],
        },
        gpuSettings: { persistenceMode: true, powerLimitW: 700, clockLock: { minMHz: 1980, maxMHz: 1980 }, memoryClockLock: null },
        fingerprint: {
          hostname: 'gpu-node-17.cluster.internal.example.org',
          gpuName: 'NVIDIA H100 80GB HBM3',
          driverVersion: '550.90.07',
          cudaVersion: '12.4',
          cpuModel: 'AMD EPYC 9654 96-Core Processor',
          cpuCores: 384,
          memoryGiB: 1536,
          kernel: '5.15.0-113-generic',
          pythonVersion: '3.11.9',
          torchVersion: '2.4.1+cu124',
          torchCuda: '12.4',
          cudnn: 90100,
        },
      });
    }),
  );
}

test('a report of a wide grid on a GPU box still fits 1,440 px: six varied variables, every GPU column, long names', async ({ browser }) => {
  const runs = wideGrid();
  const comparison = compareRuns(runs, {
    groupBy: 'config',
    gate: qualityGate.parse({}),
    now: new Date('2026-11-27T12:00:00.000Z'),
    commands: [
      'torchrun --nproc_per_node=1 train.py --batch_size {batch} --num_workers {num_workers} --amp {amp} --compile {compile} --gradient_accumulation_steps {gradient_accumulation_steps} --lr {lr}',
    ],
  });
  expect(comparison.columns).toHaveLength(6);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-report-'));
  const file = path.join(dir, 'report.html');
  fs.writeFileSync(file, EXPORTERS.html.render({ comparison, runs: new Map(runs.map((r) => [r.id, r])), series: [], title: 'A grid on the H100 box' }));
  const context = await browser.newContext({ viewport: { width: REPORT_WIDTH_PX, height: 900 } });
  const report = await context.newPage();
  await report.goto(`file://${file}`);
  await expectFits(report);
  // Every GPU figure is there, in the report's table of resources.
  const titles = (await report.locator('[data-testid="resources-table"] th').allInnerTexts()).map((h) => h.split('\n')[0]!.trim());
  expect(titles).toEqual(['Config', 'VRAM', 'GPU util', 'Power', 'Energy', 'Fairness']);
  await expect(report.locator('svg[data-chart="throughput"] circle[data-run]')).toHaveCount(runs.length);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await report.screenshot({ path: path.join(SCREENSHOTS, 'export-report-wide-grid-1440.png') });
  await context.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
