// A full disk and a busy database during a run: writing pauses and says so, the training goes on, and every byte is stored once space returns.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../electron/shared/api.js';
import { tempCore, type TempCore } from '../helpers/tempCore.js';

let harness: TempCore | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
});

/** Lines of about 4 KB: enough that the 64 KiB pages of the file must grow while the run is going. */
const LINE_FILLER_CHARS = 4000;
const LINES = 60;

function trainingLikeRun(h: TempCore) {
  const script = `i=1; while [ $i -le ${LINES} ]; do printf "line %04d %s\\n" $i "$(printf '%${LINE_FILLER_CHARS}s' | tr ' ' x)"; i=$((i+1)); sleep 0.05; done`;
  return h.core.startCommand({ adHoc: { command: ['sh', '-c', script], cwd: h.dir } });
}

function expectedOutput(): string {
  let text = '';
  for (let i = 1; i <= LINES; i += 1) text += `line ${String(i).padStart(4, '0')} ${'x'.repeat(LINE_FILLER_CHARS)}\n`;
  return text;
}

function storedOutput(h: TempCore, runId: number): string {
  // The pty ends lines with \r\n.
  return h.core.store.runs
    .outputAfter(runId, -1)
    .map((chunk) => chunk.data.toString())
    .join('')
    .replaceAll('\r\n', '\n');
}

/** Compared by length and line numbers so a failure prints a short message, not 240 KB of filler. */
function expectAllOutput(stored: string): void {
  const lineNumbers = [...stored.matchAll(/line (\d{4})/gu)].map((match) => Number(match[1]));
  expect(lineNumbers).toEqual(Array.from({ length: LINES }, (_, i) => i + 1));
  expect(stored.length).toBe(expectedOutput().length);
  expect(stored === expectedOutput()).toBe(true);
}

function collectStatus(h: TempCore, runId: number): Array<EventPayload<'runs.onTelemetryStatus'>> {
  const seen: Array<EventPayload<'runs.onTelemetryStatus'>> = [];
  h.core.subscribe((event, payload) => {
    if (event === 'runs.onTelemetryStatus' && (payload as { runId: number }).runId === runId) seen.push(payload as EventPayload<'runs.onTelemetryStatus'>);
  });
  return seen;
}

describe('the store outlives faults', () => {
  it('pauses on a full disk, tells the run page, keeps the training alive and stores every byte once space returns', async () => {
    harness = tempCore();
    const h = harness;
    const run = trainingLikeRun(h);
    const status = collectStatus(h, run.id);
    await expect.poll(() => h.core.store.runs.outputAfter(run.id, -1).length, { timeout: 10_000 }).toBeGreaterThan(0);
    // The file may not grow past the pages it has now: SQLite answers SQLITE_FULL, as a full disk would.
    const pages = h.core.store.db.pragma('page_count', { simple: true }) as number;
    h.core.recording.setMaxPageCount(pages);
    await expect.poll(() => status.some((s) => s.level === 'warning' && /full/iu.test(s.message)), { timeout: 10_000 }).toBe(true);
    expect(h.core.runner.isActive(run.id)).toBe(true);
    // Space returns.
    h.core.recording.setMaxPageCount(1_000_000);
    const ended = await h.core.runner.waitForExit(run.id);
    expect(ended.status).toBe('succeeded');
    expectAllOutput(storedOutput(h, run.id));
    expect(status.some((s) => s.level === 'info' && /resumed/iu.test(s.message))).toBe(true);
    expect(h.core.recording.writeStatus().state).toBe('writing');
  }, 30_000);

  it('holds output in bounded memory while the disk stays full: past the limit it is parsed and counted, never piled up', async () => {
    harness = tempCore();
    const h = harness;
    // Lines with a metric, so what is dropped is still seen to be parsed.
    const script = `i=1; while [ $i -le ${LINES} ]; do printf "step %d loss 2.%04d %s\\n" $i $i "$(printf '%${LINE_FILLER_CHARS}s' | tr ' ' x)"; i=$((i+1)); sleep 0.02; done`;
    const run = h.core.startCommand({ adHoc: { command: ['sh', '-c', script], cwd: h.dir } });
    const status = collectStatus(h, run.id);
    await expect.poll(() => h.core.store.runs.outputAfter(run.id, -1).length, { timeout: 10_000 }).toBeGreaterThan(0);
    h.core.recording.output.setHeldOutputLimit(32 * 1024);
    h.core.recording.setMaxPageCount(h.core.store.db.pragma('page_count', { simple: true }) as number);
    await expect
      .poll(() => status.some((s) => s.level === 'warning' && /reached 0 MiB|held in memory reached/iu.test(s.message)), { timeout: 20_000 })
      .toBe(true);
    expect(h.core.runner.isActive(run.id)).toBe(true);
    // The training ends while the disk is still full; space returns afterwards.
    await expect.poll(() => h.core.store.runs.get(run.id)?.status, { timeout: 20_000 }).not.toBe('running');
    h.core.recording.setMaxPageCount(1_000_000);
    await h.core.recording.flush();
    const ended = h.core.store.runs.get(run.id)!;
    expect(ended.status).toBe('succeeded');
    const stored = storedOutput(h, run.id);
    const expectedBytes = Buffer.byteLength(
      Array.from({ length: LINES }, (_, i) => `step ${i + 1} loss 2.${String(i + 1).padStart(4, '0')} ${'x'.repeat(LINE_FILLER_CHARS)}\n`).join(''),
    );
    expect(ended.outputDroppedBytes).toBeGreaterThan(0);
    // Nothing is lost without being counted: stored plus dropped is everything the program wrote.
    expect(ended.outputBytes + ended.outputDroppedBytes).toBe(expectedBytes);
    expect(Buffer.byteLength(stored)).toBe(ended.outputBytes);
    // Every step's loss was parsed, the dropped lines' included.
    const losses = h.core.store.metrics.forRun(run.id).filter((sample) => sample.name === 'loss');
    expect(losses.map((sample) => sample.step)).toEqual(Array.from({ length: LINES }, (_, i) => i + 1));
  }, 60_000);

  it('waits out another process holding a write transaction longer than the busy timeout, and loses nothing', async () => {
    harness = tempCore();
    const h = harness;
    const run = trainingLikeRun(h);
    const status = collectStatus(h, run.id);
    await expect.poll(() => h.core.store.runs.outputAfter(run.id, -1).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const other = new Database(h.dbPath);
    other.prepare('BEGIN IMMEDIATE').run();
    // Longer than the 5 s busy_timeout every connection uses: before, the batch writer threw from its timer here.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(h.core.runner.isActive(run.id) || h.core.store.runs.get(run.id)?.status !== 'failed').toBe(true);
    other.prepare('COMMIT').run();
    other.close();
    const ended = await h.core.runner.waitForExit(run.id);
    expect(ended.status).toBe('succeeded');
    expectAllOutput(storedOutput(h, run.id));
    expect(status.some((s) => s.level === 'warning' && /holding the database/iu.test(s.message))).toBe(true);
    expect(h.core.store.telemetry.hostSamples(run.id).length).toBeGreaterThan(0);
  }, 40_000);
});
