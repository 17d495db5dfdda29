// The run view's terminal: colours, keyboard input, Ctrl-C, search, copy, log downloads, timestamps, a flood, limits, orphans.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, screenshot, startServer, test } from './serverFixture.js';

/** xterm's DOM renderer gives each cell of ANSI colour N the class xterm-fg-N (the bar is green, 2; its counts cyan, 6). */
const GREEN = '.xterm-rows span.xterm-fg-2';
const CYAN = '.xterm-rows span.xterm-fg-6';

/** Output of a flood test: `head -c` writes exactly this many bytes. */
const FLOOD_BYTES = 30_000_000;

async function startSynthetic(page: Page, steps: number, timeLimitMinutes?: string): Promise<void> {
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('workload-select').selectOption({ label: 'synthetic (builtin)' });
  await page.getByTestId('var-steps').fill(String(steps));
  if (timeLimitMinutes !== undefined) await page.getByTestId('time-limit').fill(timeLimitMinutes);
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-status')).toBeVisible();
}

/** A shell-mode workload made through the New workload form, then started. */
async function startShellScript(page: Page, name: string, script: string, formScreenshot?: string): Promise<void> {
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('new-workload-button').click();
  await page.getByTestId('workload-name').fill(name);
  await page.getByTestId('workload-cwd').fill(os.tmpdir());
  await page.getByTestId('workload-mode').selectOption('shell');
  await page.getByTestId('workload-command').fill(script);
  if (formScreenshot) await screenshot(page, formScreenshot);
  await page.getByTestId('save-workload').click();
  await expect(page.getByTestId('workload-select').locator('option:checked')).toHaveText(name);
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-status')).toBeVisible();
}

async function finishedSynthetic(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await startSynthetic(page, 150);
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  await expect(page.getByTestId('terminal')).toContainText('eval: loss');
}

test('a colourful progress bar is drawn in colour and ends at 100%', async ({ page, server }) => {
  await page.goto(server.url);
  await startSynthetic(page, 150);
  const terminal = page.getByTestId('terminal');
  await expect(terminal).toContainText(/train\s+\d+%\|/u);
  await expect(terminal.locator(GREEN).first()).toBeVisible();
  await screenshot(page, 'terminal-progress-running');
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  await expect(terminal).toContainText('100%|');
  await expect(terminal.locator(GREEN).first()).toBeVisible();
  await expect(terminal.locator(CYAN).first()).toBeVisible();
  await screenshot(page, 'terminal-progress-done');
});

test('keys typed in the terminal answer the program’s prompt', async ({ page, server }) => {
  await page.goto(server.url);
  await startShellScript(page, 'prompt', `printf 'Continue? '; read answer; echo "got $answer"`, 'new-workload-shell');
  const terminal = page.getByTestId('terminal');
  await expect(terminal).toContainText('Continue?');
  await terminal.click();
  await page.keyboard.type('yes');
  await page.keyboard.press('Enter');
  await expect(terminal).toContainText('got yes');
  await expect(page.getByTestId('run-status')).toHaveText('succeeded');
  await screenshot(page, 'terminal-prompt-answered');
});

test('Ctrl-C typed in the terminal interrupts the training, which exits 130 on its own', async ({ page, server }) => {
  await page.goto(server.url);
  await startSynthetic(page, 100_000);
  const terminal = page.getByTestId('terminal');
  await expect(terminal).toContainText('step 10: loss');
  await terminal.click();
  await page.keyboard.press('Control+C');
  await expect(terminal).toContainText('interrupted at step', { timeout: 15_000 });
  // The program's own exit, not a Stop: a failure. Its status is 130, which the engine's wrapper shell cannot tell
  // apart from death by SIGINT (128 + 2), so it records "signal SIGINT".
  await expect(page.getByTestId('run-status')).toHaveText('failed', { timeout: 15_000 });
  await expect(page.getByTestId('run-exit')).toHaveText(/exit code 130|signal SIGINT/u);
});

test('search finds a line in the scrollback and counts the matches', async ({ page, server }) => {
  await finishedSynthetic(page, server.url);
  const search = page.getByTestId('terminal-search');
  await search.fill('step 120');
  await expect(page.getByTestId('search-results')).toHaveText('1 of 1');
  // The addon marks every highlighted match with this class (the active one too).
  await expect(page.locator('.xterm-find-result-decoration').first()).toBeAttached();
  await search.fill('loss');
  await expect(page.getByTestId('search-results')).toHaveText(/^\d+ of \d+$/u);
  const first = await page.getByTestId('search-results').textContent();
  await search.press('Enter');
  await expect(page.getByTestId('search-results')).not.toHaveText(first ?? '');
  await page.getByTestId('search-prev').click();
  await expect(page.getByTestId('search-results')).toHaveText(first ?? '');
  await search.fill('no such text anywhere');
  await expect(page.getByTestId('search-results')).toHaveText('No match');
  await search.fill('step 120');
  await screenshot(page, 'terminal-search');
  await search.press('Escape');
  await expect(search).toHaveValue('');
  await expect(page.locator('.xterm-find-result-decoration')).toHaveCount(0);
});

test('Ctrl+F in the terminal focuses the search box (dark scheme)', async ({ page, server }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await finishedSynthetic(page, server.url);
  await page.getByTestId('terminal').click();
  await page.keyboard.press('Control+F');
  await expect(page.getByTestId('terminal-search')).toBeFocused();
  await page.keyboard.type('eval');
  await expect(page.getByTestId('search-results')).toHaveText('1 of 1');
  await page.getByTestId('terminal-search').fill('loss');
  await page.getByTestId('search-next').click();
  await expect(page.getByTestId('search-results')).toHaveText(/^\d+ of \d+$/u);
  await screenshot(page, 'terminal-search-dark');
});

test('Copy puts the screen’s text on the clipboard and says so', async ({ page, server, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  await finishedSynthetic(page, server.url);
  await page.getByTestId('copy-output').click();
  await expect(page.getByTestId('copy-output')).toHaveText(/Copied/u);
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toContain('eval: loss');
  await expect(page.getByTestId('copy-output')).toHaveText('Copy');
});

test('the log downloads as plain text and as raw bytes', async ({ page, server }) => {
  await finishedSynthetic(page, server.url);

  const [plain] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-plain').click()]);
  await expect(page.getByTestId('save-result')).toHaveText('Download started');
  const plainText = fs.readFileSync(await plain.path(), 'utf8');
  expect(plainText).toContain('eval: loss');
  expect(plainText).toContain('step 150: loss');
  expect(plainText).not.toContain('\x1b');

  const [raw] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-raw').click()]);
  const rawText = fs.readFileSync(await raw.path(), 'utf8');
  expect(rawText).toContain('\x1b[');
  expect(rawText).toContain('eval: loss');
  expect(plain.suggestedFilename()).not.toBe(raw.suggestedFilename());
  await screenshot(page, 'terminal-downloaded');
});

test('the timestamps view also prefixes live output of a running run', async ({ page, server }) => {
  await page.goto(server.url);
  await startSynthetic(page, 100_000);
  const terminal = page.getByTestId('terminal');
  await expect(terminal).toContainText('step 10: loss');
  await page.getByTestId('timestamps-toggle').click();
  // Whichever step lines are on screen by now (a busy machine draws the page later), each has its time.
  await expect(terminal).toContainText(/\[\+\d+\.\d{3}s\] step \d+: loss/u);
  // Lines drawn after the switch, live, get their times too.
  const before = Number(/step (\d+): loss/u.exec((await terminal.textContent()) ?? '')?.[1] ?? 0);
  await expect(terminal).toContainText(new RegExp(`\\[\\+\\d+\\.\\d{3}s\\] step ${before + 200}: loss`, 'u'));
  await screenshot(page, 'terminal-timestamps-live');
  await page.getByTestId('stop-run').click();
  await expect(page.getByTestId('run-status')).toHaveText('stopped', { timeout: 15_000 });
});

test('the timestamps view prefixes each line with the time since the start', async ({ page, server }) => {
  await finishedSynthetic(page, server.url);
  const terminal = page.getByTestId('terminal');
  await expect(terminal).not.toContainText('[+');
  await page.getByTestId('timestamps-toggle').click();
  await expect(page.getByTestId('timestamps-toggle')).toHaveAttribute('aria-pressed', 'true');
  await expect(terminal).toContainText(/\[\+\d+\.\d{3}s\] eval: loss/u);
  await expect(terminal).toContainText(/\[\+\d+\.\d{3}s\] step 150: loss/u);
  // Re-rendered from the stored output, not appended to it.
  expect((await terminal.textContent())?.match(/eval: loss/gu)?.length).toBe(1);
  await screenshot(page, 'terminal-timestamps');
  await page.getByTestId('timestamps-toggle').click();
  await expect(terminal).not.toContainText('[+');
  await expect(terminal).toContainText('eval: loss');
});

test('a 30 MB flood leaves the page responsive and ends with its last lines shown', async ({ page, server }) => {
  test.setTimeout(120_000);
  await page.goto(server.url);
  await startShellScript(page, 'flood', `yes "flood line of output" | head -c ${FLOOD_BYTES}`);
  const terminal = page.getByTestId('terminal');
  await expect(terminal).toContainText('flood line of output');
  const runRow = page.getByTestId('runs-list').locator('[data-testid^="run-row-"]').first();

  // While it pours (or just after, on a fast machine), the rest of the page still answers.
  await page.getByTestId('new-run-button').click();
  await expect(page.getByTestId('start-run')).toBeVisible();
  await runRow.click();
  await expect(page.getByTestId('run-status')).toBeVisible();
  await expect(terminal).toContainText('flood line of output');
  await screenshot(page, 'terminal-flood-running');

  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 60_000 });
  const outputFact = page.locator('.facts div').filter({ hasText: 'Output' }).locator('dd');
  await expect(outputFact).toHaveText('28.6 MiB', { timeout: 10_000 });
  await expect(terminal).toContainText('flood line of output');
  // The last row on screen is the flood's last (cut) line, then the cursor's empty row.
  const rows = terminal.locator('.xterm-rows > div');
  await expect(rows.filter({ hasText: 'flood line' }).last()).toBeVisible();
  // Reopened, it replays the end only, under a notice that stays within the scrollback: search finds it there.
  await page.getByTestId('new-run-button').click();
  await runRow.click();
  await expect(terminal).toContainText('flood line of output');
  await page.getByTestId('terminal-search').fill('are not shown here; download the log');
  await expect(page.getByTestId('search-results')).toHaveText('1 of 1');
  await screenshot(page, 'terminal-flood-done');
});

test('a flood paced over seconds is followed live to its last line', async ({ page, server }) => {
  test.setTimeout(120_000);
  const sent: Record<string, number> = {};
  page.on('websocket', (socket) =>
    socket.on('framesent', (frame) => {
      const method = /"method":"([\w.]+)"/u.exec(String(frame.payload))?.[1];
      if (method) sent[method] = (sent[method] ?? 0) + 1;
    }),
  );
  await page.goto(server.url);
  await startShellScript(page, 'paced flood', `for i in $(seq 1 40); do yes "flood line $i of 40" | head -c 500000; sleep 0.1; done; echo "flood done"`);
  const terminal = page.getByTestId('terminal');
  await expect(terminal).toContainText('flood line');
  await expect(page.getByTestId('terminal-search')).toBeEditable();
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 60_000 });
  await expect(terminal).toContainText('flood done');
  await expect(terminal).toContainText('flood line 40 of 40');
  // Drawn output was acknowledged (in ~5,000-char units, so far fewer calls than events).
  expect(sent['runs.ackOutput'] ?? 0).toBeGreaterThan(0);
  await screenshot(page, 'terminal-paced-flood');
});

test('a time limit stops the run, which ends timed_out', async ({ page, server }) => {
  await page.goto(server.url);
  await startSynthetic(page, 100_000, '0.05');
  await expect(page.getByTestId('run-status')).toHaveText('timed_out', { timeout: 20_000 });
  await expect(page.getByTestId('run-exit-class')).toHaveText('timeout');
});

test('Stop says how it escalates until the run has ended', async ({ page, server }) => {
  await page.goto(server.url);
  // Shrugs off SIGINT, so the stop takes until SIGTERM, 3 s in.
  await startShellScript(page, 'stubborn', `trap 'echo ignoring SIGINT' INT; echo ready; while :; do sleep 0.2; done`);
  await expect(page.getByTestId('terminal')).toContainText('ready');
  await page.getByTestId('stop-run').click();
  await expect(page.getByTestId('stopping-note')).toHaveText('Stopping… SIGINT sent; SIGTERM after 3 s, SIGKILL after 6 s');
  await screenshot(page, 'run-stopping');
  await expect(page.getByTestId('run-status')).toHaveText('stopped', { timeout: 15_000 });
  await expect(page.getByTestId('stopping-note')).toHaveCount(0);
});

test('a training left running by a killed server is reported, and stopped from the banner', async ({ page }) => {
  test.setTimeout(90_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-e2e-orphan-'));
  let orphanPid: number | null = null;
  const servers: ChildProcess[] = [];
  try {
    const first = await startServer(dataDir);
    servers.push(first.child);
    await page.goto(first.url);
    // Ignores the SIGHUP a dying terminal sends, as a training under nohup would.
    await startShellScript(page, 'survivor', `trap '' HUP; echo survivor up; while :; do sleep 1; done`);
    await expect(page.getByTestId('terminal')).toContainText('survivor up');
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;

    const second = await startServer(dataDir);
    servers.push(second.child);
    await page.goto(second.url);
    const banner = page.getByTestId('orphan-banner');
    await expect(banner).toContainText(/Run #1 left a training process running when Tuning Bench stopped \(pid \d+(; also [\d, ]+)?\)/u);
    await expect(banner).toContainText('sh -c');
    orphanPid = Number(/pid (\d+)/u.exec((await banner.textContent()) ?? '')?.[1]);
    await screenshot(page, 'orphan-banner');
    await page.getByTestId('orphan-stop-1').click();
    await expect(banner).toHaveCount(0, { timeout: 15_000 });
    expect(isAlive(orphanPid)).toBe(false);
  } finally {
    if (orphanPid !== null && isAlive(orphanPid)) process.kill(-orphanPid, 'SIGKILL');
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
