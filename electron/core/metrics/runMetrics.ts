// One live run's metrics on the engine thread: the structured channel, live events, the step limit, how its summary is made.
import fs from 'node:fs';
import type { MetricPoint } from '../../shared/api.js';
import type { EventHub } from '../events.js';
import type { MetricStore } from '../store/metricStore.js';
import { ChannelTailer } from './channel.js';
import type { MetricSample } from './samples.js';
import type { SummaryOptions } from './summary.js';
import { systemClock, type Clock, type Timer } from '../clock.js';

/** The value a log that counts samples done gives each line (see parsers/pytorchExamples.ts). */
const SAMPLES_SEEN = 'samples_seen';
/** How often the channel file is read: the same pace as the store's batches. */
const CHANNEL_POLL_MS = 250;

export interface RunMetricsOptions {
  runId: number;
  startedAtMs: number;
  channelFile: string;
  maxSteps: number | null;
  /**
   * With `maxSteps`: the run goes on past its step limit until its logged steps span at least this long, from the first
   * (fast steps: 30 of a Lightning bar at 300 steps/s are a tenth of a second, all of it warm-up). Null: the limit alone.
   */
  minStepSeconds?: number | null;
  tokensPerStep: number | null;
  samplesPerStep: number | null;
  /** Warm-up and left-out steps set by hand (for the run, its sweep or its workload), or the automatic rules. */
  choices?: Pick<SummaryOptions, 'warmup' | 'warmupSetBy' | 'excludeSteps'>;
  /** `minStepSeconds`: the stretch the run went on for past its step count (null: it stopped at the count). */
  onStepLimit: (step: number, minStepSeconds: number | null) => void;
  /** `startedAtMs` is on its wall reading, as are the channel's own stamps; it also paces the reads. */
  clock?: Clock;
}

export function toPoint(sample: MetricSample): MetricPoint {
  const value = Number.isNaN(sample.value)
    ? ('nan' as const)
    : sample.value === Infinity
      ? ('inf' as const)
      : sample.value === -Infinity
        ? ('-inf' as const)
        : sample.value;
  return { step: sample.step, tMs: sample.tMs, name: sample.name, value, kind: sample.kind, source: sample.source };
}

export class RunMetrics {
  private readonly channel: ChannelTailer;
  private readonly timer: Timer;
  private readonly clock: Clock;
  private limitReached = false;
  /** Steps logged so far (train and progress lines with a step), the last one's number, and whether its steps count samples. */
  private loggedSteps = 0;
  private lastStep: number | null = null;
  private countsSamples = false;
  /** When the first logged step came (ms into the run): the measured stretch counts from it, not from the imports before. */
  private firstStepTMs: number | null = null;
  /** The step count was reached before the stretch was: the run went on for the stretch. */
  private heldByStretch = false;

  constructor(
    private readonly options: RunMetricsOptions,
    private readonly store: MetricStore,
    private readonly events: EventHub,
  ) {
    this.clock = options.clock ?? systemClock;
    this.channel = new ChannelTailer(options.channelFile, options.startedAtMs);
    this.timer = this.clock.setInterval(() => this.readChannel(), CHANNEL_POLL_MS, { background: true });
  }

  /** Samples parsed from the terminal by the writer thread (already stored there). */
  acceptParsed(samples: readonly MetricSample[]): void {
    this.publish(samples);
  }

  /** The last of the channel, then the channel file goes: its lines are in the database now. */
  finish(): void {
    this.timer.cancel();
    this.readChannel();
    fs.rmSync(this.options.channelFile, { force: true });
  }

  /** Stops reading the channel, without finish()'s last read (a run whose end could not be recorded); idempotent. */
  close(): void {
    this.timer.cancel();
  }

  /**
   * How the run's training summary is to be made from its stored samples (the ingest task thread makes it:
   * IngestTasks.summarizeRun). `profiledSpan`: epoch ms a profiler was on; steps that overlap it are left out of the timing.
   * `knobWarmupUntilMs`: epoch ms the knobs' own warm-up (torch.compile's first call) ended; steps under way before it are warm-up.
   */
  summaryOptions(profiledSpan: { startedAtMs: number; endedAtMs: number } | null = null, knobWarmupUntilMs: number | null = null): SummaryOptions {
    const span = profiledSpan && {
      fromTMs: profiledSpan.startedAtMs - this.options.startedAtMs,
      toTMs: profiledSpan.endedAtMs - this.options.startedAtMs,
    };
    return {
      tokensPerStep: this.options.tokensPerStep,
      samplesPerStep: this.options.samplesPerStep,
      ...this.options.choices,
      profiledSpan: span,
      knobWarmupUntilTMs: knobWarmupUntilMs === null ? null : knobWarmupUntilMs - this.options.startedAtMs,
    };
  }

  private readChannel(): void {
    const samples = this.channel.read(this.clock.wallMs() - this.options.startedAtMs);
    if (samples.length === 0) return;
    this.store.append(this.options.runId, samples);
    this.publish(samples);
  }

  private publish(samples: readonly MetricSample[]): void {
    if (samples.length === 0) return;
    if (this.events.hasSubscribers) this.events.emit('runs.onMetrics', { runId: this.options.runId, points: samples.map(toPoint) });
    const limit = this.options.maxSteps;
    if (limit === null || this.limitReached) return;
    // A log that counts samples done where others count steps (pytorch/examples' MNIST, the Quickstart tutorial) has
    // no step count to stop at: its run stops at its Nth logged step instead (its step 640 is its second line).
    this.countsSamples ||= samples.some((s) => s.name === SAMPLES_SEEN && s.kind === 'train');
    for (const sample of samples) {
      if (sample.step === null || (sample.kind !== 'train' && sample.kind !== 'progress')) continue;
      if (sample.step !== this.lastStep) {
        this.lastStep = sample.step;
        this.loggedSteps++;
      }
      this.firstStepTMs ??= sample.tMs;
      if ((this.countsSamples ? this.loggedSteps : sample.step) < limit) continue;
      if (!this.spansShortestStretch(sample.tMs)) {
        this.heldByStretch = true;
        continue;
      }
      this.limitReached = true;
      this.options.onStepLimit(sample.step, this.heldByStretch ? (this.options.minStepSeconds ?? null) : null);
      return;
    }
  }

  private spansShortestStretch(tMs: number): boolean {
    const seconds = this.options.minStepSeconds ?? null;
    return seconds === null || this.firstStepTMs === null || tMs - this.firstStepTMs >= seconds * 1000;
  }
}
