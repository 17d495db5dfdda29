// The samples a finished run's summary and chart series are made from, read into columns and without every bar redraw
// where they are not needed; of a very long run, a bounded sample of its steps and the facts that need every sample.
import type { MetricStore, OrderedSample } from '../store/metricStore.js';
import type { MetricKind, MetricSample, MetricSource } from './samples.js';
import { SampleColumns } from '../store/sampleColumns.js';
import { readsEveryProgressSample, summarizeMetrics, type SummaryOptions, type TrainingSummary } from './summary.js';
import { seriesKey, type SeriesFacts, type StepSampling } from './stepSampling.js';

/**
 * How many steps a summary reads in full before it samples them: the first SUMMARY_HEAD_STEPS (where warm-up is),
 * then SUMMARY_SAMPLED_STEPS evenly spread over the rest. A run with at most SUMMARY_EXACT_STEPS steps is read whole.
 * 150,000 steps are about 75 MB of summary work here; a run of 10 M steps would be 5 GB.
 */
export const SUMMARY_HEAD_STEPS = 16_384;
export const SUMMARY_SAMPLED_STEPS = 65_536;
export const SUMMARY_EXACT_STEPS = 150_000;

export interface SamplingLimits {
  headSteps: number;
  sampledSteps: number;
  exactSteps: number;
}

/** How many of the newest steps' keep-or-drop decisions a sampled read remembers for samples that come back to them. */
const RECENT_STEPS = 256;

const LIMITS: SamplingLimits = { headSteps: SUMMARY_HEAD_STEPS, sampledSteps: SUMMARY_SAMPLED_STEPS, exactSteps: SUMMARY_EXACT_STEPS };

/**
 * What summarizeMetrics and buildSeries read for a run: its training, evaluation and summary samples, and of its
 * progress bars' only the few values the summary takes from them — unless the training lines lack timing or loss,
 * when every bar sample is read as before. Read straight into columns, never as one object a sample.
 * A run of more than `exactSteps` logged steps is read as a StepSampling (above), so the summary's memory and time stay
 * bounded whatever the run's length; a shorter one gives the same summary and series as every sample
 * (test/integration/summaryInput.test.ts).
 * `parse`: with the text samples of that parse instead of the run's current one (a parse being made, see reparse.ts).
 * `exact`: never sampled (a profiled run's step marks are matched to its trace one by one).
 */
export function summaryInput(
  metrics: MetricStore,
  runId: number,
  options: { parse?: number; exact?: boolean; limits?: SamplingLimits } = {},
): { columns: SampleColumns; sampling: StepSampling | null } {
  const { parse } = options;
  const limits = options.limits ?? LIMITS;
  const digest = metrics.progressDigest(runId, parse);
  const exceptProgress = readInto(metrics, runId, 'exceptProgress', digest, parse, options.exact === true ? null : limits);
  if (!readsEveryProgressSample(exceptProgress.columns)) return exceptProgress;
  return readInto(metrics, runId, 'all', [], parse, options.exact === true ? null : limits);
}

/**
 * A stored run's training summary, the one recipe of a run's end, an import, a recovery and a parse again: its
 * samples read as summaryInput reads them (a long run's sampled) and summarized with the run's options. The columns
 * come back for the chart series made from the same read.
 */
export function summarizeStored(
  metrics: MetricStore,
  runId: number,
  options: Omit<SummaryOptions, 'sampling'> = {},
  read: { parse?: number; exact?: boolean } = {},
): { summary: TrainingSummary; columns: SampleColumns } {
  const { columns, sampling } = summaryInput(metrics, runId, read);
  return { summary: summarizeMetrics(columns, { ...options, sampling }), columns };
}

/** summaryInput's columns alone (a chart's reader). */
export function columnsForSummary(metrics: MetricStore, runId: number, parse?: number): SampleColumns {
  return summaryInput(metrics, runId, parse === undefined ? {} : { parse }).columns;
}

function readInto(
  metrics: MetricStore,
  runId: number,
  which: 'all' | 'exceptProgress',
  digest: readonly OrderedSample[],
  parse: number | undefined,
  limits: SamplingLimits | null,
): { columns: SampleColumns; sampling: StepSampling | null } {
  const series = metrics.seriesCounts(runId, which, parse);
  // Per-step series: training lines and bar redraws. Evals and summaries are few whatever the run's length.
  const perStep = (kind: MetricKind) => kind === 'train' || kind === 'progress';
  const steps = Math.max(0, ...series.filter((s) => perStep(s.kind)).map((s) => s.samples));
  if (limits === null || steps <= limits.exactSteps) {
    const columns = new SampleColumns(series.reduce((sum, s) => sum + s.samples, 0) + digest.length);
    // The digest's few samples go in among the others by their place in the run's order.
    let next = 0;
    const pushDigest = (sample: OrderedSample) => columns.push(sample.step, sample.tMs, sample.name, sample.value, sample.source, sample.kind);
    metrics.readNumeric(
      runId,
      which,
      (order, step, tMs, name, value, source, kind) => {
        while (next < digest.length && digest[next]!.order < order) pushDigest(digest[next++]!);
        columns.push(step, tMs, name, value, source, kind);
      },
      parse,
    );
    while (next < digest.length) pushDigest(digest[next++]!);
    return { columns, sampling: null };
  }
  return readSampled(metrics, runId, which, digest, parse, limits, series, steps);
}

function readSampled(
  metrics: MetricStore,
  runId: number,
  which: 'all' | 'exceptProgress',
  digest: readonly OrderedSample[],
  parse: number | undefined,
  limits: SamplingLimits,
  series: ReadonlyArray<{ name: string; source: MetricSource; kind: MetricKind; samples: number }>,
  stepsGuess: number,
): { columns: SampleColumns; sampling: StepSampling } {
  const every = Math.max(2, Math.ceil((stepsGuess - limits.headSteps) / limits.sampledSteps));
  // A series of few samples (an lr logged every 1,000 steps) is kept whole, as evals are.
  const sampled = new Set(
    series.filter((s) => (s.kind === 'train' || s.kind === 'progress') && s.samples > limits.sampledSteps / 4).map((s) => seriesKey(s.name, s.source, s.kind)),
  );
  const columns = new SampleColumns(Math.min(1 << 20, 4 * (limits.headSteps + 2 * limits.sampledSteps) + digest.length));
  const facts = new Map<string, SeriesFacts>();
  const grid = new Set<number>();
  // Steps in the order the dense series first show them; a step seen again (a bar redrawn after its line) keeps its place.
  let stepIndex = -1;
  let maxStep = Number.NEGATIVE_INFINITY;
  let headLastStep = Number.NEGATIVE_INFINITY;
  // The decisions of the last RECENT_STEPS new steps, oldest overwritten: only recent steps come back (a bar's redraw
  // after its line), and the step just decided comes back once a series (loss, then step time, then grad norm).
  const recentSteps = new Float64Array(RECENT_STEPS).fill(Number.NaN);
  const recentKeep = new Uint8Array(RECENT_STEPS);
  let newest = -1;
  let newestKeep = false;
  const keepStep = (step: number): boolean => {
    if (step === maxStep) return newestKeep;
    if (step < maxStep) {
      for (let back = 0; back < RECENT_STEPS; back++) {
        const at = (newest - back + RECENT_STEPS) % RECENT_STEPS;
        const seen = recentSteps[at]!;
        if (seen === step) return recentKeep[at] === 1;
        if (!(seen > step)) return false;
      }
      return false;
    }
    maxStep = step;
    stepIndex++;
    let keep: boolean;
    if (stepIndex < limits.headSteps) {
      keep = true;
      headLastStep = step;
      if ((limits.headSteps - stepIndex) % every === 0) grid.add(step);
    } else {
      const phase = (stepIndex - limits.headSteps) % every;
      keep = phase === 0 || phase === every - 1;
      if (phase === 0) grid.add(step);
    }
    newest = (newest + 1) % RECENT_STEPS;
    recentSteps[newest] = step;
    recentKeep[newest] = keep ? 1 : 0;
    newestKeep = keep;
    return keep;
  };
  // One state a series, found by the reader's key object (no string made a sample); the digest's few by name.
  const factOf = (name: string, source: MetricSource, kind: MetricKind) => {
    const key = seriesKey(name, source, kind);
    let fact = facts.get(key);
    if (fact === undefined) {
      fact = { name, source, kind, lowest: null, last: null, nonFinite: false, maxStep: null };
      facts.set(key, fact);
    }
    return { fact, sampled: sampled.has(key) };
  };
  const states = new Map<object, { fact: SeriesFacts; sampled: boolean }>();
  const take = (state: { fact: SeriesFacts; sampled: boolean }, order: number, step: number, tMs: number, value: number) => {
    const fact = state.fact;
    const stepped = !Number.isNaN(step);
    if (stepped && (fact.maxStep === null || step > fact.maxStep)) fact.maxStep = step;
    if (!Number.isFinite(value)) fact.nonFinite = true;
    else {
      if (fact.lowest === null || value < fact.lowest) fact.lowest = value;
      const stepKey = stepped ? step : Number.MAX_SAFE_INTEGER;
      const last = fact.last;
      // Changed in place: an object a sample would be millions made for the collector.
      if (last === null) fact.last = { step: stepKey, tMs, order, value };
      else if (stepKey > last.step || (stepKey === last.step && (tMs > last.tMs || (tMs === last.tMs && order > last.order)))) {
        last.step = stepKey;
        last.tMs = tMs;
        last.order = order;
        last.value = value;
      }
    }
    if (!stepped || !state.sampled || keepStep(step)) columns.push(stepped ? step : null, tMs, fact.name, value, fact.source, fact.kind);
  };
  let next = 0;
  const takeDigest = (sample: OrderedSample) =>
    take(factOf(sample.name, sample.source, sample.kind), sample.order, sample.step ?? Number.NaN, sample.tMs, sample.value);
  metrics.readInOrder(
    runId,
    which,
    (key, block, at) => {
      const order = block.order[at]!;
      while (next < digest.length && digest[next]!.order < order) takeDigest(digest[next++]!);
      let state = states.get(key);
      if (state === undefined) states.set(key, (state = factOf(key.name, key.source, key.kind)));
      take(state, order, block.step[at]!, block.tMs[at]!, block.value[at]!);
    },
    parse,
  );
  while (next < digest.length) takeDigest(digest[next++]!);
  return { columns, sampling: { steps: stepIndex + 1, every, headLastStep, grid, facts } };
}

/** columnsForSummary as samples, for a reader that wants them one by one. */
export function samplesForSummary(metrics: MetricStore, runId: number): MetricSample[] {
  const columns = columnsForSummary(metrics, runId);
  return Array.from({ length: columns.length }, (_, i) => columns.sample(i));
}
