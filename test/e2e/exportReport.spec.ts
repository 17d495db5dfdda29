// The exports read as an advisor would (issue 28, item 16): two configs on a box without a GPU, each run twice with one
// seed (identical repeats), compared in the UI and exported; the HTML report opened on its own in a 1,440 px window fits
// it, has no empty GPU columns, draws a throughput chart from the data on which each repeat is seen, and asks nothing of
// the network; the Markdown says the command, machine and software, with step time and loss beside throughput.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, REPO_ROOT, SCREENSHOTS, test, type HeadlessServer } from './serverFixture.js';

const execFileAsync = promisify(execFile);
/** No nvidia-smi, whatever this machine has: the report of a box without a GPU. */
const NO_GPU = { TUNING_BENCH_NVIDIA_SMI: '/nonexistent/nvidia-smi' };
/** The window the issue measured the report in. */
const REPORT_WIDTH_PX = 1440;

test.use({ serverEnv: NO_GPU });

/** One synthetic run by the CLI on the server's database; one seed (the default) every time, so repeats are identical. */
async function run(server: HeadlessServer, batch: number): Promise<void> {
  await execFileAsync(process.execPath, [path.join(REPO_ROOT, 'bin/tuning-bench.js'), '--db', server.dbPath, 'run', '--workload', 'synthetic', '--set', `batch=${batch}`, '--set', 'steps=60', '--json'], {
    cwd: server.dataDir,
    env: { ...process.env, ...NO_GPU },
    timeout: 60_000,
  });
}

test('an exported report fits 1,440 px, drops empty columns, charts throughput with every repeat seen, and the Markdown says where it ran', async ({ page, browser, server }) => {
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
  expect(markdown).toMatch(/^\| batch=8 \(baseline\) \| 8 \| [\d,]+ \| 12\.\d\d ms \| \d\.\d{3} \| /mu);

  await page.getByTestId('export-menu').locator('summary').click();
  const [htmlDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-html').click()]);
  const reportPath = path.join(server.dataDir, htmlDownload.suggestedFilename());
  await htmlDownload.saveAs(reportPath);

  // The report alone, as the advisor opens it: a file, in a window of the width.
  const context = await browser.newContext({ viewport: { width: REPORT_WIDTH_PX, height: 900 } });
  const report = await context.newPage();
  const requests: string[] = [];
  report.on('request', (request) => requests.push(request.url()));
  await report.goto(`file://${reportPath}`);
  expect(requests.filter((url) => !url.startsWith('file://'))).toEqual([]);

  const widths = await report.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    // A table wider than its box would scroll inside it: fitting means no hidden columns either.
    tables: [...document.querySelectorAll('.table')].map((box) => ({ scroll: box.scrollWidth, client: box.clientWidth })),
  }));
  expect(widths.page).toBeLessThanOrEqual(REPORT_WIDTH_PX);
  for (const table of widths.tables) expect(table.scroll).toBeLessThanOrEqual(table.client);

  const titlesOf = async (selector: string) => (await report.locator(selector).allInnerTexts()).map((h) => h.split('\n')[0]!.trim());
  expect(await titlesOf('[data-testid="comparison-table"] th')).toEqual(expect.arrayContaining(['Config', 'Tokens/s', 'Step time', 'Final loss', 'Speedup', 'Verdict', 'n']));
  // No table of the report has a column for what a box without a GPU cannot measure.
  const everyTitle = await titlesOf('th');
  for (const empty of ['VRAM', 'GPU util', 'Power', 'Energy']) expect(everyTitle).not.toContain(empty);

  // The throughput chart: a dot per run; repeats of one value stacked apart (their boxes do not overlap) and counted.
  const chart = report.locator('svg[data-chart="throughput"]');
  await expect(chart).toBeVisible();
  await expect(chart.locator('circle[data-run]')).toHaveCount(4);
  for (const [first, second] of [[1, 2], [3, 4]] as const) {
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
