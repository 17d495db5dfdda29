// The samples a finished run's summary and chart series are made from, read without every bar redraw where they are not needed.
import type { MetricStore, OrderedSample } from '../store/metricStore.js';
import type { MetricSample } from './samples.js';
import { readsEveryProgressSample } from './summary.js';

/**
 * What summarizeMetrics and buildSeries read for a run: its training, evaluation and summary
 * samples, and of its progress bars' only the few values the summary takes from them — unless the
 * training lines lack timing or loss, when every bar sample is read as before. Bar redraws are most
 * rows of a long or imported run: reading them all back held an import's memory at 1.5 GB.
 * The result is the same summary and series as from every sample (test/integration/summaryInput.test.ts).
 */
export function samplesForSummary(metrics: MetricStore, runId: number): MetricSample[] {
  const merged = mergeInOrder(metrics.forRunExceptProgress(runId), metrics.progressDigest(runId));
  return readsEveryProgressSample(merged) ? metrics.forRun(runId) : merged;
}

function mergeInOrder(a: readonly OrderedSample[], b: readonly OrderedSample[]): OrderedSample[] {
  const merged: OrderedSample[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.order < b[j]!.order)) merged.push(a[i++]!);
    else merged.push(b[j++]!);
  }
  return merged;
}

interface ProgressDigest {
  atLastStep: OrderedSample | null;
  lastFinite: OrderedSample | null;
  nonFinite: OrderedSample | null;
}

/**
 * samplesForSummary's result made as samples pass, for a caller that parses the text itself (an
 * import): the same samples that function would read back from the store once they are stored,
 * without reading them. `order` is the samples' stored order (their arrival).
 */
export class SummaryInputBuilder {
  private readonly kept: OrderedSample[] = [];
  private readonly digests = new Map<string, ProgressDigest>();
  private order = 0;

  add(samples: readonly MetricSample[]): void {
    for (const sample of samples) {
      const ordered: OrderedSample = { step: sample.step, tMs: sample.tMs, name: sample.name, value: sample.value, source: sample.source, kind: sample.kind, order: this.order++ };
      if (sample.kind === 'progress') this.digest(ordered);
      else this.kept.push(ordered);
    }
  }

  /** The samples a summary reads, or null where it reads every bar sample (read those from the store: see samplesForSummary). */
  result(): MetricSample[] | null {
    const digest = new Set<OrderedSample>();
    for (const { atLastStep, lastFinite, nonFinite } of this.digests.values()) {
      for (const sample of [atLastStep, lastFinite, nonFinite]) if (sample !== null) digest.add(sample);
    }
    const merged = mergeInOrder(this.kept, [...digest].sort((a, b) => a.order - b.order));
    return readsEveryProgressSample(merged) ? null : merged;
  }

  /** MetricStore.progressDigest's choices, kept as samples pass: "last" is by step (none after any), then time, then arrival. */
  private digest(sample: OrderedSample): void {
    const key = `${sample.source}\u0000${sample.name}`;
    let digest = this.digests.get(key);
    if (digest === undefined) {
      digest = { atLastStep: null, lastFinite: null, nonFinite: null };
      this.digests.set(key, digest);
    }
    if (sample.step !== null && (digest.atLastStep === null || !isBefore(sample, digest.atLastStep))) digest.atLastStep = sample;
    if (!Number.isFinite(sample.value)) digest.nonFinite ??= sample;
    else if (digest.lastFinite === null || !isBefore(sample, digest.lastFinite)) digest.lastFinite = sample;
  }
}

/** Whether `a` sorts before `b` as the summary orders samples (later arrival wins a tie, so never before). */
function isBefore(a: OrderedSample, b: OrderedSample): boolean {
  const stepA = a.step ?? Number.MAX_SAFE_INTEGER;
  const stepB = b.step ?? Number.MAX_SAFE_INTEGER;
  if (stepA !== stepB) return stepA < stepB;
  return a.tMs < b.tMs;
}
