// A burst of API calls must not slow a live run's training: the engine reads the run's terminal between calls often
// enough to keep up with a flood, so the program writes at its own pace through the burst, not at the server's.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultRendererDir } from '../../electron/core/paths.js';
import { connectApiClient, startServeProcess } from '../helpers/serveProcess.js';
import { STAMPED_LINES, storedStampedLines } from '../helpers/stampedOutput.js';
import { makeTempDir } from '../helpers/tempCore.js';

const LINES_PER_SECOND = 100_000;
/** As the soak's flood: the probe that once left a live run unread for 23 s sent thousands of calls at once. */
const CALLS_PER_BURST = 5_000;
/**
 * The training's pace through the burst, as a share of its pace just before. With the terminal read only when a
 * 12 ms slice of calls ended, the program, blocked on each write, wrote at 5 % of its pace for the whole burst (about
 * 1 s; its writes each waited 160-240 ms); slices of 3 and 1 ms gave 17 % and 30-37 %. Read between calls
 * (system/waitingInput.ts) it keeps its pace (1.00 in two runs); half leaves room for two shared cores.
 */
const PACE_KEPT_AT_LEAST = 0.5;

const children: ChildProcess[] = [];
let dir: string | null = null;
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.length = 0;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = null;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a burst of calls beside a live run', () => {
  const uiBuilt = fs.existsSync(path.join(defaultRendererDir(), 'index.html'));

  it('leaves the training writing at its own pace', async () => {
    expect(uiBuilt, 'the UI is not built: run `npm run build` (npm test does) before this test').toBe(true);
    dir = makeTempDir('tb-burst-');
    const db = path.join(dir, 'runs.db');
    const { server, url, exited } = await startServeProcess(db);
    children.push(server);
    const api = await connectApiClient(url);
    const started = await api.call('runs.start', {
      command: { template: [process.execPath, STAMPED_LINES, String(LINES_PER_SECOND), '0'], mode: 'argv', cwd: dir },
      values: {},
      cols: 120,
      rows: 30,
    });
    expect(started.type === 'result' && started.result.ok, JSON.stringify(started)).toBe(true);
    const runId = (started as { result: { value: { id: number } } }).result.value.id;
    await sleep(2_000);

    const burstFrom = Date.now();
    const answers = await Promise.all(
      Array.from({ length: CALLS_PER_BURST }, (_, i) => (i % 10 === 0 ? api.call('runs.get', { id: runId }) : api.call('runs.list', { limit: 500 }))),
    );
    const burstTo = Date.now();
    expect(answers.every((answer) => answer.type === 'result' && answer.result.ok)).toBe(true);
    await sleep(1_000);
    server.kill('SIGKILL');
    await exited;
    api.close();

    const lines = storedStampedLines(db, runId);
    // Read from two places (the event loop and between calls), the output is still every line once, in order.
    expect(lines.findIndex((line, index) => line.line !== index + 1)).toBe(-1);
    const stamps = lines.map((line) => line.stampMs);
    const burstMs = burstTo - burstFrom;
    // The same length of time just before the burst, from the same run: the machine's pace for this program now.
    const before = stamps.filter((stamp) => stamp >= burstFrom - burstMs && stamp < burstFrom).length;
    const during = stamps.filter((stamp) => stamp >= burstFrom && stamp < burstTo).length;
    const report = JSON.stringify({ burstMs, linesBefore: before, linesDuring: during, paceKept: during / before });
    expect(before, report).toBeGreaterThan(0);
    expect(during / before, report).toBeGreaterThanOrEqual(PACE_KEPT_AT_LEAST);
    process.stdout.write(`call burst: ${report}\n`);
  }, 120_000);
});
