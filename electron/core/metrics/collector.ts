// One run's output into metric samples: lines (every progress redraw too), the workload's regex, then the parsers.
import { GlobalSteps, type StepOrigin } from './globalSteps.js';
import { allParsers, forEachRecord, stripLinePrefix } from './parsers/detect.js';
import { LineTemplates } from './parsers/lineTemplates.js';
import { freshParsers } from './parsers/registry.js';
import { readBar } from './parsers/tqdm.js';
import type { LineParser, MetricRecord } from './parsers/types.js';
import type { MetricSample } from './samples.js';
import { TerminalLineSplitter, type Line } from './text/lineSplitter.js';
import { STEP_RESTART_SAMPLE, TOKENS_PER_STEP_SAMPLE } from './summary.js';
import { TokensPerStepReader } from './tokensPerStep.js';
import { compileUserRegex, userRegexSamples, type CompiledUserRegex } from './userRegex.js';

export interface CollectorOptions {
  /** The workload's own pattern; it wins over the built-in parsers on the lines it matches. */
  metricRegex: string;
  /** Fresh parser instances for this run (they keep per-log state), most specific first. */
  parsers?: LineParser[];
  /**
   * Progress-bar redraws closer together than this (run time) are read but not kept: tqdm itself
   * redraws at most every 100 ms, so only a flood is thinned, never a real training's bar. 0 keeps all.
   */
  progressIntervalMs?: number;
  /**
   * Date records by the stamps in their lines' prefixes (milliseconds after the first stamp), where
   * a line has one, rather than by when the text arrived: for an imported log, whose text all
   * arrives at once and whose stamps are the only record of when each line was printed.
   */
  timesFromStamps?: boolean;
  /**
   * Of a progress bar's consecutive redraws at one step, only the last is kept: what a terminal had
   * left on screen for that step. For an imported log, which has no run time to thin redraws by
   * (see progressIntervalMs): the summary reads one value per step and name (the last) from bars,
   * and the redraws a newer one replaced within a step add nothing but rows.
   */
  lastRedrawPerStep?: boolean;
  /**
   * Of a progress bar's states within this much of the bar's own clock (its printed elapsed time),
   * only the last is kept: the live rule (progressIntervalMs) for a log that has no arrival times, so
   * an imported log keeps about what the same run would have kept live. tqdm prints whole seconds,
   * so any interval under a second keeps a bar's last state of each second it shows. 0 keeps all.
   */
  barClockIntervalMs?: number;
}

/** Bars told apart by description and length at once, at most; more (a description that counts) and the oldest are let go. */
const MAX_BARS_TRACKED = 256;

/** The interval of a bar's clock now open (from its first state's elapsed time), and the bar's latest state in it. */
interface BarTick {
  startS: number;
  held: { record: MetricRecord; tMs: number } | null;
}

export const LIVE_PROGRESS_INTERVAL_MS = 50;

/**
 * One line's budget for a workload's own pattern. V8's linear engine keeps a sound pattern far under a
 * millisecond even on a 64 KiB line; a pattern whose counted repeats multiply its states takes hundreds of
 * milliseconds there (measured: `(?<x>(a|aa|aaa|aaaa){1,12})+$`, 0.25 s on 64 KiB of a's).
 */
export const USER_REGEX_LINE_BUDGET_MS = 100;
/**
 * Lines over the budget before the pattern is switched off for the run: one slow line can be a busy machine
 * pausing the thread mid-match; three are the pattern.
 */
export const USER_REGEX_STRIKES = 3;

/** How a run's text is read in time: by when it arrived (a live run) or by the log's own clocks (an import). */
export type ReadingOptions = Pick<CollectorOptions, 'progressIntervalMs' | 'timesFromStamps' | 'lastRedrawPerStep' | 'barClockIntervalMs'>;

export const LIVE_READING: ReadingOptions = { progressIntervalMs: LIVE_PROGRESS_INTERVAL_MS };

/**
 * An imported log's text all arrives at once: its lines are dated by their stamps, and its bars are
 * thinned by their own clocks as a live run's are by arrival (and of a bar's redraws at one step,
 * only the last counts).
 */
export const IMPORTED_LOG_READING: ReadingOptions = {
  progressIntervalMs: 0,
  timesFromStamps: true,
  lastRedrawPerStep: true,
  barClockIntervalMs: LIVE_PROGRESS_INTERVAL_MS,
};

export class MetricsCollector {
  private readonly splitter: TerminalLineSplitter;
  /** Switched off (null) once it has taken USER_REGEX_STRIKES lines over its budget. */
  private userRegex: CompiledUserRegex | null;
  private userRegexStrikes = 0;
  /** What the person should hear of (a pattern switched off), taken by takeNotices(). */
  private notices: string[] = [];
  /** The parsers, through templates of the line shapes a long log repeats (see lineTemplates.ts). */
  private readonly lineReader: LineTemplates;
  private readonly progressIntervalMs: number;
  private lastProgressTMs = Number.NEGATIVE_INFINITY;
  private readonly tokensPerStep = new TokensPerStepReader();
  private readonly timesFromStamps: boolean;
  /** The first stamp seen, when records are dated by stamps. */
  private firstStampMs: number | null = null;
  private readonly lastRedrawPerStep: boolean;
  /** With lastRedrawPerStep: the latest redraw's samples, kept until a record that is not a redraw of its step follows. */
  private heldRedraw: { step: number; samples: MetricSample[] } | null = null;
  private readonly barClockIntervalS: number;
  /** With barClockIntervalMs: each bar's tick, by description and length. */
  private readonly barTicks = new Map<string, BarTick>();
  /** Printed steps onto one count through the run (a counter that restarts each epoch is counted on). */
  private readonly globalSteps = new GlobalSteps();

  constructor(options: CollectorOptions) {
    this.userRegex = options.metricRegex ? safeCompile(options.metricRegex) : null;
    // Every parser, in priority order: a live run's format is not known until it prints, and a
    // line is offered to the narrower formats first (see parsers/registry.ts).
    const parsers = options.parsers ?? allParsers();
    this.lineReader = new LineTemplates(parsers, () => freshParsers(parsers));
    this.progressIntervalMs = options.progressIntervalMs ?? 0;
    // A redraw that a newer one will overwrite within the interval is not even parsed (nor cleaned of
    // its escapes, which the splitter skips for it): in a flood of bar updates this is most of the
    // text, and its numbers would be thinned out anyway.
    this.splitter = new TerminalLineSplitter({ redrawIntervalMs: this.progressIntervalMs });
    this.timesFromStamps = options.timesFromStamps ?? false;
    this.lastRedrawPerStep = options.lastRedrawPerStep ?? false;
    this.barClockIntervalS = (options.barClockIntervalMs ?? 0) / 1000;
  }

  push(text: string, tMs: number): MetricSample[] {
    return this.collect(this.splitter.push(text, tMs));
  }

  /** Notices since the last call: a workload pattern switched off for being slow. */
  takeNotices(): string[] {
    const taken = this.notices;
    this.notices = [];
    return taken;
  }

  end(tMs: number): MetricSample[] {
    const samples = this.collect(this.splitter.end(tMs));
    this.releaseHeld(samples);
    for (const tick of this.barTicks.values()) this.releaseTick(samples, tick);
    this.barTicks.clear();
    return samples;
  }

  /**
   * With barClockIntervalMs: a bar's states are held, and of each interval of the bar's own clock
   * only the last is kept (released when the clock moves on, or at the end): like a live run's
   * thinning by arrival, and like lastRedrawPerStep the newest values win. Redraws and states left on
   * screen by a line printed onto the bar alike. A bar's finished state (n = total) is kept at once.
   * A clock that went back is a new bar under the same description (the next epoch's).
   */
  private thinnedByBarClock(line: Line, record: MetricRecord, samples: MetricSample[]): boolean {
    if (this.barClockIntervalS <= 0 || record.kind !== 'progress') return false;
    const bar = readBar(line.text);
    if (bar === null) return false;
    const key = `${bar.description}\u0000${bar.total ?? ''}`;
    let tick = this.barTicks.get(key);
    const sameTick = tick !== undefined && bar.elapsedS >= tick.startS && bar.elapsedS - tick.startS < this.barClockIntervalS;
    if (tick !== undefined && !sameTick) this.releaseTick(samples, tick);
    if (bar.n === bar.total) {
      // What was held in this interval is older than the finished state; an earlier interval's went out above.
      this.barTicks.delete(key);
      return false;
    }
    if (tick === undefined) {
      if (this.barTicks.size >= MAX_BARS_TRACKED) {
        const [oldestKey, oldest] = this.barTicks.entries().next().value as [string, BarTick];
        this.releaseTick(samples, oldest);
        this.barTicks.delete(oldestKey);
      }
      tick = { startS: bar.elapsedS, held: null };
      this.barTicks.set(key, tick);
    } else if (!sameTick) {
      tick.startS = bar.elapsedS;
    }
    tick.held = { record, tMs: this.recordTime(record, line.tMs) };
    return true;
  }

  private releaseTick(samples: MetricSample[], tick: BarTick): void {
    if (tick.held === null) return;
    this.releaseHeld(samples);
    pushRecord(samples, tick.held.record, tick.held.tMs);
    tick.held = null;
  }

  /** The held redraw goes out before anything that follows it, so samples keep the log's order. */
  private releaseHeld(samples: MetricSample[]): void {
    if (this.heldRedraw === null) return;
    for (const sample of this.heldRedraw.samples) samples.push(sample);
    this.heldRedraw = null;
  }

  private collect(lines: readonly Line[]): MetricSample[] {
    const samples: MetricSample[] = [];
    for (const line of lines) {
      // The script's own tokens per step, stored as a sample so that the summary finds it however the run was read.
      if (!line.redraw && this.tokensPerStep.read(line.text)) {
        this.releaseHeld(samples);
        samples.push({ step: null, tMs: line.tMs, name: TOKENS_PER_STEP_SAMPLE, value: this.tokensPerStep.value ?? 0, source: 'text', kind: 'summary' });
      }
      if (this.userRegex) {
        const own = this.userRegexLine(this.userRegex, line);
        if (own.length > 0) {
          this.releaseHeld(samples);
          // One match: its samples share a step and a kind-by-name; each counter is placed once per kind.
          const placed = new Map<string, number | null>();
          for (const sample of own) {
            const kind = sample.kind;
            if (!placed.has(kind)) placed.set(kind, this.placeStep('regex', kind, sample.step, own.find((s) => s.name === 'epoch')?.value, line.tMs, samples));
            sample.step = placed.get(kind) ?? null;
          }
          samples.push(...own);
          continue;
        }
      }
      forEachRecord(line.text, this.lineReader, (record) => {
        record.step = this.placeStep('parser', record.kind, record.step, record.values.epoch, line.tMs, samples);
        if (record.kind === 'progress' && this.progressIntervalMs > 0) {
          // A bar's finished state is its last word on the run's steps: kept however soon it follows.
          if (line.tMs - this.lastProgressTMs < this.progressIntervalMs && !isFinishedBar(line.text)) return;
          this.lastProgressTMs = line.tMs;
        }
        if (this.thinnedByBarClock(line, record, samples)) return;
        if (this.lastRedrawPerStep && record.kind === 'progress' && record.step !== null) {
          // A newer state of the same step (a redraw, or the bar's final line) replaces the held one.
          if (this.heldRedraw !== null && this.heldRedraw.step === record.step) this.heldRedraw = null;
          if (line.redraw) {
            this.releaseHeld(samples);
            const held: MetricSample[] = [];
            pushRecord(held, record, this.recordTime(record, line.tMs));
            this.heldRedraw = { step: record.step, samples: held };
            return;
          }
        }
        this.releaseHeld(samples);
        pushRecord(samples, record, this.recordTime(record, line.tMs));
      });
    }
    return samples;
  }

  /** The workload pattern's samples from a line, timed against its budget (see USER_REGEX_LINE_BUDGET_MS). */
  private userRegexLine(compiled: CompiledUserRegex, line: Line): MetricSample[] {
    const startedAt = performance.now();
    let own = userRegexSamples(compiled, line.text, line.tMs);
    // A pattern written for the script's own lines (`^step ...`) still meets them behind a runner's prefix.
    if (own.length === 0) {
      const text = stripLinePrefix(line.text);
      if (text !== line.text) own = userRegexSamples(compiled, text, line.tMs);
    }
    const tookMs = performance.now() - startedAt;
    if (tookMs > USER_REGEX_LINE_BUDGET_MS && ++this.userRegexStrikes >= USER_REGEX_STRIKES) {
      this.userRegex = null;
      this.notices.push(
        `The workload's metric pattern took ${Math.round(tookMs)} ms on one line (${line.text.length} characters; the budget is ` +
          `${USER_REGEX_LINE_BUDGET_MS} ms, passed on ${USER_REGEX_STRIKES} lines), so it is switched off for the rest of this run; ` +
          'the built-in parsers go on and every byte is still stored. Make the pattern more specific (anchor it, avoid nested or counted repeats), then parse the run again.',
      );
    }
    return own;
  }

  /** The global step of a printed one; a restart of the counter is kept as a sample, so the summary can say so. */
  private placeStep(
    origin: StepOrigin,
    kind: MetricRecord['kind'],
    step: number | null,
    epoch: number | undefined,
    tMs: number,
    samples: MetricSample[],
  ): number | null {
    const placed = this.globalSteps.place(origin, kind, step, epoch);
    if (placed.restart !== null) {
      this.releaseHeld(samples);
      samples.push({ step: placed.restart.global, tMs, name: STEP_RESTART_SAMPLE, value: placed.restart.printed, source: 'text', kind: 'summary' });
    }
    return placed.step;
  }

  private recordTime(record: MetricRecord, lineTMs: number): number {
    if (!this.timesFromStamps || record.wallTimeMs === undefined) return lineTMs;
    this.firstStampMs ??= record.wallTimeMs;
    return Math.max(0, record.wallTimeMs - this.firstStampMs);
  }
}

/** A bar at its total (n = total): tqdm's state as it closes. */
function isFinishedBar(text: string): boolean {
  const bar = readBar(text);
  return bar !== null && bar.n === bar.total;
}

function pushRecord(samples: MetricSample[], record: MetricRecord, tMs: number): void {
  // for-in rather than Object.entries: no pair arrays per value (a bar-heavy log makes millions of samples).
  const values = record.values;
  for (const name in values) {
    samples.push({ step: record.step, tMs, name, value: values[name]!, source: 'text', kind: record.kind });
  }
}

/** A pattern that no longer compiles (saved by an older version) is ignored rather than failing the run. */
function safeCompile(pattern: string): CompiledUserRegex | null {
  try {
    return compileUserRegex(pattern);
  } catch {
    return null;
  }
}
