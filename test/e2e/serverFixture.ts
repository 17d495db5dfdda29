// A headless server of our own for each test: its own database file, started from the built CLI.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test as base } from '@playwright/test';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
export const SCREENSHOTS = path.join(REPO_ROOT, 'test-results', 'screenshots');

export interface HeadlessServer {
  url: string;
  origin: string;
  dataDir: string;
  dbPath: string;
}

export interface StartServerOptions {
  /** Put over the test runner's environment: `TUNING_BENCH_NVIDIA_SMI`, `PATH`, the fake nvidia-smi's settings. */
  env?: Readonly<Record<string, string>>;
}

/** Starts `tuning-bench serve` on `dataDir`/runs.db; tests that restart a server on the same database call it directly. */
export async function startServer(dataDir: string, options: StartServerOptions = {}): Promise<{ child: ChildProcess; url: string }> {
  const dbPath = path.join(dataDir, 'runs.db');
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/tuning-bench.js'), '--db', dbPath, 'serve'], {
    cwd: dataDir,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not print its URL in 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Open (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/u.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return { child, url };
}

/** In a `serverEnv` value, this stands for the test's own data directory (a per-test state file goes there). */
export const DATA_DIR = '{dataDir}';

export const test = base.extend<{ server: HeadlessServer; serverEnv: Record<string, string> }>({
  /** Extra environment for the test's server: `test.use({ serverEnv: { ... } })`. */
  serverEnv: [{}, { option: true }],
  server: async ({ serverEnv }, use) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-e2e-'));
    const env = Object.fromEntries(Object.entries(serverEnv).map(([key, value]) => [key, value.replaceAll(DATA_DIR, dataDir)]));
    const { child, url } = await startServer(dataDir, { env });
    await use({ url, origin: new URL(url).origin, dataDir, dbPath: path.join(dataDir, 'runs.db') });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  },
});

export async function screenshot(page: import('@playwright/test').Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  // The terminal's code loads with the first run page: a picture taken meanwhile would show its placeholder by chance.
  await page.getByTestId('terminal-loading').waitFor({ state: 'detached', timeout: 10_000 });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

export { expect } from '@playwright/test';
