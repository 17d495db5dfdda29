// GPU control in the UI, on the fake nvidia-smi: the GPU view's state and manual changes (with their answers in full,
// a value refused as it is typed, the engine's range check, a refusal without root that shows the command to run),
// the confirmation when other processes use the GPU, a run with the Max sustained profile whose settings are put
// back when it ends, and the banner for settings a dead engine left in force.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { describeOperation } from '../../electron/shared/gpuSettings.js';
import { DATA_DIR, expect, REPO_ROOT, screenshot, test } from './serverFixture.js';

const FAKE_NVIDIA_SMI = path.join(REPO_ROOT, 'test/fixtures/fake-nvidia-smi');
const STATE_FILE = 'gpu-state.json';
const LOCK_2100 = describeOperation({ kind: 'lockClocks', range: { minMHz: 2100, maxMHz: 2100 } });

interface FakeGpuControl {
  persistence: boolean;
  gpuClockLock: [number, number] | null;
  memClockLock: [number, number] | null;
  powerLimitW: number;
}

/** The fake's control state of GPU 0, or null before any change was made (it writes the file only then). */
function fakeGpu(dataDir: string): FakeGpuControl | null {
  const file = path.join(dataDir, STATE_FILE);
  if (!fs.existsSync(file)) return null;
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { gpus: Record<string, FakeGpuControl> }).gpus['0'] ?? null;
}

/** The runs the GPU settings journal names as owners (read-only, beside the engines that write it). */
function journalRunIds(dbPath: string): Array<number | null> {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT run_id FROM gpu_settings_journal WHERE state = 'applied'").pluck().all() as Array<number | null>;
  } finally {
    db.close();
  }
}

function stateText(dataDir: string): string | null {
  const file = path.join(dataDir, STATE_FILE);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
}

function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

async function openGpuView(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByTestId('gpu-control-button').click();
  await expect(page).toHaveURL(/#\/gpu$/u);
}

const fakeEnv = (root: '0' | '1'): Record<string, string> => ({
  TUNING_BENCH_NVIDIA_SMI: FAKE_NVIDIA_SMI,
  // Per test: parallel tests must not share one pretend GPU.
  FAKE_NVIDIA_SMI_STATE: path.join(DATA_DIR, STATE_FILE),
  FAKE_NVIDIA_SMI_ROOT: root,
});

test.describe('as root', () => {
  test.use({ serverEnv: fakeEnv('1') });

  test('the GPU view shows the state, locks and resets clocks, refuses a bad value as typed and a power limit out of range', async ({ page, server }) => {
    const consoleErrors = collectConsoleErrors(page);
    await openGpuView(page, server.url);

    await expect(page.getByTestId('gpu-control-name')).toContainText('GPU 0 · NVIDIA GeForce RTX 4090');
    await expect(page.getByTestId('gpu-state-persistence')).toHaveText('off');
    await expect(page.getByTestId('gpu-state-clock-lock')).toHaveText('none known');
    await expect(page.getByTestId('gpu-state-power')).toContainText('450 W · default 450 W · range 150 W–600 W');
    await expect(page.getByTestId('gpu-state-supported')).toContainText('graphics 210–3120 MHz (195 steps)');
    await expect(page.getByTestId('gpu-state-supported')).toContainText('memory 405, 810, 5001, 10251, 10501 MHz');
    await expect(page.getByTestId('gpu-state-processes')).toHaveText('none');
    await expect(page.getByTestId('gpu-elevation')).toContainText('root — Tuning Bench runs as root');
    await expect(page.getByTestId('gpu-manual-none')).toBeVisible();
    await screenshot(page, 'gpu-control');

    // Lock at one clock: the fake's state has it, and so does the view (from the journal: nvidia-smi does not say).
    await page.getByTestId('gpu-lock-clocks-input').fill('2100');
    await page.getByTestId('gpu-lock-clocks').click();
    const outcome = page.getByTestId('gpu-outcome');
    await expect(outcome).toContainText(`Done: ${LOCK_2100}`);
    await expect(outcome).toContainText('GPU 0: GPU clocks set to "(gpuClkMin 2100, gpuClkMax 2100)"');
    await expect(page.getByTestId('gpu-outcome-warnings')).toContainText('persistence mode is disabled');
    expect(fakeGpu(server.dataDir)?.gpuClockLock).toEqual([2100, 2100]);
    await expect(page.getByTestId('gpu-state-clock-lock')).toHaveText('2100 MHz');
    await expect(page.getByTestId('gpu-manual')).toContainText(`${LOCK_2100} (manual)`);
    await screenshot(page, 'gpu-control-locked');

    await page.getByTestId('gpu-reset-clocks').click();
    await expect(outcome).toContainText('All done');
    await expect(page.getByTestId('gpu-state-clock-lock')).toHaveText('none known');
    await expect(page.getByTestId('gpu-manual-none')).toBeVisible();
    expect(fakeGpu(server.dataDir)?.gpuClockLock).toBeNull();

    // A value the parser refuses: said as it is typed, and the button stays off, so no command can run.
    const before = stateText(server.dataDir);
    await page.getByTestId('gpu-lock-clocks-input').fill('21a0');
    await expect(page.getByTestId('gpu-lock-clocks-error')).toHaveText(
      'a GPU clock lock is MHz as digits, MIN or MIN,MAX (e.g. 2100 or 1500,2100), got "21a0"',
    );
    await expect(page.getByTestId('gpu-lock-clocks')).toBeDisabled();
    await page.getByTestId('gpu-lock-clocks-input').press('Enter');
    await page.getByTestId('gpu-lock-clocks-input').fill('2100,1500');
    await expect(page.getByTestId('gpu-lock-clocks-error')).toContainText('MIN 2100 is above MAX 1500');
    await expect(page.getByTestId('gpu-lock-clocks')).toBeDisabled();
    await screenshot(page, 'gpu-control-invalid');
    expect(stateText(server.dataDir)).toBe(before);

    // Well-formed but beyond the board: the engine's range check answers, before nvidia-smi is asked.
    await page.getByTestId('gpu-power-limit-input').fill('9000');
    await page.getByTestId('gpu-power-limit').click();
    await expect(outcome).toHaveAttribute('role', 'alert');
    await expect(outcome).toContainText(/9000 W.*GPU 0 takes 150-600 W/u);
    expect(fakeGpu(server.dataDir)?.powerLimitW).toBe(450);
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'gpu-control-power-refused-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await page.getByTestId('gpu-power-limit-input').fill('400');
    await page.getByTestId('gpu-power-limit').click();
    await expect(outcome).toContainText('was set to 400.00 W from 450.00 W');
    await expect(page.getByTestId('gpu-state-power')).toContainText('400 W · default 450 W');
    expect(fakeGpu(server.dataDir)?.powerLimitW).toBe(400);
    await page.getByTestId('gpu-default-power').click();
    await expect(page.getByTestId('gpu-state-power')).toContainText('450 W · default 450 W');

    await page.getByTestId('gpu-persistence-on').click();
    await expect(page.getByTestId('gpu-state-persistence')).toHaveText('on');
    expect(fakeGpu(server.dataDir)?.persistence).toBe(true);
    await expect(page.getByTestId('gpu-manual')).toContainText(`${describeOperation({ kind: 'persistence', enabled: true })} (manual)`);
    await screenshot(page, 'gpu-control-persistence');
    expect(consoleErrors).toEqual([]);
  });

  test('a run with the Max sustained profile runs with its clocks locked, and the GPU is put back when it ends', async ({ page, server }) => {
    const consoleErrors = collectConsoleErrors(page);
    await page.goto(server.url);
    await page.getByTestId('new-run-button').click();
    await page.getByTestId('workload-select').selectOption({ label: 'synthetic (builtin)' });
    await page.getByTestId('var-steps').fill('400');

    const profile = page.getByTestId('gpu-profile-select');
    await expect(profile).toHaveValue('none');
    await profile.selectOption({ label: 'Max sustained' });
    // The profile's exact values (the RTX 4090 reports no sustained clock: 85 % of its 3120 MHz, on a 15 MHz step),
    // and where they come from.
    await expect(page.getByTestId('gpu-run-lock-clocks')).toHaveValue(/^\d+$/u);
    const clock = Number(await page.getByTestId('gpu-run-lock-clocks').inputValue());
    expect(clock).toBeGreaterThan(2000);
    expect(clock).toBeLessThan(3120);
    await expect(page.getByTestId('gpu-run-power-limit')).toHaveValue('450');
    await expect(page.getByTestId('gpu-run-lock-memory-clocks')).toHaveValue('');
    await expect(page.getByTestId('gpu-run-persistence')).toBeChecked();
    await expect(page.getByTestId('gpu-profile-basis')).toContainText('85 % of the 3120 MHz maximum');
    const operations = [
      describeOperation({ kind: 'persistence', enabled: true }),
      describeOperation({ kind: 'powerLimit', watts: 450 }),
      describeOperation({ kind: 'lockClocks', range: { minMHz: clock, maxMHz: clock } }),
    ];
    await expect(page.getByTestId('gpu-run-summary')).toHaveText(`For this run only: ${operations.join(' · ')}. Put back when it ends.`);
    await page.getByTestId('gpu-run-summary').scrollIntoViewIfNeeded();
    await screenshot(page, 'new-run-gpu-settings');

    // Editing a value makes it custom; a bad one is refused as typed and at Run.
    await page.getByTestId('gpu-run-lock-clocks').fill('26x0');
    await expect(profile).toHaveValue('custom');
    await expect(page.getByTestId('gpu-run-lock-clocks-error')).toContainText('a GPU clock lock is MHz as digits');
    await page.getByTestId('start-run').click();
    await expect(page.getByTestId('form-error')).toContainText('GPU settings: a GPU clock lock is MHz as digits');
    expect(stateText(server.dataDir)).toBeNull();
    await profile.selectOption({ label: 'Max sustained' });
    await expect(page.getByTestId('gpu-run-lock-clocks')).toHaveValue(String(clock));

    await page.getByTestId('start-run').click();
    const settings = page.getByTestId('run-gpu-settings');
    await expect(settings).toContainText(`persistence on · power limit 450 W · clocks locked at ${clock} MHz · memory clocks: no lock known`);
    await expect(page.getByTestId('run-status')).toHaveText('running');
    await expect(page.getByTestId('run-gpu-settings-origin')).toHaveText('set for this run, restored when it ends');
    expect(fakeGpu(server.dataDir)).toMatchObject({ persistence: true, gpuClockLock: [clock, clock], powerLimitW: 450 });
    await screenshot(page, 'run-gpu-settings-running');

    await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
    await expect(page.getByTestId('run-gpu-settings-origin')).toHaveText('set for this run, restored after');
    expect(fakeGpu(server.dataDir)).toMatchObject({ persistence: false, gpuClockLock: null, powerLimitW: 450 });
    await screenshot(page, 'run-gpu-settings');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'run-gpu-settings-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // A run without settings records what it found.
    await page.getByTestId('new-run-button').click();
    await expect(profile).toHaveValue('none');
    await page.getByTestId('var-steps').fill('20');
    await page.getByTestId('start-run').click();
    await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
    await expect(page.getByTestId('run-gpu-settings')).toContainText('persistence off · power limit 450 W · clocks: no lock known');
    await expect(page.getByTestId('run-gpu-settings-origin')).toHaveText('as found: Tuning Bench changed nothing for this run');
    expect(consoleErrors).toEqual([]);
  });

  test('settings a dead engine left in force get a banner, and Restore now puts them back', async ({ page, server }) => {
    const consoleErrors = collectConsoleErrors(page);
    // A CLI run on the same database locks the clocks for itself, then dies before it can put them back.
    const env = { ...process.env, ...fakeEnv('1'), FAKE_NVIDIA_SMI_STATE: path.join(server.dataDir, STATE_FILE) };
    const cli = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin/tuning-bench.js'), '--db', server.dbPath, 'run', '--lock-clocks', '2100', '--', 'sleep', '20'],
      { cwd: server.dataDir, env, stdio: 'ignore' },
    );
    try {
      await expect.poll(() => fakeGpu(server.dataDir)?.gpuClockLock ?? null, { timeout: 15_000 }).toEqual([2100, 2100]);
      // The lock is set before the run is recorded and then made the run's: killed in between, the banner could not name it.
      await expect.poll(() => journalRunIds(server.dbPath), { timeout: 15_000 }).toEqual([expect.any(Number)]);
    } finally {
      cli.kill('SIGKILL');
    }
    await new Promise((resolve) => cli.once('exit', resolve));

    await page.goto(server.url);
    const banner = page.getByTestId('gpu-abandoned-banner');
    await expect(banner).toContainText('GPU settings left by a run that did not finish are still in force:');
    await expect(banner).toContainText(new RegExp(`${LOCK_2100} \\(run \\d+\\)`, 'u'));
    await screenshot(page, 'gpu-abandoned-banner');
    // Nothing is put back before the person asks.
    expect(fakeGpu(server.dataDir)?.gpuClockLock).toEqual([2100, 2100]);

    await page.getByTestId('gpu-restore-abandoned').click();
    await expect(page.getByTestId('gpu-restore-result')).toContainText(`Restored: GPU-`);
    await expect(page.getByTestId('gpu-restore-result')).toContainText(LOCK_2100);
    await expect(banner).toHaveCount(0);
    expect(fakeGpu(server.dataDir)?.gpuClockLock).toBeNull();
    await screenshot(page, 'gpu-abandoned-restored');
    await page.getByTestId('gpu-restore-dismiss').click();
    await expect(page.getByTestId('gpu-restore-result')).toHaveCount(0);
    expect(consoleErrors).toEqual([]);
  });
});

test.describe('refused without root', () => {
  test.use({ serverEnv: fakeEnv('0') });

  test('the refusal is shown in full with the command to run in a terminal', async ({ page, server }) => {
    await openGpuView(page, server.url);
    await page.getByTestId('gpu-lock-clocks-input').fill('2000');
    await page.getByTestId('gpu-lock-clocks').click();
    const outcome = page.getByTestId('gpu-outcome');
    await expect(outcome).toHaveAttribute('role', 'alert');
    await expect(outcome).toContainText('cannot lock GPU clocks at 2000 MHz on GPU 0');
    await expect(outcome).toContainText('The current user does not have permission to change clocks');
    await expect(page.getByTestId('gpu-command')).toHaveText(/^sudo \S*nvidia-smi -i \S+ -lgc 2000,2000$/u);
    await expect(page.getByTestId('gpu-state-clock-lock')).toHaveText('none known');
    expect(stateText(server.dataDir)).toBeNull();
    await screenshot(page, 'gpu-control-refused');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'gpu-control-refused-dark');
  });
});

test.describe('with another process on the GPU', () => {
  test.use({ serverEnv: { ...fakeEnv('1'), TUNING_BENCH_LOAD_FILE: path.join(DATA_DIR, 'load.json') } });

  test('a clock lock asks first, listing the processes, and changes nothing when cancelled', async ({ page, server }) => {
    // The fake lists the load file's process while the file is fresh (2 s): keep it fresh, naming this test's process.
    const loadFile = path.join(server.dataDir, 'load.json');
    const writeLoad = () => fs.writeFileSync(loadFile, JSON.stringify({ t: Date.now(), phase: 'train', util: 0.4, vramMiB: 1200, pid: process.pid }));
    writeLoad();
    const keepFresh = setInterval(writeLoad, 300);
    try {
      await openGpuView(page, server.url);
      await expect(page.getByTestId('gpu-state-processes')).toContainText(`pid ${process.pid}`);

      await page.getByTestId('gpu-lock-clocks-input').fill('2100');
      await page.getByTestId('gpu-lock-clocks').click();
      const dialog = page.getByTestId('gpu-confirm-dialog');
      await expect(dialog).toBeVisible();
      await expect(dialog).toContainText('Other processes use this GPU');
      await expect(dialog).toContainText(`Changing clocks or power changes their speed too. About to: ${LOCK_2100}.`);
      await expect(page.getByTestId('gpu-confirm-processes')).toContainText(String(process.pid));
      await screenshot(page, 'gpu-confirm-processes');
      await page.getByTestId('gpu-confirm-cancel').click();
      await expect(dialog).toHaveCount(0);
      await expect(page.getByTestId('gpu-outcome')).toHaveText('Cancelled: nothing was changed.');
      expect(stateText(server.dataDir)).toBeNull();

      await page.getByTestId('gpu-lock-clocks').click();
      await page.getByTestId('gpu-confirm-ok').click();
      await expect(page.getByTestId('gpu-outcome')).toContainText('GPU clocks set to');
      expect(fakeGpu(server.dataDir)?.gpuClockLock).toEqual([2100, 2100]);

      // Persistence does not change anyone's speed: no question.
      await page.getByTestId('gpu-persistence-on').click();
      await expect(page.getByTestId('gpu-state-persistence')).toHaveText('on');
      await expect(dialog).toHaveCount(0);

      // A run with a profile asks the same before it starts; cancelled, no run starts.
      await page.getByTestId('new-run-button').click();
      await page.getByTestId('gpu-profile-select').selectOption({ label: 'Base clock' });
      await page.getByTestId('start-run').click();
      await expect(dialog).toContainText('About to: ');
      await expect(dialog).toContainText(describeOperation({ kind: 'powerLimit', watts: 450 }));
      await page.getByTestId('gpu-confirm-cancel').click();
      await expect(dialog).toHaveCount(0);
      await expect(page.getByTestId('start-run')).toBeEnabled();
      await expect(page.getByTestId('runs-list').locator('[data-testid^="run-row-"]')).toHaveCount(0);
    } finally {
      clearInterval(keepFresh);
    }
  });
});

test.describe('without nvidia-smi', () => {
  test.use({ serverEnv: { TUNING_BENCH_NVIDIA_SMI: '', PATH: '/usr/bin:/bin' } });

  test('the GPU view and the New run form say plainly that there is no NVIDIA GPU', async ({ page, server }) => {
    await page.goto(server.url);
    await page.getByTestId('new-run-button').click();
    await expect(page.getByTestId('gpu-run-settings-unavailable')).toContainText('No NVIDIA GPU: no nvidia-smi found');
    await expect(page.getByTestId('gpu-profile-select')).toHaveCount(0);
    await page.getByTestId('gpu-control-button').click();
    await expect(page.getByTestId('gpu-control-unavailable')).toContainText('No NVIDIA GPU: no nvidia-smi found');
    await expect(page.getByTestId('gpu-lock-clocks')).toHaveCount(0);
    await screenshot(page, 'gpu-control-none');
  });
});
