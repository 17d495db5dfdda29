// Parses a stored run's output again with today's parsers and its workload's current regex (on the ingest task thread: see ingestTasks.ts).
import type { ReparseResult, Run, RunSummary } from '../../shared/api.js';
import { stripAnsi } from '../../shared/ansi.js';
import { buildSeries } from './series.js';
import { IMPORTED_LOG_READING, LIVE_READING, MetricsCollector } from '../metrics/collector.js';
import type { MetricSample } from '../metrics/samples.js';
import { summarizeStored } from '../metrics/summaryInput.js';
import type { SummaryOptions } from '../metrics/summary.js';
import { assessFairness } from '../telemetry/fairness.js';
import { storedGpuSamples } from '../telemetry/summary.js';
import type { Store } from '../store/store.js';
import { SampleColumns } from '../store/sampleColumns.js';
import { IMPORTED_COMMAND } from './importLog.js';
import { stepUnits } from './unitsPerStep.js';
import { summaryChoices } from './stepChoices.js';
import { COMMIT_MAX_SAMPLES } from './commitPolicy.js';
import { bulkWriteGapMs, sleepThread, type BytesFirst } from './writeTurns.js';
import { decodedSlices } from './textSlices.js';

/** How long each write of a reparse waits for live runs' byte commits to go first. */
const BYTES_FIRST_MAX_WAIT_MS = 1000;
/** Samples a reparse writes per transaction: as long as a parser's sample transaction (see commitPolicy.ts). */
const ROWS_PER_TRANSACTION = COMMIT_MAX_SAMPLES;
/** Blocks of an old parse deleted per transaction: each holds up to a few thousand samples (see store/sampleBlocks.ts). */
const BLOCKS_DELETED_PER_TRANSACTION = 16;

export class ReparseRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReparseRefused';
  }
}

/**
 * Reads the stored bytes in order (never the whole log at once), parses them as a live run's parser
 * thread would (its samples stored as they come, never held as objects), and replaces the run's
 * text-parsed samples, summary and chart series at once for every reader (one small transaction makes
 * the new parse the run's); the summary it had is kept in its history. Samples from the structured
 * channel stay.
 */
export async function reparseRun(store: Store, id: number, now: Date, bytesFirst?: BytesFirst): Promise<ReparseResult> {
  const run = store.runs.get(id);
  if (!run) throw new ReparseRefused(`no run ${id}`);
  if (run.status === 'running') throw new ReparseRefused(`run ${id} is still running; parse it again once it has ended`);
  await store.flush();

  const workload = run.workloadId === null ? null : store.workloads.get(run.workloadId);
  const imported = run.command[0] === IMPORTED_COMMAND;
  // Read as it was first read: a live run by its arrival times, an import by the log's own clocks.
  const collector = new MetricsCollector({ metricRegex: workload?.metricRegex ?? '', ...(imported ? IMPORTED_LOG_READING : LIVE_READING) });
  const decoder = new TextDecoder('utf-8');

  // The new parse goes in beside the old one, invisible, over short transactions that let live runs' byte
  // commits go first, as it is parsed (nothing of the run is held: its samples stream from the stored bytes into
  // blocks). Its summary is then made from what was stored, one small update makes it the run's, and the old one
  // is deleted the same way.
  let lastTransactionMs: number | null = null;
  const inTurns = <T>(write: () => T): T => {
    if (lastTransactionMs !== null) sleepThread(bulkWriteGapMs(lastTransactionMs));
    bytesFirst?.awaitTurn(BYTES_FIRST_MAX_WAIT_MS);
    const startedAt = performance.now();
    // IMMEDIATE: the write lock is taken (waiting its turn) before the first read, so a write that follows a read never fails as a stale snapshot.
    const result = store.db.transaction(write).immediate();
    lastTransactionMs = performance.now() - startedAt;
    return result;
  };
  const clearOthers = () => {
    for (let after = 0, deleted = 1; deleted > 0;) {
      ({ deleted, lastBlock: after } = inTurns(() => store.metrics.deleteOtherTextGenerations(id, after, BLOCKS_DELETED_PER_TRANSACTION)));
    }
  };
  // What a parse that stopped half-way (a crash) left behind.
  clearOthers();
  const generation = store.metrics.textGeneration(id) + 1;
  let pending = new SampleColumns();
  let parsedCount = 0;
  const take = (samples: readonly MetricSample[]) => {
    for (const sample of samples) pending.push(sample.step, sample.tMs, sample.name, sample.value, sample.source, sample.kind);
    if (pending.length < ROWS_PER_TRANSACTION) return;
    const batch = pending;
    inTurns(() => store.metrics.insertTextGeneration(id, generation, batch));
    parsedCount += batch.length;
    pending = new SampleColumns();
  };
  let lastTMs = 0;
  for (const chunk of store.runs.storedOutput(id)) {
    for (const text of decodedSlices(decoder, chunk.data)) take(collector.push(text, chunk.tMs));
    lastTMs = chunk.tMs;
  }
  take([...collector.push(decoder.decode(), lastTMs), ...collector.end(lastTMs)]);
  if (pending.length > 0) {
    const batch = pending;
    inTurns(() => store.metrics.insertTextGeneration(id, generation, batch));
    parsedCount += batch.length;
  }

  const previousTextCount = store.metrics.textCount(id);
  const units = stepUnits(run.unitsPerStep, workload, run.config);
  // The channel's samples stay; the text ones are the new parse's.
  const { summary: training, columns: samples } = summarizeStored(
    store.metrics,
    id,
    { ...units, ...summaryChoices(run, workload), ...storedSpans(store, run) },
    { parse: generation },
  );
  const summary: RunSummary = { ...run.summary, ...training };
  const series = buildSeries(samples, storedGpuSamples(store.telemetry, id));

  inTurns(() => {
    store.metrics.useTextGeneration(id, generation);
    store.runs.keepSummaryInHistory(id, 'parsed again', now);
    store.runs.setSummary(id, summary);
    store.runs.setSeries(id, series);
  });
  clearOthers();

  const facts = (count: number, s: RunSummary) => ({ samples: count, steps: s.steps, throughput: s.throughput.median, unit: s.throughput.unit });
  return { run: store.runs.get(id)!, before: facts(previousTextCount, run.summary), after: facts(parsedCount, summary) };
}

/**
 * What the run's end knew of its time besides its samples, as it was then: the span a profiler ran over (those steps
 * stay out of the timing) and when its knobs' own warm-up ended (torch.compile's first call: those steps are warm-up).
 */
function storedSpans(store: Store, run: Run): Pick<SummaryOptions, 'profiledSpan' | 'knobWarmupUntilTMs'> {
  const span = store.profiles.ownSpan(run.id);
  const startedAtMs = Date.parse(run.startedAt);
  const knobWarmupUntilMs = run.knobs?.warmupUntilMs ?? null;
  return {
    profiledSpan: span && { fromTMs: span.startedAtMs - startedAtMs, toTMs: span.endedAtMs - startedAtMs },
    knobWarmupUntilTMs: knobWarmupUntilMs === null ? null : knobWarmupUntilMs - startedAtMs,
  };
}

/** Lines of stored output that hold a number, for a run that gave no metrics: what a regex could be written against. */
export function numericLines(store: Store, id: number, limit: number): { lines: string[]; scannedBytes: number } {
  const decoder = new TextDecoder('utf-8');
  const lines: string[] = [];
  let held = '';
  let scannedBytes = 0;
  for (const chunk of store.runs.storedOutput(id)) {
    scannedBytes += chunk.data.length;
    const parts = (held + decoder.decode(chunk.data, { stream: true })).split(/\r\n|\r|\n/u);
    held = parts.pop() ?? '';
    for (const part of parts) {
      if (lines.length >= limit) return { lines, scannedBytes };
      const line = stripAnsi(part).trim();
      if (NUMBER_WITH_WORD.test(line) && line.length <= MAX_SHOWN_LINE_CHARS) lines.push(line);
    }
    // Enough looked at: a log that gave nothing in its first megabytes shows what those hold.
    if (scannedBytes >= MAX_SCANNED_BYTES) break;
  }
  const last = stripAnsi(held).trim();
  if (lines.length < limit && NUMBER_WITH_WORD.test(last) && last.length <= MAX_SHOWN_LINE_CHARS) lines.push(last);
  return { lines, scannedBytes };
}

/** A word and a decimal number on one line: `loss 3.1`, `acc=0.93`; bare counters and blank lines are not shown. */
const NUMBER_WITH_WORD = /[A-Za-z_]{2,}.*\d+\.\d+|\d+\.\d+.*[A-Za-z_]{2,}/u;
const MAX_SHOWN_LINE_CHARS = 400;
const MAX_SCANNED_BYTES = 8 * 1024 * 1024;

/**
 * Sets a run's warm-up and left-out steps by hand and makes its summary again from what it stored (no re-run, no
 * re-parse): the steady statistics and the machine's fairness from there on; the summary it had goes to its history.
 */
export async function resummarizeRun(store: Store, id: number, choices: { warmupSteps: number | null; excludeSteps: number[] }, now: Date): Promise<Run> {
  const run = store.runs.get(id);
  if (!run) throw new ReparseRefused(`no run ${id}`);
  if (run.status === 'running') throw new ReparseRefused(`run ${id} is still running; set its steps once it has ended`);
  await store.flush();
  const steps = choices.warmupSteps === null && choices.excludeSteps.length === 0 ? null : { ...choices, setBy: 'run' as const };
  const workload = run.workloadId === null ? null : store.workloads.get(run.workloadId);
  const training = summarizeStored(store.metrics, id, {
    ...stepUnits(run.unitsPerStep, workload, run.config),
    ...summaryChoices({ steps }, workload),
    ...storedSpans(store, run),
  }).summary;
  const clockLock =
    run.gpuSettings?.setBy === 'run' || run.gpuSettings?.setBy === 'sweep' ? ((run.gpuSettings.clockLock as { minMHz?: number } | null)?.minMHz ?? null) : null;
  const fairness =
    run.summary.host === null && run.summary.gpu === null
      ? run.summary.fairness
      : assessFairness({ host: run.summary.host, gpu: storedGpuSamples(store.telemetry, id), steadyFromMs: training.steadyFromMs, clockLockMHz: clockLock });
  const summary: RunSummary = { ...run.summary, ...training, fairness };
  store.db.transaction(() => {
    store.runs.setSteps(id, steps);
    store.runs.keepSummaryInHistory(id, 'steps set by hand', now);
    store.runs.setSummary(id, summary);
  })();
  return store.runs.get(id)!;
}
