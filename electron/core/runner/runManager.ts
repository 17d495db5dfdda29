// Starts, watches, stops and records runs: the owner of every live PtySession.
import fs from 'node:fs';
import path from 'node:path';
import { TextDecoder } from 'node:util';
import type { Run, Workload } from '../../shared/api.js';
import { ApiFailure } from '../../shared/api.js';
import type { EventHub } from '../events.js';
import { EMPTY_SUMMARY, type RunPlacement, type RunStore } from '../store/runStore.js';
import type { MetricStore } from '../store/metricStore.js';
import type { TelemetryStore } from '../store/telemetryStore.js';
import { HostSampler } from '../telemetry/hostSampler.js';
import { inputBoundHint } from '../telemetry/hints.js';
import { gpuPoint, hostPoint } from '../telemetry/points.js';
import { gpuFingerprint, hostFingerprint } from '../telemetry/fingerprint.js';
import type { PythonFacts, PythonFingerprints } from '../telemetry/pythonFingerprint.js';
import { NvidiaSmiSampler, type TimedGpuSample } from '../telemetry/nvidiaSmiSampler.js';
import { storedGpuSamples, summarizeGpu, summarizeHost } from '../telemetry/summary.js';
import type { OutputWriter } from '../ingest/outputWriter.js';
import { RunMetrics } from '../metrics/runMetrics.js';
import { buildSeries } from '../ingest/series.js';
import { stepUnits } from '../ingest/unitsPerStep.js';
import type { UnitsPerStep } from '../store/runStore.js';
import { classifyExit } from '../ingest/exitClassifier.js';
import { readGitProvenance, type GitSnapshot } from './gitProvenance.js';
import { processStartTicks } from '../system/procStat.js';
import { PtySession, type PtyExit } from './ptySession.js';
import { resolveCommand } from '../system/resolveCommand.js';
import { setLongTimeout, type LongTimer } from '../system/longTimer.js';
import { ProcessTree } from '../system/processTree.js';
import { retryWrite } from '../store/writeFaults.js';
import { expandWorkload, TemplateError, type BuiltinValues, type ExpandedCommand } from './template.js';
import type { RunGpuLease, RunProfiler } from './collaborators.js';
import type { ProfileOptions } from '../../shared/profile.js';

/** Output is merged over this window before it is stored and sent (STYLE: ~5 ms). */
const MERGE_WINDOW_MS = 5;
/** A merged chunk never grows past this, so one row and one message stay small. */
const MAX_CHUNK_BYTES = 256 * 1024;
/** After the child exits, output still in the pty is drained until it is quiet this long... */
const TRAILING_QUIET_MS = 30;
/** ...or at most this long (STYLE: ~250 ms). */
const TRAILING_MAX_MS = 250;
/** While output flows, the run's record (its byte count) is re-sent at most this often. */
const PROGRESS_EVENT_INTERVAL_MS = 1000;
/** Telemetry status messages stored with a run; more than this is one problem repeating. */
const MAX_TELEMETRY_NOTES = 20;
/** Kept in memory to classify the exit: failure lines are at the end. */
const OUTPUT_TAIL_BYTES = 64 * 1024;
/** Stop escalates SIGINT → SIGTERM → SIGKILL, each after this long without an exit. */
export const STOP_ESCALATION_MS = 3000;
/** The longest a run's end waits for Python's versions (asked when it started; `import torch` takes ~2 s). */
const PYTHON_ANSWER_WAIT_MS = 5000;
export const DEFAULT_TERMINAL = { cols: 120, rows: 32 } as const;
/** After the final SIGKILL, processes get this long to vanish before those left are reported as survivors. */
const SURVIVOR_GRACE_MS = 1000;

export interface RunnerEnvironment {
  builtins: BuiltinValues;
  /** Extra env for commands that start with `builtins.node` (Electron needs ELECTRON_RUN_AS_NODE=1). */
  nodeEnv: Record<string, string>;
  /** The environment a run inherits before its own variables are added. */
  baseEnv: Record<string, string>;
  /** Where each run's structured-channel file lives while it runs. */
  channelDir: string;
  /** `resources/python`, put on PYTHONPATH so `import tuning_bench` works in any training script. */
  pythonHelperDir: string;
  /** Commits everything queued (samples on this thread, output in the writer thread). */
  flushStore: () => Promise<void>;
  /** nvidia-smi to sample (null: no GPU tools here) and the GPU, as `-i` takes it. */
  nvidiaSmi: { binary: string | null; gpu: string };
  /** Sampling intervals (DESIGN defaults: 250 ms GPU, 500 ms host). */
  intervals: { gpuMs: number; hostMs: number };
  /** Python's and PyTorch's versions, cached on disk per interpreter. */
  pythonFingerprints: PythonFingerprints;
  now: () => Date;
  /** Step profiles (`run --profile`); without it, a request to profile is refused. */
  profiler?: RunProfiler;
}

export interface StartRequest {
  workload: Workload | null;
  /** For an ad-hoc command (no workload): the argv and cwd as given. */
  adHoc?: { command: string[]; cwd: string; env?: Record<string, string> };
  values: Record<string, string>;
  cols?: number | undefined;
  rows?: number | undefined;
  /** Stop the run after this long; it ends `timed_out`. */
  timeoutSeconds?: number | undefined;
  /** Stop the run once its metrics reach this step; it ends `stopped`, exit class `ok`. */
  maxSteps?: number | undefined;
  /** The GPU settings in force when it starts, recorded with the run. */
  gpuSettingsInForce?: Record<string, unknown> | null | undefined;
  /** The run's own GPU changes, put back as soon as it ends. */
  gpuLease?: RunGpuLease | null | undefined;
  /** Its place in a sweep. */
  sweep?: RunPlacement | null | undefined;
  /** Runs in this directory instead of the workload's (a sweep's `git=` worktree). */
  cwdOverride?: string | undefined;
  /** Values recorded in the run's config that are not command values (a sweep's `git=REV`). */
  extraConfig?: Record<string, string> | undefined;
  /** Tokens or samples in one step as the user stated them (otherwise the workload's expression says). */
  unitsPerStep?: UnitsPerStep | null | undefined;
  /** Profile a window of steady steps of this run (torch.profiler through sitecustomize). */
  profile?: ProfileOptions | null | undefined;
  /** The run whose command this one runs again to profile it. */
  profileOf?: number | null | undefined;
}

interface ActiveRun {
  id: number;
  session: PtySession;
  /** Every process the run started, those that left its group (setsid, os.setpgrp) included. */
  tree: ProcessTree;
  startedAtMs: number;
  /** Streaming, so a character split across chunks is decoded whole (faster than StringDecoder here). */
  decoder: TextDecoder;
  seq: number;
  pending: Buffer[];
  pendingBytes: number;
  mergeTimer: NodeJS.Timeout | null;
  /** The last output as bytes, decoded only when the run ends (to classify it). */
  tail: Buffer[];
  tailBytes: number;
  stoppedByUser: boolean;
  /** The step at which the run's step limit stopped it. */
  stoppedAtStep: number | null;
  metrics: RunMetrics;
  host: HostSampler | null;
  gpu: NvidiaSmiSampler | null;
  loadFile: string;
  ownLoadFile: boolean;
  command: string[];
  cwd: string;
  env: Record<string, string>;
  /** Stopped because the engine itself was closing (app quit, server stopped), not by a person. */
  stoppedByShutdown: boolean;
  timedOut: boolean;
  /** Why the run was stopped, when it was not a person in the UI (the CLI's terminal closed, SIGTERM). */
  stopReason: string | null;
  stopTimers: NodeJS.Timeout[];
  lastDataAt: number;
  bytes: number;
  lastProgressEventAt: number;
  gpuLease: RunGpuLease | null;
  /** The code it runs, read as it starts (git is quick) and recorded before its summary. */
  git: Promise<GitSnapshot | null>;
  /** Asked as the run starts (at the lowest priority, or from the cache), read as it ends. */
  python: Promise<PythonFacts | null>;
  /** The --timeout, of any length. */
  timeout: LongTimer | null;
  /** Results that arrive after the start (the GPU fingerprint): awaited before the run's record is closed. */
  lateResults: Array<Promise<void>>;
  /** The record as last read, returned if the ending itself cannot be stored. */
  lastKnown: Run;
  /** Set when the run is profiled: the run it re-runs, if any. */
  profile: { sourceRunId: number | null } | null;
  finished: Promise<Run>;
}

/** Keeps (a copy of) the last OUTPUT_TAIL_BYTES of output, for classifying the exit. */
function keepTail(active: ActiveRun, data: Buffer): void {
  active.tail.push(Buffer.from(data.subarray(Math.max(0, data.length - OUTPUT_TAIL_BYTES))));
  active.tailBytes += active.tail.at(-1)!.length;
  while (active.tail.length > 1 && active.tailBytes - active.tail[0]!.length >= OUTPUT_TAIL_BYTES) {
    active.tailBytes -= active.tail.shift()!.length;
  }
}

export class RunManager {
  private readonly active = new Map<number, ActiveRun>();
  /** Work a run left running after it ended (restoring a never-started run's GPU settings): awaited by close(). */
  private readonly background = new Set<Promise<void>>();

  constructor(
    private readonly runs: RunStore,
    private readonly metricStore: MetricStore,
    private readonly telemetry: TelemetryStore,
    private readonly output: OutputWriter,
    private readonly events: EventHub,
    private readonly environment: RunnerEnvironment,
  ) {
    fs.mkdirSync(environment.channelDir, { recursive: true });
    output.onMetrics((runId, samples) => this.active.get(runId)?.metrics.acceptParsed(samples));
  }

  /** The exact argv, cwd and env a workload would run with these values. */
  preview(workload: Workload, values: Record<string, string>): ExpandedCommand {
    try {
      return expandWorkload(workload, values, this.environment.builtins);
    } catch (error) {
      if (error instanceof TemplateError) throw new ApiFailure('invalid_input', error.message);
      throw error;
    }
  }

  start(request: StartRequest): Run {
    const base: ExpandedCommand = request.workload
      ? this.preview(request.workload, request.values)
      : { command: request.adHoc!.command, cwd: request.adHoc!.cwd, env: request.adHoc!.env ?? {}, config: {} };
    const expanded: ExpandedCommand = { ...base, cwd: request.cwdOverride ?? base.cwd, config: { ...base.config, ...request.extraConfig } };
    const cwd = expanded.cwd;
    if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) {
      throw new ApiFailure('invalid_input', `the working directory ${cwd} does not exist; create it or change the workload's cwd`);
    }
    const [program, ...args] = expanded.command;
    if (program === undefined || program === '') throw new ApiFailure('invalid_input', 'the command is empty');
    const profiler = request.profile ? this.environment.profiler : undefined;
    if (request.profile && !profiler) throw new ApiFailure('unavailable', 'this engine was built without step profiles');

    const startedAt = this.environment.now();
    const runEnv = { ...expanded.env };
    const record = this.runs.insert({
      // A typed command of a sweep stands in for a workload (id 0) but is not one.
      workloadId: request.workload && request.workload.id > 0 ? request.workload.id : null,
      workloadName: request.workload && request.workload.id > 0 ? request.workload.name : null,
      command: expanded.command,
      cwd,
      config: expanded.config,
      env: runEnv,
      startedAt,
      enginePid: process.pid,
      sweep: request.sweep ?? null,
      unitsPerStep: request.unitsPerStep ?? null,
    });
    if (request.gpuSettingsInForce) this.runs.setGpuSettings(record.id, request.gpuSettingsInForce);
    request.gpuLease?.attachRun(record.id);

    const channelFile = path.join(this.environment.channelDir, `run-${record.id}-${process.pid}.jsonl`);
    // Where the synthetic workload reports its simulated load, which the fake nvidia-smi follows; one the
    // user set (in the workload's env or the app's) is kept.
    const loadFile =
      runEnv.TUNING_BENCH_LOAD_FILE ||
      this.environment.baseEnv.TUNING_BENCH_LOAD_FILE ||
      path.join(this.environment.channelDir, `run-${record.id}-${process.pid}.load.json`);
    const ownLoadFile = !runEnv.TUNING_BENCH_LOAD_FILE && !this.environment.baseEnv.TUNING_BENCH_LOAD_FILE;
    fs.rmSync(channelFile, { force: true });
    const childEnv: Record<string, string> = {
      ...this.childEnvironment(program, runEnv, record.id, channelFile),
      TUNING_BENCH_LOAD_FILE: loadFile,
      ...(profiler && request.profile ? profiler.environment(record.id, request.profile) : {}),
    };
    const file = resolveCommand(program, cwd, childEnv.PATH);
    if (file === null) {
      const ended = this.runs.recordEnding(record.id, {
        status: 'failed',
        exitCode: null,
        signal: null,
        exitClass: 'not_found',
        exitReason: `command not found: ${program} (looked in ${program.includes('/') ? cwd : 'PATH'}); check the spelling or give a full path`,
        endedAt: this.environment.now(),
      });
      if (request.gpuLease) this.track(record.id, this.releaseGpu(record.id, request.gpuLease));
      this.events.emit('runs.onDidChange', ended);
      return ended;
    }

    this.output.startRun(record.id, { metricRegex: request.workload?.metricRegex ?? '' });
    this.runs.addFingerprint(record.id, hostFingerprint());
    const { binary, gpu } = this.environment.nvidiaSmi;
    const lateResults: Array<Promise<void>> = [];
    if (binary !== null) {
      lateResults.push(
        gpuFingerprint(binary, gpu, this.environment.baseEnv)
          .then((facts) => {
            if (!facts) return;
            this.runs.addFingerprint(record.id, facts);
            const updated = this.runs.get(record.id);
            if (updated) this.events.emit('runs.onDidChange', updated);
          })
          .catch((error: unknown) => this.reportFault(record.id, 'the GPU fingerprint could not be recorded', error)),
      );
    }
    const session = new PtySession({
      file,
      args,
      cwd,
      env: childEnv,
      cols: request.cols ?? DEFAULT_TERMINAL.cols,
      rows: request.rows ?? DEFAULT_TERMINAL.rows,
      launcher: { node: this.environment.builtins.node, env: this.environment.nodeEnv },
    });
    this.runs.setPid(record.id, session.pid, processStartTicks(session.pid));

    let resolveFinished!: (run: Run) => void;
    const active: ActiveRun = {
      id: record.id,
      session,
      tree: new ProcessTree(session.pid),
      startedAtMs: startedAt.getTime(),
      decoder: new TextDecoder('utf-8'),
      seq: 0,
      pending: [],
      pendingBytes: 0,
      mergeTimer: null,
      tail: [],
      tailBytes: 0,
      stoppedByUser: false,
      stoppedAtStep: null,
      metrics: new RunMetrics(
        {
          runId: record.id,
          startedAtMs: startedAt.getTime(),
          channelFile,
          maxSteps: request.maxSteps ?? null,
          ...stepUnits(request.unitsPerStep ?? null, request.workload, expanded.config),
          onStepLimit: (step) => this.stopAtStepLimit(record.id, step),
        },
        this.metricStore,
        this.events,
      ),
      host: null,
      gpu: null,
      loadFile,
      ownLoadFile,
      command: [file, ...args],
      cwd,
      env: childEnv,
      stoppedByShutdown: false,
      timedOut: false,
      stopReason: null,
      stopTimers: [],
      lastDataAt: Date.now(),
      bytes: 0,
      lastProgressEventAt: Date.now(),
      gpuLease: request.gpuLease ?? null,
      python: this.environment.pythonFingerprints.ask([file, ...args], cwd, childEnv),
      git: readGitProvenance(cwd, this.environment.baseEnv),
      timeout: null,
      lateResults,
      lastKnown: record,
      profile: profiler ? { sourceRunId: request.profileOf ?? null } : null,
      finished: new Promise<Run>((resolve) => (resolveFinished = resolve)),
    };
    this.active.set(record.id, active);
    active.host = new HostSampler(
      session.pid,
      startedAt.getTime(),
      this.guarded(record.id, 'a host telemetry sample could not be kept', (sample: Parameters<TelemetryStore['appendHost']>[1]) => {
        this.telemetry.appendHost(record.id, sample);
        if (this.events.hasSubscribers) this.events.emit('runs.onTelemetry', { runId: record.id, host: hostPoint(sample) });
      }),
      this.environment.intervals.hostMs,
    );
    active.gpu = this.startGpuSampler(record.id, startedAt.getTime(), loadFile, session.pid);
    session.onData(this.guarded(record.id, 'output could not be passed to the store', (data: Buffer) => this.onData(active, data)));
    session.onExit((exit) => void this.finish(active, exit).then(resolveFinished));
    if (request.timeoutSeconds !== undefined) {
      // Chained: a --timeout past 24.8 days would otherwise fire at once (Node clamps the delay to 1 ms).
      active.timeout = setLongTimeout(() => this.stop(active.id, { timedOut: true }), request.timeoutSeconds * 1000);
    }

    const started = this.runs.get(record.id)!;
    active.lastKnown = started;
    this.events.emit('runs.onDidChange', started);
    return started;
  }

  isActive(id: number): boolean {
    return this.active.has(id);
  }

  activeRunIds(): number[] {
    return [...this.active.keys()];
  }

  /** Resolves with the final record once the run has ended and everything it wrote is stored. */
  async waitForExit(id: number): Promise<Run> {
    const active = this.active.get(id);
    if (active) return active.finished;
    const run = this.runs.get(id);
    if (!run) throw new ApiFailure('not_found', `no run ${id}`);
    return run;
  }

  write(id: number, data: string): void {
    this.requireActive(id).session.write(data);
  }

  resize(id: number, cols: number, rows: number): void {
    this.requireActive(id).session.resize(cols, rows);
  }

  /** SIGINT to the whole process group (as Ctrl-C would), then SIGTERM, then SIGKILL. */
  stop(id: number, options: { timedOut?: boolean; reason?: string } = {}): void {
    const active = this.requireActive(id);
    if (active.stoppedByUser || active.timedOut) return;
    if (options.reason !== undefined) active.stopReason = options.reason;
    if (options.timedOut) active.timedOut = true;
    else if (active.stoppedAtStep === null) active.stoppedByUser = true;
    for (const timer of active.stopTimers.splice(0)) clearTimeout(timer);
    active.timeout?.cancel();
    active.tree.signalAll('SIGINT');
    active.stopTimers.push(
      setTimeout(() => active.tree.signalAll('SIGTERM'), STOP_ESCALATION_MS),
      setTimeout(() => active.tree.signalAll('SIGKILL'), 2 * STOP_ESCALATION_MS),
    );
  }

  private stopAtStepLimit(id: number, step: number): void {
    const active = this.active.get(id);
    if (!active || active.stoppedByUser || active.timedOut || active.stoppedAtStep !== null) return;
    active.stoppedAtStep = step;
    this.stop(id);
    // stop() marks a person's stop; this one is the plan's.
    active.stoppedByUser = false;
  }

  private startGpuSampler(runId: number, startedAtMs: number, loadFile: string, rootPid: number): NvidiaSmiSampler | null {
    const notes: string[] = [];
    const status = (level: 'info' | 'warning' | 'error', message: string) => {
      this.events.emit('runs.onTelemetryStatus', { runId, level, message });
      // Kept with the run (the first few), so a view opened later can still say why GPU data is missing.
      if (notes.length < MAX_TELEMETRY_NOTES) {
        notes.push(`${level}: ${message}`);
        this.runs.addFingerprint(runId, { telemetryNotes: notes });
      }
    };
    const { binary, gpu } = this.environment.nvidiaSmi;
    if (binary === null) {
      status('info', 'no nvidia-smi found (no NVIDIA GPU or driver): host telemetry only');
      return null;
    }
    return new NvidiaSmiSampler({
      binary,
      gpu,
      intervalMs: this.environment.intervals.gpuMs,
      env: { ...this.environment.baseEnv, TUNING_BENCH_LOAD_FILE: loadFile },
      startedAtMs,
      rootPid,
      onSample: this.guarded(runId, 'a GPU telemetry sample could not be kept', (sample: TimedGpuSample) => {
        this.telemetry.appendGpu(runId, sample);
        if (this.events.hasSubscribers) this.events.emit('runs.onTelemetry', { runId, gpu: gpuPoint(sample) });
      }),
      onStatus: status,
    });
  }

  /** Kills every live run at once (the app is closing) and waits for their records to be complete. */
  async close(): Promise<void> {
    const finishing = [...this.active.values()].map((active) => {
      active.stoppedByUser = true;
      active.stoppedByShutdown = true;
      active.tree.signalAll('SIGKILL');
      return active.finished;
    });
    await Promise.all(finishing);
    await Promise.all([...this.background]);
  }

  /** Keeps a promise a run left behind until it settles, so close() waits for it and its failure is reported, not thrown. */
  private track(runId: number, work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => this.reportFault(runId, 'finishing the run failed', error));
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }

  /**
   * Wraps a callback that runs from a timer or a child's event: a fault is reported (once per kind and run),
   * never thrown into the event loop, where it would end the process and every run it records.
   */
  private guarded<A extends unknown[]>(runId: number, what: string, callback: (...args: A) => void): (...args: A) => void {
    let reported = false;
    return (...args: A) => {
      try {
        callback(...args);
      } catch (error) {
        if (reported) return;
        reported = true;
        this.reportFault(runId, what, error);
      }
    };
  }

  /** A fault in the engine's own bookkeeping: shown on the run's page, never thrown into a timer or the event loop. */
  private reportFault(runId: number, what: string, error: unknown): void {
    const message = `${what}: ${error instanceof Error ? error.message : String(error)}`;
    console.error(`tuning-bench: run ${runId}: ${message}`);
    this.events.emit('runs.onTelemetryStatus', { runId, level: 'error', message });
  }

  /**
   * The one way a run ends: whatever fails while its record is completed, the run leaves the active set, its
   * timers and samplers stop and `finished` resolves, so nothing waits on it forever (close() included).
   */
  private async finish(active: ActiveRun, exit: PtyExit): Promise<Run> {
    try {
      return await this.onExit(active, exit);
    } catch (error) {
      this.reportFault(active.id, 'recording the end of the run failed', error);
      // The normal path ends the pty's group early on; a fault may have come before it.
      active.session.close();
      let latest = active.lastKnown;
      try {
        latest = this.runs.get(active.id) ?? latest;
      } catch {
        // The store itself is gone; the last record read is all there is.
      }
      this.events.emit('runs.onDidChange', latest);
      return latest;
    } finally {
      for (const timer of active.stopTimers) clearTimeout(timer);
      active.timeout?.cancel();
      if (active.mergeTimer) clearTimeout(active.mergeTimer);
      active.host?.close();
      active.gpu?.close();
      active.tree.close();
      // Whatever failed above, the GPU's settings are put back.
      if (active.gpuLease) {
        this.track(active.id, this.releaseGpu(active.id, active.gpuLease));
        active.gpuLease = null;
      }
      if (active.ownLoadFile) fs.rmSync(active.loadFile, { force: true });
      this.active.delete(active.id);
    }
  }

  /**
   * After the run's end: a stopped run's whole tree is killed; any process of the run still alive then (one that
   * left the group and outlived a normal end, or one a signal cannot reach) is reported and kept with the run.
   */
  private async reportSurvivors(active: ActiveRun): Promise<void> {
    const stopped = active.stoppedByUser || active.timedOut || active.stoppedAtStep !== null || active.stoppedByShutdown;
    if (stopped) active.tree.signalAll('SIGKILL');
    const deadline = Date.now() + SURVIVOR_GRACE_MS;
    let survivors = active.tree.alive();
    while (survivors.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      survivors = active.tree.alive();
    }
    if (survivors.length === 0) return;
    const pids = survivors.map((p) => p.pid);
    this.runs.addFingerprint(active.id, { survivors: pids });
    const what = stopped ? 'survived the stop' : 'left the run\'s process group and are still running after it ended';
    this.events.emit('runs.onTelemetryStatus', {
      runId: active.id,
      level: 'warning',
      message: `${pids.length} process(es) started by this run ${what}: ${pids.join(', ')}. Stop them with \`kill ${pids.join(' ')}\` if they should not be running.`,
    });
  }

  private requireActive(id: number): ActiveRun {
    const active = this.active.get(id);
    if (!active) {
      throw new ApiFailure(this.runs.get(id) ? 'conflict' : 'not_found', this.runs.get(id) ? `run ${id} is not running` : `no run ${id}`);
    }
    return active;
  }

  private childEnvironment(program: string, runEnv: Record<string, string>, runId: number, channelFile: string): Record<string, string> {
    const inheritedPythonPath = runEnv.PYTHONPATH ?? this.environment.baseEnv.PYTHONPATH;
    const env: Record<string, string> = {
      ...this.environment.baseEnv,
      TERM: 'xterm-256color',
      COLORTERM: 'truecolor',
      ...runEnv,
      TUNING_BENCH_RUN_ID: String(runId),
      TUNING_BENCH_METRICS: channelFile,
      PYTHONPATH: inheritedPythonPath ? `${this.environment.pythonHelperDir}${path.delimiter}${inheritedPythonPath}` : this.environment.pythonHelperDir,
    };
    if (program === this.environment.builtins.node) Object.assign(env, this.environment.nodeEnv);
    return env;
  }

  private onData(active: ActiveRun, data: Buffer): void {
    active.lastDataAt = Date.now();
    active.pending.push(data);
    active.pendingBytes += data.length;
    if (active.pendingBytes >= MAX_CHUNK_BYTES) this.flushPending(active);
    else active.mergeTimer ??= setTimeout(this.guarded(active.id, 'output could not be passed to the store', () => this.flushPending(active)), MERGE_WINDOW_MS);
  }

  private flushPending(active: ActiveRun): void {
    if (active.mergeTimer) clearTimeout(active.mergeTimer);
    active.mergeTimer = null;
    if (active.pendingBytes === 0) return;
    const data = active.pending.length === 1 ? active.pending[0]! : Buffer.concat(active.pending);
    active.pending = [];
    active.pendingBytes = 0;
    const seq = active.seq++;
    const tMs = Date.now() - active.startedAtMs;
    const bytes = data.length;
    // Decoded only for someone watching; the tail keeps a copy. Both before the store takes the buffer.
    const text = this.events.hasSubscribers ? active.decoder.decode(data, { stream: true }) : null;
    keepTail(active, data);
    this.runs.appendOutput(active.id, seq, tMs, data);
    if (text !== null) this.events.emit('runs.onOutput', { runId: active.id, seq, tMs, data: text });
    active.bytes += bytes;
    const now = Date.now();
    if (now - active.lastProgressEventAt >= PROGRESS_EVENT_INTERVAL_MS) {
      active.lastProgressEventAt = now;
      // The stored count trails by up to one batch; the live one is what the run has written so far.
      const record = this.runs.get(active.id);
      if (record) this.events.emit('runs.onDidChange', { ...record, outputBytes: active.bytes });
    }
  }

  private async onExit(active: ActiveRun, exit: PtyExit): Promise<Run> {
    await this.drainTrailingOutput(active);
    for (const timer of active.stopTimers) clearTimeout(timer);
    active.timeout?.cancel();
    this.flushPending(active);
    // Ends the waiting shell and anything the training left behind in its group (DataLoader workers).
    active.tree.sample();
    active.session.close();
    await this.reportSurvivors(active);

    const tail = new TextDecoder('utf-8').decode(Buffer.concat(active.tail)).slice(-OUTPUT_TAIL_BYTES);
    const verdict = classifyExit({
      ...exit,
      stoppedByUser: active.stoppedByUser,
      timedOut: active.timedOut,
      stoppedAtStep: active.stoppedAtStep,
      outputTail: tail,
    });
    if (active.stoppedByShutdown) verdict.reason = 'stopped because Tuning Bench was closing';
    else if (active.stopReason !== null && verdict.status === 'stopped') verdict.reason = active.stopReason;
    active.metrics.finish();
    active.host?.close();
    active.gpu?.close();
    if (active.ownLoadFile) fs.rmSync(active.loadFile, { force: true });
    this.output.endRun(active.id, Date.now() - active.startedAtMs);
    // Late results first: nothing may reach the store after the run's record is closed (or the store itself).
    await Promise.all(active.lateResults);
    const endedAt = this.environment.now();
    // Waits for the writer thread: output and parsed metrics are all committed before the summary is made.
    await this.output.flush();
    const onBusy = (message: string) => this.events.emit('runs.onTelemetryStatus', { runId: active.id, level: 'warning', message });
    await retryWrite(
      () =>
        this.runs.recordEnding(active.id, {
          status: verdict.status,
          exitCode: exit.exitCode,
          signal: exit.signal,
          exitClass: verdict.exitClass,
          exitReason: verdict.reason,
          endedAt,
        }),
      onBusy,
    );
    // Put back before anything slower: the next run, or whatever else uses the GPU, should not inherit them.
    if (active.gpuLease) {
      const lease = active.gpuLease;
      active.gpuLease = null;
      await this.releaseGpu(active.id, lease);
    }
    const git = await active.git;
    if (git) await retryWrite(() => this.runs.setGit(active.id, git.provenance, git.diff), onBusy);
    // Usually answered long ago (or from the cache); a run shorter than `import torch` waits for it once per interpreter.
    const python = await Promise.race([active.python, new Promise<null>((resolve) => setTimeout(() => resolve(null), PYTHON_ANSWER_WAIT_MS).unref())]);
    if (python) this.runs.addFingerprint(active.id, python);
    await this.environment.flushStore();
    const hostSamples = this.telemetry.hostSamples(active.id);
    const gpuSamples = storedGpuSamples(this.telemetry, active.id);
    const gpu = summarizeGpu(gpuSamples);
    const hint = inputBoundHint(gpu, hostSamples);
    const profiledSpan = active.profile
      ? (this.environment.profiler?.collect(active.id, {
          startedAtMs: active.startedAtMs,
          sourceRunId: active.profile.sourceRunId,
          pathVariable: active.env.PATH,
        }) ?? null)
      : null;
    const summary = { ...EMPTY_SUMMARY, ...active.metrics.summarize(profiledSpan), gpu, host: summarizeHost(hostSamples), hints: hint ? [hint] : [] };
    await retryWrite(() => this.runs.setSummary(active.id, summary), onBusy);
    // Charts decimated once now, so comparisons of long runs read a small row, not every sample.
    const series = buildSeries(this.metricStore.forRun(active.id), gpuSamples);
    await retryWrite(() => this.runs.setSeries(active.id, series), onBusy);
    const ended = this.runs.get(active.id)!;
    this.active.delete(active.id);
    this.events.emit('runs.onDidChange', ended);
    return ended;
  }

  /** Restores the run's GPU changes and records whether that worked (a failure stays in the journal for the next start). */
  private async releaseGpu(runId: number, lease: RunGpuLease): Promise<void> {
    const outcome = await lease.release();
    this.runs.setGpuSettings(runId, { ...lease.record, restored: outcome.ok, ...(outcome.ok ? {} : { restoreErrors: outcome.errors }) });
    for (const error of outcome.errors) this.events.emit('runs.onTelemetryStatus', { runId, level: 'error', message: `GPU settings not restored: ${error}` });
  }

  private async drainTrailingOutput(active: ActiveRun): Promise<void> {
    const deadline = Date.now() + TRAILING_MAX_MS;
    while (Date.now() < deadline && Date.now() - active.lastDataAt < TRAILING_QUIET_MS) {
      await new Promise((resolve) => setTimeout(resolve, TRAILING_QUIET_MS / 3));
    }
  }
}
