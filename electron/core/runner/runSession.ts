// One run from its start to its stored end: owns the run's pty, process tree, samplers, metrics, timers and GPU lease, and releases them whatever fails.
import fs from 'node:fs';
import { ApiFailure, type Run } from '../../shared/api.js';
import { EMPTY_SUMMARY } from '../store/runStore.js';
import type { TelemetryStore } from '../store/telemetryStore.js';
import { HostSampler } from '../telemetry/hostSampler.js';
import { inputBoundHint } from '../telemetry/hints.js';
import { gpuPoint, hostPoint } from '../telemetry/points.js';
import { gpuFingerprint, hostFingerprint, NO_NVIDIA_SMI_NOTE } from '../telemetry/fingerprint.js';
import type { PythonFacts } from '../telemetry/pythonFingerprint.js';
import { NvidiaSmiSampler, type TimedGpuSample } from '../telemetry/nvidiaSmiSampler.js';
import { storedGpuSamples, summarizeGpu, summarizeHost } from '../telemetry/summary.js';
import { assessFairness } from '../telemetry/fairness.js';
import { RunMetrics } from '../metrics/runMetrics.js';
import type { MetricSample } from '../metrics/samples.js';
import { stepUnits } from '../ingest/unitsPerStep.js';
import { summaryChoices } from '../ingest/stepChoices.js';
import { classifyExit, type StopCause } from '../ingest/exitClassifier.js';
import { processStartTicks } from '../system/procStat.js';
import { setLongTimeout, type LongTimer } from '../system/longTimer.js';
import { Owned, type Held } from '../system/owned.js';
import { realDelay, realTimeout, type Timer } from '../clock.js';
import { ProcessTree, type TrackedProcess } from '../system/processTree.js';
import { describeWriteFault, retryWrite } from '../store/writeFaults.js';
import { readGitProvenance, type GitSnapshot } from './gitProvenance.js';
import { PtySession, TerminalUnavailableError, type PtyExit } from './ptySession.js';
import type { RunGpuLease } from './collaborators.js';
import { releaseGpu, type RunContext, type StartRequest } from './runContext.js';
import type { RunLaunch } from './runLaunch.js';
import { RunOutput } from './runOutput.js';
import { KNOBS_ENV_VAR, readKnobResults } from './knobResults.js';

/** After the child exits, output still in the pty is drained until it is quiet this long... */
const TRAILING_QUIET_MS = 30;
/** ...or at most this long (STYLE: ~250 ms). */
const TRAILING_MAX_MS = 250;
/** Stop escalates SIGINT → SIGTERM → SIGKILL, each after this long without an exit. */
export const STOP_ESCALATION_MS = 3000;
/** The longest a run's end waits for Python's versions (asked when it started; `import torch` takes ~2 s). */
const PYTHON_ANSWER_WAIT_MS = 5000;
export const DEFAULT_TERMINAL = { cols: 120, rows: 32 } as const;
/** After the final SIGKILL, processes get this long to vanish before those left are reported as survivors. */
const SURVIVOR_GRACE_MS = 1000;

/**
 * Made by RunManager for a launched run: the constructor spawns the program and asks for its provenance,
 * `start()` begins watching it (samplers, output, time limit). `finished` resolves once the run has ended, its
 * record is complete and everything the session held is released; `close()` kills the run first.
 */
export class RunSession {
  readonly id: number;
  /** The final record, once the run has ended and everything it wrote is stored; never rejects. */
  readonly finished: Promise<Run>;
  private resolveFinished!: (run: Run) => void;
  private readonly pty: PtySession;
  /** Every process the run started, those that left its group (setsid, os.setpgrp) included. */
  private readonly tree: ProcessTree;
  private readonly startedAtMs: number;
  private readonly output: RunOutput;
  private readonly metrics: RunMetrics;
  private host: HostSampler | null = null;
  private gpu: NvidiaSmiSampler | null = null;
  private readonly loadFile: { path: string; owned: boolean };
  private readonly env: Record<string, string>;
  /** Why the engine is stopping the run: the first cause holds, except that the engine closing outranks a person's stop. */
  private stopCause: StopCause | null = null;
  private stopTimers: Timer[] = [];
  private gpuLease: RunGpuLease | null;
  /** The code it runs, read as it starts (git is quick) and recorded before its summary. */
  private readonly git: Promise<GitSnapshot | null>;
  /** Asked as the run starts (at the lowest priority, or from the cache), read as it ends. */
  private readonly python: Promise<PythonFacts | null>;
  /** The --timeout, of any length. */
  private timeout: LongTimer | null = null;
  /** Results that arrive after the start (the GPU fingerprint): awaited before the run's record is closed. */
  private readonly lateResults: Array<Promise<void>> = [];
  /** The record as last read, returned if the ending itself cannot be stored. */
  private lastKnown: Run;
  /** Set when the run is profiled: the run it re-runs, if any. */
  private readonly profile: { sourceRunId: number | null } | null;
  /** The knobs it asked for and where the Python side reports on them. */
  private readonly knobs: RunLaunch['knobs'];
  /** Cleared as the run leaves the registry: a step limit reached after that stops nothing. */
  private live = true;
  /** Notices of its parsing, kept with the run (the first few). */
  /** Everything the session holds, each registered once as it is made and released once, last first (release()). */
  private readonly owned: Owned;
  private readonly loadFileHeld: Held;
  private readonly gpuLeaseHeld: Held;
  private readonly timersHeld: Held;
  private ptyHeld: Held | null = null;
  private samplersHeld: Held | null = null;

  constructor(
    private readonly context: RunContext,
    launch: RunLaunch,
    private readonly request: StartRequest,
    /** Called once, as the run leaves the set of live runs (just before its final record is announced). */
    private readonly onDidEnd: () => void,
  ) {
    const { runs, environment } = context;
    const { record, startedAt, file, args, cwd, env } = launch;
    this.id = record.id;
    this.lastKnown = record;
    this.startedAtMs = startedAt.getTime();
    this.loadFile = launch.loadFile;
    this.env = env;
    this.gpuLease = request.gpuLease ?? null;
    this.profile = launch.profiler ? { sourceRunId: request.profileOf ?? null } : null;
    this.knobs = launch.knobs;
    this.finished = new Promise<Run>((resolve) => (this.resolveFinished = resolve));
    this.owned = new Owned((what, error) => context.faults.report(this.id, `${what} could not be released`, error));
    // Released last: once everything else is let go, the run is no longer live.
    this.owned.hold("the run's place among the live runs", () => this.leave());
    this.loadFileHeld = this.owned.hold("the run's load file", () => {
      if (this.loadFile.owned) fs.rmSync(this.loadFile.path, { force: true });
    });
    // Whatever failed before, the GPU's settings are put back (the normal end puts them back earlier, and awaits it).
    this.gpuLeaseHeld = this.owned.hold('the GPU lease', () => {
      if (!this.gpuLease) return;
      context.faults.track(this.id, releaseGpu(context, this.id, this.gpuLease));
      this.gpuLease = null;
    });

    context.output.startRun(this.id, { metricRegex: request.workload?.metricRegex ?? '' });
    runs.addFingerprint(this.id, hostFingerprint());
    const { binary, gpu } = environment.nvidiaSmi;
    if (binary !== null) {
      this.lateResults.push(
        gpuFingerprint(binary, gpu, environment.baseEnv)
          .then((facts) => {
            if (!facts) return;
            runs.addFingerprint(this.id, facts);
            const updated = runs.get(this.id);
            if (updated) context.events.emit('runs.onDidChange', updated);
          })
          .catch((error: unknown) => context.faults.report(this.id, 'the GPU fingerprint could not be recorded', error)),
      );
    }
    try {
      this.pty = new PtySession({
        file,
        args,
        cwd,
        env,
        cols: request.cols ?? DEFAULT_TERMINAL.cols,
        rows: request.rows ?? DEFAULT_TERMINAL.rows,
        launcher: { node: environment.builtins.node, env: environment.nodeEnv },
      });
    } catch (error) {
      if (!(error instanceof TerminalUnavailableError)) throw error;
      this.endUnstarted(error.message);
      throw new ApiFailure('unavailable', error.message);
    }
    const pty = this.pty;
    this.ptyHeld = this.owned.hold('the terminal', () => pty.close());
    const rootStartTicks = processStartTicks(this.pty.pid);
    runs.setPid(this.id, this.pty.pid, rootStartTicks);
    // Each process written down as it is found (batched with the samples): after a crash, recovery knows them all.
    this.tree = new ProcessTree(this.pty.pid, {
      rootStartTicks,
      marker: launch.processMarker,
      onFound: context.faults.guarded(this.id, "the run's processes could not be written down", (found: TrackedProcess[]) =>
        context.processes.record(this.id, found),
      ),
    });
    const tree = this.tree;
    this.owned.hold("the run's process tree", () => tree.close());
    this.output = new RunOutput(this.id, this.startedAtMs, context.output, runs, context.events, context.faults, environment.clock);
    const output = this.output;
    this.owned.hold("the run's output", () => output.close());
    this.metrics = new RunMetrics(
      {
        runId: this.id,
        startedAtMs: this.startedAtMs,
        channelFile: launch.channelFile,
        maxSteps: request.maxSteps ?? null,
        minStepSeconds: request.minStepSeconds ?? null,
        ...stepUnits(request.unitsPerStep ?? null, request.workload, launch.config),
        choices: summaryChoices(record, request.workload),
        onStepLimit: (step, minStepSeconds) => this.stopAtStepLimit(step, minStepSeconds),
        clock: environment.clock,
      },
      context.metricStore,
      context.events,
    );
    const metrics = this.metrics;
    // Already stopped by the normal end; a fault before it would leave the channel polled forever.
    this.owned.hold("the run's metrics", () => metrics.close());
    this.timersHeld = this.owned.hold('the stop and time-limit timers', () => {
      for (const timer of this.stopTimers.splice(0)) timer.cancel();
      this.timeout?.cancel();
    });
    // The probe of the run's Python is no part of the run: its knobs would apply to it, and report on it.
    const { [KNOBS_ENV_VAR]: _knobs, ...probeEnv } = env;
    this.python = environment.pythonFingerprints.ask([file, ...args], cwd, probeEnv);
    this.git = readGitProvenance(cwd, environment.baseEnv);
  }

  /** Begins watching the spawned run (samplers, output, its end, the time limit); returns its record as it starts. */
  start(): Run {
    const { runs, telemetry, events, environment, faults } = this.context;
    this.host = new HostSampler(
      this.pty.pid,
      this.startedAtMs,
      faults.guarded(this.id, 'a host telemetry sample could not be kept', (sample: Parameters<TelemetryStore['appendHost']>[1]) => {
        telemetry.appendHost(this.id, sample);
        if (events.hasSubscribers) events.emit('runs.onTelemetry', { runId: this.id, host: hostPoint(sample) });
      }),
      environment.intervals.hostMs,
      { clock: environment.clock },
    );
    this.gpu = this.startGpuSampler();
    this.samplersHeld = this.owned.hold("the run's samplers", () => {
      this.host?.close();
      this.gpu?.close();
    });
    this.pty.onData(faults.guarded(this.id, 'output could not be passed to the store', (data: Buffer) => this.output.accept(data)));
    this.pty.onExit((exit) => void this.finish(exit).then(this.resolveFinished));
    if (this.request.timeoutSeconds !== undefined) {
      // Chained: a --timeout past 24.8 days would otherwise fire at once (Node clamps the delay to 1 ms).
      this.timeout = setLongTimeout(() => this.stop({ kind: 'time-limit' }), this.request.timeoutSeconds * 1000, environment.clock);
    }

    const started = runs.get(this.id)!;
    this.lastKnown = started;
    events.emit('runs.onDidChange', started);
    return started;
  }

  /** Parsed from the terminal by the parser thread (already stored by the writer thread). */
  acceptParsedMetrics(samples: readonly MetricSample[]): void {
    this.metrics.acceptParsed(samples);
  }

  /** Something about the run's parsing a person should know (its pattern switched off): said live and kept with the run. */
  noteParsing(message: string): void {
    const { runs, events } = this.context;
    events.emit('runs.onTelemetryStatus', { runId: this.id, level: 'warning', message });
    runs.addRecordingNote(this.id, 'parsing', message);
  }

  write(data: string): void {
    this.pty.write(data);
  }

  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
  }

  /** SIGINT to the whole process tree (as Ctrl-C would), then SIGTERM, then SIGKILL. */
  stop(cause: StopCause): void {
    // Once the run's end is being recorded there is nothing left to stop.
    if (this.stopCause !== null || this.timersHeld.released) return;
    this.stopCause = cause;
    for (const timer of this.stopTimers.splice(0)) timer.cancel();
    this.timeout?.cancel();
    this.tree.signalAll('SIGINT');
    this.stopTimers.push(
      this.context.environment.clock.setTimeout(() => this.tree.signalAll('SIGTERM'), STOP_ESCALATION_MS),
      this.context.environment.clock.setTimeout(() => this.tree.signalAll('SIGKILL'), 2 * STOP_ESCALATION_MS),
    );
  }

  /** Kills the whole tree at once (the engine is closing); resolves as `finished` does, with everything released. */
  close(): Promise<Run> {
    // A run already stopping for its own limit keeps that cause: it says which data is good.
    const kind = this.stopCause?.kind;
    if (kind !== 'step-limit' && kind !== 'time-limit') this.stopCause = { kind: 'app-closing' };
    this.tree.signalAll('SIGKILL');
    return this.finished;
  }

  private stopAtStepLimit(step: number, minStepSeconds: number | null): void {
    if (!this.live) return;
    this.stop({ kind: 'step-limit', step, minStepSeconds });
  }

  private startGpuSampler(): NvidiaSmiSampler | null {
    const { runs, telemetry, events, environment, faults } = this.context;
    const runId = this.id;
    const status = (level: 'info' | 'warning' | 'error', message: string) => {
      events.emit('runs.onTelemetryStatus', { runId, level, message });
      runs.addRecordingNote(runId, 'telemetry', `${level}: ${message}`);
    };
    const { binary, gpu } = environment.nvidiaSmi;
    if (binary === null) {
      status('info', NO_NVIDIA_SMI_NOTE);
      return null;
    }
    return new NvidiaSmiSampler({
      binary,
      gpu,
      intervalMs: environment.intervals.gpuMs,
      env: { ...environment.baseEnv, TUNING_BENCH_LOAD_FILE: this.loadFile.path },
      startedAtMs: this.startedAtMs,
      rootPid: this.pty.pid,
      onSample: faults.guarded(runId, 'a GPU telemetry sample could not be kept', (sample: TimedGpuSample) => {
        telemetry.appendGpu(runId, sample);
        if (events.hasSubscribers) events.emit('runs.onTelemetry', { runId, gpu: gpuPoint(sample) });
      }),
      onStatus: status,
      clock: environment.clock,
    });
  }

  /** Leaves the registry (once: the normal end leaves before its last event, the finally after any end); from here on the run is not live. */
  private leave(): void {
    if (!this.live) return;
    this.live = false;
    this.onDidEnd();
  }

  /**
   * The one way a run ends: whatever fails while its record is completed, the run leaves the live set, its
   * timers and samplers stop and `finished` resolves, so nothing waits on it forever (close() included).
   */
  private async finish(exit: PtyExit): Promise<Run> {
    try {
      return await this.onExit(exit);
    } catch (error) {
      const { runs, events, faults } = this.context;
      faults.report(this.id, 'recording the end of the run failed', error);
      // The normal path ends the pty's group early on; a fault may have come before it.
      this.ptyHeld?.release();
      let latest = this.lastKnown;
      try {
        latest = runs.get(this.id) ?? latest;
      } catch {
        // The store itself is gone; the last record read is all there is.
      }
      events.emit('runs.onDidChange', latest);
      return latest;
    } finally {
      this.release();
    }
  }

  /** Everything the session holds, released whatever failed before. */
  private release(): void {
    this.owned.releaseAll();
  }

  /**
   * After the run's end: a stopped run's whole tree is killed; any process of the run still alive then (one that
   * left the group and outlived a normal end, or one a signal cannot reach) is reported and kept with the run.
   */
  private async reportSurvivors(): Promise<void> {
    const stopped = this.stopCause !== null;
    if (stopped) this.tree.signalAll('SIGKILL');
    // Real time, whatever the engine's clock: this waits on real processes dying.
    const deadline = performance.now() + SURVIVOR_GRACE_MS;
    let survivors = this.tree.alive();
    while (survivors.length > 0 && performance.now() < deadline) {
      await realDelay(50);
      survivors = this.tree.alive();
    }
    if (survivors.length === 0) return;
    const pids = survivors.map((p) => p.pid);
    this.context.runs.setSurvivors(this.id, pids);
    const what = stopped ? 'survived the stop' : "left the run's process group and are still running after it ended";
    this.context.events.emit('runs.onTelemetryStatus', {
      runId: this.id,
      level: 'warning',
      message: `${pids.length} process(es) started by this run ${what}: ${pids.join(', ')}. Stop them with \`kill ${pids.join(' ')}\` if they should not be running.`,
    });
  }

  private async onExit(exit: PtyExit): Promise<Run> {
    const { runs, events, environment } = this.context;
    await this.drainTrailingOutput();
    this.timersHeld.release();
    this.output.flush();
    // Ends the waiting shell and anything the training left behind in its group (DataLoader workers).
    this.tree.sample();
    this.ptyHeld?.release();
    await this.reportSurvivors();

    const verdict = classifyExit({
      ...exit,
      stopCause: this.stopCause,
      outputTail: this.output.tailText(),
    });
    this.metrics.finish();
    this.samplersHeld?.release();
    this.loadFileHeld.release();
    // Parsing may lag behind the store (a flood, a slow pattern): the ending is recorded once the bytes are, the summary once the samples are.
    const parsed = this.context.output.endRun(this.id, environment.clock.wallMs() - this.startedAtMs);
    // Late results first: nothing may reach the store after the run's record is closed (or the store itself).
    await Promise.all(this.lateResults);
    const endedAt = environment.clock.now();
    // Waits for the writer thread: every byte of output is committed before the ending is recorded.
    await this.context.output.flush();
    const ending = { status: verdict.status, exitCode: exit.exitCode, signal: exit.signal, exitClass: verdict.exitClass, exitReason: verdict.reason, endedAt };
    const storeClosing = (write: () => unknown) => this.storeClosingWrite(write);
    await storeClosing(() => runs.recordEnding(this.id, ending));
    // Put back before anything slower: the next run, or whatever else uses the GPU, should not inherit them.
    if (this.gpuLease) {
      const lease = this.gpuLease;
      this.gpuLease = null;
      await releaseGpu(this.context, this.id, lease, storeClosing);
    }
    const git = await this.git;
    if (git) await storeClosing(() => runs.setGit(this.id, git.provenance, git.diff));
    // Usually answered long ago (or from the cache); a run shorter than `import torch` waits for it once per interpreter.
    const python = await Promise.race([
      this.python,
      new Promise<null>((resolve) => realTimeout(() => resolve(null), PYTHON_ANSWER_WAIT_MS, { background: true })),
    ]);
    if (python) await storeClosing(() => runs.addFingerprint(this.id, python));
    await parsed;
    await environment.flushStore();
    let knobWarmupUntilMs: number | null = null;
    if (this.knobs) {
      const knobs = readKnobResults(this.knobs.resultsFile, this.knobs.settings);
      fs.rmSync(this.knobs.resultsFile, { force: true });
      await storeClosing(() => runs.setKnobs(this.id, knobs));
      knobWarmupUntilMs = knobs.warmupUntilMs;
    }
    const hostSamples = this.context.telemetry.hostSamples(this.id);
    const gpuSamples = storedGpuSamples(this.context.telemetry, this.id);
    const gpu = summarizeGpu(gpuSamples);
    const hint = inputBoundHint(gpu, hostSamples);
    const profiled = this.profile
      ? (environment.profiler?.collect(this.id, {
          startedAtMs: this.startedAtMs,
          sourceRunId: this.profile.sourceRunId,
          pathVariable: this.env.PATH,
        }) ?? null)
      : null;
    // Off this thread: a long run's summary reads every sample it stored, and other runs are live meanwhile.
    const training = await environment.summarizeStored(this.id, this.metrics.summaryOptions(profiled?.span ?? null, knobWarmupUntilMs), profiled !== null);
    if (profiled && this.profile) {
      const source = this.profile.sourceRunId === null ? undefined : runs.get(this.profile.sourceRunId);
      profiled.finish({
        stepTimeMedianMs: training.summary.stepTimeMs.median,
        sourceStepTimeMedianMs: source?.summary.stepTimeMs.median ?? null,
        stepMarks: training.stepMarks ?? [],
      });
    }
    const host = summarizeHost(hostSamples);
    const fairness = assessFairness({
      host,
      gpu: gpuSamples,
      steadyFromMs: training.summary.steadyFromMs,
      clockLockMHz: lockSetByUs(this.request.gpuSettingsInForce),
    });
    const summary = { ...EMPTY_SUMMARY, ...training.summary, gpu, host, fairness, hints: hint ? [hint] : [] };
    await storeClosing(() => runs.setSummary(this.id, summary));
    // Charts decimated once now, so comparisons of long runs read a small row, not every sample.
    await storeClosing(() => runs.setSeries(this.id, training.series));
    const stored = runs.get(this.id)!;
    // Not in the file yet: whoever waits on the run gets its ending from memory (and asks unstoredEndings()).
    const ended = this.context.heldWrites.holds(this.id) ? { ...stored, ...ending, endedAt: endedAt.toISOString(), summary } : stored;
    this.leave();
    events.emit('runs.onDidChange', ended);
    return ended;
  }

  /** Nothing was started (no terminal): the run is recorded as failed with why, and what it holds is let go. */
  private endUnstarted(reason: string): void {
    const { runs, output, environment, events } = this.context;
    void output.endRun(this.id, 0);
    this.loadFileHeld.release();
    if (this.knobs) fs.rmSync(this.knobs.resultsFile, { force: true });
    const ended = runs.recordEnding(this.id, {
      status: 'failed',
      exitCode: null,
      signal: null,
      exitClass: 'error',
      exitReason: reason,
      endedAt: environment.clock.now(),
    });
    this.gpuLeaseHeld.release();
    events.emit('runs.onDidChange', ended);
  }

  /**
   * One of the run's closing writes: retried while the file is full or busy, up to the retry budget; past it (or
   * once an earlier one is held) kept in memory, in order, and written when the file takes it. The run still ends.
   */
  private async storeClosingWrite(write: () => unknown): Promise<void> {
    const { heldWrites, events, environment } = this.context;
    if (heldWrites.holds(this.id)) {
      heldWrites.hold(this.id, write);
      return;
    }
    const onBusy = (message: string) => events.emit('runs.onTelemetryStatus', { runId: this.id, level: 'warning', message });
    try {
      await retryWrite(write, onBusy, environment.endingRetryMs === undefined ? {} : { budgetMs: environment.endingRetryMs });
    } catch (error) {
      const fault = describeWriteFault(error);
      if (fault.fault === 'other') throw error;
      heldWrites.hold(this.id, write);
      events.emit('runs.onTelemetryStatus', {
        runId: this.id,
        level: 'error',
        message:
          `The end of this run could not be written (${fault.fault === 'full' ? 'the disk is full' : 'another process holds the database'}): ` +
          'it is kept in memory and written as soon as the file takes it. Closing Tuning Bench before then loses it.',
      });
    }
  }

  private async drainTrailingOutput(): Promise<void> {
    // Real time, whatever the engine's clock: this waits on the pty's last real bytes.
    const deadline = performance.now() + TRAILING_MAX_MS;
    while (performance.now() < deadline && performance.now() - this.output.lastDataAt < TRAILING_QUIET_MS) {
      await realDelay(TRAILING_QUIET_MS / 3);
    }
  }
}

/** The SM clock lock Tuning Bench set for the run or its sweep (its lower end), or null: only locks we set are known. */
function lockSetByUs(settings: Record<string, unknown> | null | undefined): number | null {
  if (!settings || (settings.setBy !== 'run' && settings.setBy !== 'sweep')) return null;
  const lock = settings.clockLock as { minMHz?: unknown } | null | undefined;
  return typeof lock?.minMHz === 'number' ? lock.minMHz : null;
}
