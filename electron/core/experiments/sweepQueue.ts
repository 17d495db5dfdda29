// The sweep queue: one run at a time on the GPU, repeats interleaved, fair conditions before each
// run, the sweep's GPU settings held throughout, pause/resume/skip/cancel, resumption after a crash.
import type { Run, RunCheckout, Sweep, SweepConfig, SweepPlaceNow, SweepPreview, SweepRequest, SweepRunFailure, Workload } from '../../shared/api.js';
import { ApiFailure } from '../../shared/api.js';
import { hasRunSettings, type GpuRunSettings } from '../../shared/gpuSettings.js';
import type { EventHub } from '../events.js';
import type { GpuControl, GpuLease, GpuSettingsRecord } from '../gpu-control/gpuControl.js';
import type { RunManager } from '../runner/runManager.js';
import type { Store } from '../store/store.js';
import { isStillRunning, sameProcess, type ProcessIdentity } from '../system/processIdentity.js';
import type { RunPlacement } from '../store/runStore.js';
import type { SkippedPosition, SweepRecord } from '../store/sweepStore.js';
import path from 'node:path';
import { adHocWorkload } from '../../shared/typedCommand.js';
import { findLargestBatch } from './batchFinder.js';
import { evaluateExpression, ExpressionError } from '../metrics/expression.js';
import { GIT_VARIABLE, GitWorktreeError, planCheckout, SHORT_SHA_CHARS, SweepWorktrees, WORKTREE_VALUE, type CheckoutPlan } from './gitWorktrees.js';
import { failureReason, isFailedRun, missingPaths, sideFailure } from './sideFailure.js';
import { waitForFairConditions, waitForQuietHost, type GpuReader, type HostReader, type HostWait, type RunWait } from './fairConditions.js';
import {
  estimateSeconds,
  interleavedSchedule,
  median,
  PlanError,
  planConfigs,
  repeatValues,
  runSeconds,
  schedulePlace,
  type SchedulePosition,
} from './plan.js';
import { readFindBatchRequest, readSweepRequest, type FindBatchRequest, type StoredSweepRequest } from './storedRequest.js';
import type { Clock } from '../clock.js';
import { checkKnob, KNOB_PREFIX, knobOfVariable } from '../../shared/knobs.js';

const OOM_CLASSES = new Set(['cuda_oom', 'host_oom']);
/** A failure's reason in a progress event: a line of output is rarely longer; a longer one is cut here. */
const MAX_REASON_CHARS = 500;

/**
 * What one step of a config holds, from the sweep's `tokensPerStep` or `samplesPerStep` expression over its values
 * (the workload's defaults under them); null when the sweep gives none. A bad expression fails the request.
 */
export function workPerStep(
  request: Pick<SweepRequest, 'tokensPerStep' | 'samplesPerStep'>,
  workload: Workload,
  values: Record<string, string>,
): { tokens: number | null; samples: number | null } | null {
  if (request.tokensPerStep !== undefined && request.samplesPerStep !== undefined)
    throw new ApiFailure('invalid_input', 'give tokens or samples per step, not both');
  const expression = request.tokensPerStep ?? request.samplesPerStep;
  if (expression === undefined) return null;
  const scope: Record<string, string> = {};
  for (const variable of workload.variables) scope[variable.name] = variable.default;
  Object.assign(scope, values);
  let value: number;
  try {
    value = evaluateExpression(expression, scope);
  } catch (error) {
    if (error instanceof ExpressionError) {
      const flag = request.tokensPerStep !== undefined ? 'tokens per step' : 'samples per step';
      throw new ApiFailure('invalid_input', `${flag} "${expression}": ${error.message} (use the sweep's {variables}, numbers and + - * / ( ))`);
    }
    throw error;
  }
  if (!(value > 0)) throw new ApiFailure('invalid_input', `"${expression}" gives ${value} for ${JSON.stringify(values)}: the work of a step must be positive`);
  return request.tokensPerStep !== undefined ? { tokens: value, samples: null } : { tokens: null, samples: value };
}

/** A config's values less `git`, which picks the directory, and its knobs (`knob.NAME`), applied in the run rather than filling the command. */
function commandValues(values: Record<string, string>): Record<string, string> {
  const { [GIT_VARIABLE]: _revision, ...rest } = values;
  return Object.fromEntries(Object.entries(rest).filter(([name]) => knobOfVariable(name) === null));
}

/** A config's knobs, as the run records them in its config (`knob.NAME`). */
function knobValues(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([name]) => knobOfVariable(name) !== null));
}

export interface SweepStartRun {
  (request: {
    workload: Workload;
    values: Record<string, string>;
    maxSteps?: number | undefined;
    minStepSeconds?: number | undefined;
    timeoutSeconds?: number | undefined;
    sweep: RunPlacement;
    inForce?: GpuSettingsRecord | null;
    /** A `git=` config runs in its revision's worktree. */
    cwdOverride?: string | undefined;
    /** Values recorded with the run that are not command values (`git`). */
    extraConfig?: Record<string, string> | undefined;
    /** What one step holds, from the sweep's work expression for this config. */
    unitsPerStep?: { tokens: number | null; samples: number | null } | undefined;
    /** Warm-up and left-out steps the sweep sets for its runs. */
    steps?: Run['steps'] | undefined;
    /** The worktree `cwdOverride` is in, recorded with the run. */
    checkout?: RunCheckout | undefined;
  }): Promise<Run>;
}

export interface SweepQueueDeps {
  store: Store;
  runner: RunManager;
  startRun: SweepStartRun;
  gpu: GpuControl;
  events: EventHub;
  /** null: no GPU here, so no waiting for one. */
  reader: GpuReader | null;
  /** Reads the cores other processes use (null: no host wait). */
  hostReader: HostReader | null;
  /** Logical cores of the machine, for the host-busy limit. */
  cores: number;
  /** Dates recorded on sweeps; the wait for fair conditions. */
  clock: Clock;
  /** This engine: recorded as each sweep's owner, so another engine knows whether it is still running. */
  owner: ProcessIdentity;
  /** Where each sweep's `git=` worktrees are made (one folder per sweep). */
  worktreeDir: string;
  /** The environment git runs in. */
  gitEnv: Record<string, string>;
}

/** The end of a failed side's output read for paths it missed: a traceback's last lines are in it. */
const FAILURE_TAIL_BYTES = 16 * 1024;

/** How long a run of the sweep may go, and what it waits for before it starts. */
interface SweepRunLimits {
  maxSteps?: number | undefined;
  minStepSeconds?: number | undefined;
  timeoutSeconds?: number | undefined;
  waitForIdle: boolean;
  maxWaitSeconds: number;
  waitForHost?: boolean;
}

/** What a run of the sweep takes beyond its values: a `git=` side's worktree, its work per step, its steps. */
interface SweepRunExtras {
  cwdOverride?: string;
  extraConfig?: Record<string, string>;
  checkout?: RunCheckout;
  unitsPerStep?: { tokens: number | null; samples: number | null };
  steps?: Run['steps'];
}

/** A place of the schedule as runOne is given it: which run of how many, its config and repeat. */
type SweepPlace = Omit<SweepPlaceNow, 'phase' | 'since' | 'runId' | 'runStartedAt'>;

/** What only the engine running a sweep knows: the run now, a wait, a pause or cancel asked for. */
interface LiveSweep {
  paused: boolean;
  cancelled: boolean;
  skipCurrent: boolean;
  currentRunId: number | null;
  current: string | null;
  waiting: string | null;
  /** The place under way: from the start of its wait to the end of its run. */
  now: { place: SweepPlace; since: Date; runStartedAt: string | null } | null;
  resume: (() => void) | null;
}

export class SweepQueue {
  private readonly live = new Map<number, LiveSweep>();
  private readonly pending: number[] = [];
  private runningSweep: number | null = null;
  private draining: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly deps: SweepQueueDeps) {}

  /**
   * Marks the sweeps of engines that died as interrupted, so they can be offered for resumption. An owner counts
   * as running only as the same process (pid and start time): a live process that got its pid later does not.
   */
  recoverInterrupted(): SweepRecord[] {
    const interrupted: SweepRecord[] = [];
    for (const sweep of this.deps.store.sweeps.unfinished()) {
      const owner = sweep.ownerPid === null ? null : { pid: sweep.ownerPid, startTicks: sweep.ownerStartTicks };
      if (owner !== null && !sameProcess(owner, this.deps.owner) && isStillRunning(owner, new Date(sweep.createdAt))) continue;
      this.deps.store.sweeps.setStatus(sweep.id, 'interrupted');
      interrupted.push(sweep);
    }
    return interrupted;
  }

  preview(request: SweepRequest): SweepPreview {
    const workload = this.sweepWorkload(request);
    const configs = this.plan(request, workload);
    for (const config of configs) workPerStep(request, workload, config.values);
    // A typed command has no earlier runs to learn from: its estimate says so.
    const history = workload.id > 0 ? this.deps.store.runs.list(1000).filter((run) => run.workloadId === workload.id) : [];
    const estimate = estimateSeconds(configs, request.repeats, history, request.values, request.maxSteps ?? null);
    return {
      configs: configs.map((config) => ({ ...config, ...this.deps.runner.preview(workload, commandValues(config.values)) })),
      runCount: configs.length * request.repeats,
      estimateSeconds: estimate.seconds,
      estimateBasis: estimate.basis,
    };
  }

  /** Queues a sweep. With the queue idle its GPU settings are applied now, so a refusal answers this call. */
  async start(request: SweepRequest): Promise<Sweep> {
    const workload = this.sweepWorkload(request);
    const configs = this.plan(request, workload);
    // Every config's command is built now: a bad value fails the request, not the fifth run; so is its work per step.
    for (const config of configs) {
      this.deps.runner.preview(workload, commandValues(config.values));
      workPerStep(request, workload, config.values);
    }
    // Every revision is checked now too, before anything runs, resolved to its commit and the working tree frozen.
    const revisions = request.vary.find((v) => v.name === GIT_VARIABLE);
    const checkout = revisions ? await this.revisionPlan(workload, revisions.values, request.links) : null;
    const record = this.deps.store.sweeps.insert({
      createdAt: this.deps.clock.now(),
      name: request.name || (checkout ? gitSweepName(checkout, request) : `${workload.name} ${request.plan}`),
      kind: 'sweep',
      workloadId: workload.id > 0 ? workload.id : null,
      workloadName: workload.name,
      plan: request.plan,
      request: checkout ? { ...request, checkout } : { ...request },
      configs: checkout ? configs.map((config) => ({ ...config, name: gitConfigName(config, checkout) })) : configs,
      ownerPid: this.deps.owner.pid,
      ownerStartTicks: this.deps.owner.startTicks,
    });
    let lease: GpuLease | null = null;
    if (this.runningSweep === null && hasRunSettings(request.gpuSettings)) {
      try {
        lease = await this.acquire(record.id, request.gpuSettings, request.confirmOtherProcesses);
      } catch (error) {
        this.deps.store.sweeps.remove(record.id);
        throw error;
      }
    }
    this.enqueue(record.id, lease);
    return this.get(record.id);
  }

  /** A batch-size finder runs as a sweep of its own, its configs added probe by probe. */
  findBatch(request: FindBatchRequest): Sweep {
    const workload = this.sweepWorkload(request);
    if (!workload.variables.some((v) => v.name === request.variable)) {
      throw new ApiFailure(
        'invalid_input',
        request.command !== undefined
          ? `the command has no {${request.variable}} placeholder: put one where the batch size goes (e.g. --batch-size {${request.variable}})`
          : `the workload ${workload.name} has no variable ${request.variable}`,
      );
    }
    // The values are checked as a sweep's are (unknown names, every knob's value), then the first probe's command is built.
    this.plan({ vary: [{ name: request.variable, values: [String(request.start)] }], values: request.values, plan: 'ladder' }, workload);
    const first = { ...request.values, [request.variable]: String(request.start) };
    this.deps.runner.preview(workload, commandValues(first));
    workPerStep(request, workload, first);
    const record = this.deps.store.sweeps.insert({
      createdAt: this.deps.clock.now(),
      name: `${workload.name} batch-size finder (${request.variable})`,
      kind: 'batch-finder',
      workloadId: workload.id > 0 ? workload.id : null,
      workloadName: workload.name,
      plan: 'double then bisect',
      request: { ...request },
      configs: [],
      ownerPid: this.deps.owner.pid,
      ownerStartTicks: this.deps.owner.startTicks,
    });
    this.enqueue(record.id, null);
    return this.get(record.id);
  }

  /**
   * Cancels a sweep that its owner (a tune's step) needs no more of, between runs as a cancel does, with the reason a
   * person reads beside its status.
   */
  endEarly(id: number, note: string): Sweep {
    const record = this.requireRecord(id);
    if (!this.live.has(id)) throw new ApiFailure('conflict', `sweep ${id} is ${record.status}; only a queued, running or paused sweep can be ended`);
    this.deps.store.sweeps.setEndedNote(id, note);
    return this.control(id, 'cancel');
  }

  control(id: number, action: 'pause' | 'resume' | 'skip' | 'cancel'): Sweep {
    const record = this.requireRecord(id);
    const live = this.live.get(id);
    if (action === 'resume' && record.status === 'interrupted') {
      this.deps.store.sweeps.setOwner(id, this.deps.owner);
      this.enqueue(id, null);
      return this.get(id);
    }
    if (!live) throw new ApiFailure('conflict', `sweep ${id} is ${record.status}; only a queued, running or paused sweep can be ${action}d`);
    if (action === 'pause') {
      live.paused = true;
      if (this.runningSweep === id && live.currentRunId === null) this.setStatus(id, 'paused');
    } else if (action === 'resume') {
      live.paused = false;
      live.resume?.();
    } else if (action === 'skip') {
      live.skipCurrent = true;
      if (live.currentRunId !== null && this.deps.runner.isActive(live.currentRunId)) this.deps.runner.stop(live.currentRunId);
    } else {
      live.cancelled = true;
      live.paused = false;
      live.resume?.();
      if (live.currentRunId !== null && this.deps.runner.isActive(live.currentRunId)) this.deps.runner.stop(live.currentRunId);
      if (this.runningSweep !== id) {
        this.pending.splice(this.pending.indexOf(id), 1);
        this.live.delete(id);
        this.setStatus(id, 'cancelled', this.deps.clock.now());
      }
    }
    const sweep = this.get(id);
    this.deps.events.emit('sweeps.onDidChange', sweep);
    return sweep;
  }

  list(limit: number): Sweep[] {
    return this.deps.store.sweeps.list(limit).map((record) => this.toSweep(record));
  }

  get(id: number): Sweep {
    return this.toSweep(this.requireRecord(id));
  }

  /** Resolves when the sweep has ended (any final status); `onChange` sees it as it is at each change until then. */
  async waitForEnd(id: number, onChange?: (sweep: Sweep) => void): Promise<Sweep> {
    for (;;) {
      const sweep = this.get(id);
      if (!['queued', 'running', 'paused'].includes(sweep.status) || !this.live.has(id)) return sweep;
      await new Promise<void>((resolve) => {
        const subscription = this.deps.events.subscribe((event, payload) => {
          if (event === 'sweeps.onDidChange' && payload.id === id) {
            subscription.unsubscribe();
            // Told as it is emitted: a run's end is emitted before the next run starts, so a cancel here cuts none.
            onChange?.(payload);
            resolve();
          }
        });
      });
    }
  }

  /** On quit: the current run is stopped by the runner; the sweep stays resumable (interrupted). */
  async close(): Promise<void> {
    this.closed = true;
    for (const [id, live] of this.live) {
      live.cancelled = true;
      live.resume?.();
      this.setStatus(id, 'interrupted');
    }
    await this.draining;
  }

  private plan(request: Pick<SweepRequest, 'vary' | 'values' | 'plan'>, workload: Workload): SweepConfig[] {
    const known = new Set([...workload.variables.map((v) => v.name), GIT_VARIABLE]);
    const unknown = [...request.vary.map((v) => v.name), ...Object.keys(request.values)].find((name) => !known.has(name) && knobOfVariable(name) === null);
    if (unknown) {
      throw new ApiFailure(
        'invalid_input',
        `the workload ${workload.name} has no variable ${unknown} (it has ${[...known].join(', ')}, and the knobs ${KNOB_PREFIX}NAME)`,
      );
    }
    // Every knob's every value checked now, with the valid ones named: not at the fifth run.
    const knobAssignments = [...request.vary.flatMap((v) => v.values.map((value) => [v.name, value] as const)), ...Object.entries(request.values)].filter(
      ([name]) => knobOfVariable(name) !== null,
    );
    for (const [name, value] of knobAssignments) {
      const checked = checkKnob(knobOfVariable(name)!, value);
      if (!checked.ok) throw new ApiFailure('invalid_input', checked.error);
    }
    try {
      return planConfigs(request.vary, request.plan, request.values);
    } catch (error) {
      if (error instanceof PlanError) throw new ApiFailure('invalid_input', error.message);
      throw error;
    }
  }

  /** The registered workload a request names, or the typed command it gives. */
  private sweepWorkload(request: Pick<SweepRequest, 'workloadId' | 'command'>): Workload {
    if (request.workloadId !== undefined && request.command !== undefined) {
      throw new ApiFailure('invalid_input', 'give a workload or a command, not both');
    }
    if (request.command !== undefined) return adHocWorkload(request.command);
    if (request.workloadId === undefined) throw new ApiFailure('invalid_input', 'give a workload, or a command with {var} placeholders');
    return this.requireWorkload(request.workloadId);
  }

  private async revisionPlan(workload: Workload, values: readonly string[], links: readonly string[]): Promise<CheckoutPlan> {
    try {
      return await planCheckout(this.deps.runner.workingDirectory(workload), values, links, this.deps.gitEnv);
    } catch (error) {
      if (error instanceof GitWorktreeError) throw new ApiFailure('invalid_input', error.message);
      throw error;
    }
  }

  private requireWorkload(id: number): Workload {
    const workload = this.deps.store.workloads.get(id);
    if (!workload) throw new ApiFailure('not_found', `no workload ${id}`);
    return workload;
  }

  private requireRecord(id: number): SweepRecord {
    const record = this.deps.store.sweeps.get(id);
    if (!record) throw new ApiFailure('not_found', `no sweep ${id}`);
    return record;
  }

  private acquire(id: number, settings: GpuRunSettings, confirm: boolean): Promise<GpuLease> {
    return this.deps.gpu.acquire(settings, { scope: 'sweep', confirmOtherProcesses: confirm, label: `sweep ${id}` });
  }

  private enqueue(id: number, lease: GpuLease | null): void {
    if (this.closed) throw new ApiFailure('unavailable', 'Tuning Bench is closing');
    this.live.set(id, { paused: false, cancelled: false, skipCurrent: false, currentRunId: null, current: null, waiting: null, now: null, resume: null });
    this.leases.set(id, lease);
    this.pending.push(id);
    this.setStatus(id, 'queued');
    this.draining ??= this.drain().finally(() => (this.draining = null));
  }

  private readonly leases = new Map<number, GpuLease | null>();

  private async drain(): Promise<void> {
    for (let id = this.pending.shift(); id !== undefined; id = this.pending.shift()) {
      this.runningSweep = id;
      try {
        await this.runSweep(id);
      } catch (error) {
        this.deps.store.sweeps.setError(id, error instanceof Error ? error.message : String(error));
        this.setStatus(id, 'failed', this.deps.clock.now());
      } finally {
        const lease = this.leases.get(id);
        this.leases.delete(id);
        if (lease) {
          const outcome = await lease.release();
          if (!outcome.ok) this.deps.store.sweeps.setError(id, `GPU settings not restored: ${outcome.errors.join('; ')}`);
        }
        this.live.delete(id);
        this.runningSweep = null;
        this.deps.events.emit('sweeps.onDidChange', this.get(id));
      }
    }
  }

  private async runSweep(id: number): Promise<void> {
    const record = this.requireRecord(id);
    const live = this.live.get(id)!;
    if (live.cancelled) return;
    // A finder's workload, like a sweep's, is the typed command its stored request gives, or the registered one.
    const finder = record.kind === 'batch-finder' ? readFindBatchRequest(id, record.request) : null;
    const request = finder === null ? readSweepRequest(id, record.request) : null;
    const command = finder?.command ?? request?.command;
    const workload = command ? adHocWorkload(command) : this.requireWorkload(record.workloadId ?? -1);
    this.setStatus(id, 'running');
    if (request !== null && !this.leases.get(id) && hasRunSettings(request.gpuSettings)) {
      this.leases.set(id, await this.acquire(id, request.gpuSettings, true));
    }
    const idleTempC = await this.idleTemperature();

    if (finder !== null) {
      await this.runFinder(id, workload, finder, idleTempC);
    } else if (request !== null) {
      await this.runPlan(id, live, record, workload, request, idleTempC);
    }
    if (this.closed) return;
    const runs = this.deps.store.runs.forSweep(id);
    const anyOk = runs.some((run) => run.exitClass === 'ok');
    this.setStatus(id, live.cancelled ? 'cancelled' : anyOk ? 'succeeded' : 'failed', this.deps.clock.now());
  }

  /** The configs' runs, repeats interleaved; `git=` configs each in their revision's worktree. */
  private async runPlan(
    id: number,
    live: LiveSweep,
    record: SweepRecord,
    workload: Workload,
    request: StoredSweepRequest,
    idleTempC: number | null,
  ): Promise<void> {
    const revisions = (request.vary ?? []).find((v) => v.name === GIT_VARIABLE);
    // A sweep started before revisions were resolved at its start has none stored: resolved now, once.
    const checkout = revisions ? (request.checkout ?? (await this.revisionPlan(workload, revisions.values, request.links ?? []))) : null;
    const worktrees = checkout ? new SweepWorktrees(checkout, path.join(this.deps.worktreeDir, `sweep-${id}`), this.deps.gitEnv) : null;
    try {
      const schedule = interleavedSchedule(record.configs.length, request.repeats);
      for (const [index, position] of schedule.entries()) {
        if (live.cancelled) break;
        await this.pauseIfAsked(id, live);
        if (live.cancelled) break;
        const current = this.requireRecord(id);
        if (this.isDone(current, position)) continue;
        const config = current.configs[position.configIndex]!;
        if (this.configRanOutOfMemory(id, position.configIndex)) {
          this.skip(id, position, 'oom');
          continue;
        }
        const label = `config ${position.configIndex + 1} of ${current.configs.length} (${config.name}), repeat ${position.repeatIndex + 1} of ${request.repeats}`;
        const revision = config.values[GIT_VARIABLE];
        const values = repeatValues(workload.variables, commandValues(config.values), position.repeatIndex, {
          pinned: request.pinSeed,
          varied: request.vary.map((v) => v.name),
        });
        const side = worktrees && revision !== undefined ? await worktrees.side(revision, this.deps.runner.preview(workload, values).cwd) : null;
        const knobs = knobValues(config.values);
        const placement = side
          ? { cwdOverride: side.cwd, extraConfig: { [GIT_VARIABLE]: revision!, ...knobs }, checkout: side.checkout }
          : { extraConfig: knobs };
        const units = workPerStep(request, workload, values);
        const steps =
          request.steps && (request.steps.warmupSteps !== null || request.steps.excludeSteps.length > 0) ? { ...request.steps, setBy: 'sweep' as const } : null;
        const place = {
          run: index + 1,
          of: schedule.length,
          configIndex: position.configIndex,
          config: config.name,
          repeat: position.repeatIndex + 1,
          repeats: request.repeats,
        };
        const run = await this.runOne(id, live, workload, values, position, { label, place }, request, idleTempC, {
          ...placement,
          ...(units ? { unitsPerStep: units } : {}),
          ...(steps ? { steps } : {}),
        });
        if (run && side && (run.status === 'failed' || run.status === 'timed_out')) this.recordMissing(run, side.checkout);
        if (run && OOM_CLASSES.has(run.exitClass ?? '')) {
          for (let r = position.repeatIndex + 1; r < request.repeats; r += 1) this.skip(id, { configIndex: position.configIndex, repeatIndex: r }, 'oom');
        }
      }
    } finally {
      await worktrees?.close(request.keepWorktrees === true);
    }
  }

  /** What a failed side's output named that your tree has and its worktree lacked: read now, while the worktree exists. */
  private recordMissing(run: Run, checkout: RunCheckout): void {
    const tail = this.deps.store.runs.outputPage(run.id, { afterSeq: -1, maxBytes: FAILURE_TAIL_BYTES, fromEnd: true });
    const text = `${run.exitReason ?? ''}\n${tail.chunks.map((chunk) => chunk.data).join('')}`;
    const missing = missingPaths(text, run, checkout);
    if (missing.length > 0) this.deps.store.runs.setCheckout(run.id, { ...checkout, missing });
  }

  private async runFinder(id: number, workload: Workload, request: FindBatchRequest, idleTempC: number | null): Promise<void> {
    const live = this.live.get(id)!;
    const result = await findLargestBatch(
      request.start,
      async (batch) => {
        if (live.cancelled) return 'cancelled';
        const record = this.requireRecord(id);
        const values = { ...request.values, [request.variable]: String(batch) };
        const config: SweepConfig = { index: record.configs.length, name: `${request.variable}=${batch}`, values, changes: [`${request.variable}=${batch}`] };
        this.deps.store.sweeps.setConfigs(id, [...record.configs, config]);
        // A probe asks only whether the batch fits in memory: a busy host does not change that, so it waits for the GPU alone.
        const limits = { maxSteps: request.maxSteps, timeoutSeconds: request.timeoutSeconds, waitForIdle: true, maxWaitSeconds: 60, waitForHost: false };
        const units = workPerStep(request, workload, values);
        const place = { run: config.index + 1, of: null, configIndex: config.index, config: config.name, repeat: 1, repeats: 1 };
        const what = { label: `probe ${config.index + 1}: ${config.name}`, place };
        // Knobs (`knob.NAME`) are applied in the run and recorded in its config, as a sweep's are; the rest fill the command.
        const knobs = knobValues(values);
        const extras = { ...(units ? { unitsPerStep: units } : {}), ...(Object.keys(knobs).length > 0 ? { extraConfig: knobs } : {}) };
        const run = await this.runOne(
          id,
          live,
          workload,
          commandValues(values),
          { configIndex: config.index, repeatIndex: 0 },
          what,
          limits,
          idleTempC,
          extras,
        );
        // A probe stopped by a cancel or by the engine closing measured nothing: the finder stops (resumable), not failed.
        if (run === null || live.cancelled) return 'cancelled';
        if (OOM_CLASSES.has(run.exitClass ?? '')) return 'oom';
        if (run.exitClass === 'ok') return 'fits';
        throw new Error(
          `the probe at ${config.name} failed for another reason than memory (${run.exitClass}: ${run.exitReason ?? 'no reason'}); fix that first`,
        );
      },
      request.maxBatch,
    );
    if (result === null) return;
    const message =
      result.largestFit === null
        ? `even ${request.variable}=${request.start} ran out of memory`
        : result.firstFailure === null
          ? `${request.variable}=${result.largestFit} fits and nothing larger was tried (the search stops at ${result.largestFit})`
          : `${request.variable}=${result.largestFit} is the largest that fits; ${result.firstFailure} ran out of memory`;
    this.deps.store.sweeps.setResult(id, { variable: request.variable, largestFit: result.largestFit, firstFailure: result.firstFailure, message });
  }

  /** One run of the sweep, after waiting for fair conditions; null when it was skipped or cancelled before starting. */
  private async runOne(
    id: number,
    live: LiveSweep,
    workload: Workload,
    values: Record<string, string>,
    position: SchedulePosition,
    { label, place }: { label: string; place: SweepPlace },
    limits: SweepRunLimits,
    idleTempC: number | null,
    placement: SweepRunExtras = {},
  ): Promise<Run | null> {
    // What the progress tells from here to the end of its run (phase, since when), cleared however it ends.
    live.current = label;
    live.skipCurrent = false;
    live.now = { place, since: this.deps.clock.now(), runStartedAt: null };
    try {
      return await this.waitAndRun(id, live, workload, values, position, limits, idleTempC, placement);
    } finally {
      live.now = null;
    }
  }

  /** The wait for fair conditions, then the run; null when it was skipped or cancelled before starting. */
  private async waitAndRun(
    id: number,
    live: LiveSweep,
    workload: Workload,
    values: Record<string, string>,
    position: SchedulePosition,
    limits: SweepRunLimits,
    idleTempC: number | null,
    placement: SweepRunExtras,
  ): Promise<Run | null> {
    // Without nvidia-smi there is nothing to wait for; the record says so rather than "disabled".
    const noWait = limits.waitForIdle ? 'no-gpu' : 'disabled';
    let wait: RunWait = { seconds: 0, reason: noWait, host: null, startTempC: null, endTempC: null, targetTempC: null, busyProcesses: 0 };
    const onWaiting = (what: string) => {
      if (live.waiting === what) return;
      live.waiting = what;
      this.deps.events.emit('sweeps.onDidChange', this.get(id));
    };
    // The host first (without a GPU its checks still apply), then the GPU with what is left of the bound.
    const host: HostWait =
      limits.waitForIdle && limits.waitForHost !== false && this.deps.hostReader
        ? await waitForQuietHost({
            read: this.deps.hostReader,
            cores: this.deps.cores,
            maxWaitMs: limits.maxWaitSeconds * 1000,
            clock: this.deps.clock,
            cancelled: () => live.cancelled || live.skipCurrent,
            onWaiting,
          })
        : { reason: 'disabled', seconds: 0, otherCpuCores: null };
    wait = { ...wait, host, seconds: host.seconds };
    if (limits.waitForIdle && this.deps.reader) {
      const gpuWait = await waitForFairConditions({
        read: this.deps.reader,
        idleTempC,
        maxWaitMs: Math.max(0, limits.maxWaitSeconds - host.seconds) * 1000,
        clock: this.deps.clock,
        cancelled: () => live.cancelled || live.skipCurrent,
        onWaiting,
      });
      wait = { ...gpuWait, host, seconds: host.seconds + gpuWait.seconds };
    }
    live.waiting = null;
    if (live.cancelled) return null;
    if (live.skipCurrent) {
      this.skip(id, position, 'person');
      return null;
    }
    const lease = this.leases.get(id);
    const run = await this.deps.startRun({
      workload,
      values,
      maxSteps: limits.maxSteps,
      minStepSeconds: limits.minStepSeconds,
      timeoutSeconds: limits.timeoutSeconds,
      sweep: { sweepId: id, ...position, replacesRunId: this.interruptedAt(id, position)?.id ?? null },
      inForce: lease?.record ?? null,
      ...placement,
    });
    this.deps.store.runs.setWait(run.id, wait);
    // The interrupted run this one replaces now links to it: its page shows that at once.
    const replaced = run.replacesRunId === null ? undefined : this.deps.store.runs.get(run.replacesRunId);
    if (replaced) this.deps.events.emit('runs.onDidChange', replaced);
    live.currentRunId = run.id;
    if (live.now) live.now.runStartedAt = run.startedAt;
    this.deps.events.emit('sweeps.onDidChange', this.get(id));
    let ended = await this.deps.runner.waitForExit(run.id);
    live.currentRunId = null;
    live.now = null;
    // Stopped because the engine is closing: cut short like a crash, so a resume runs its place again.
    if (this.closed && ended.status === 'stopped')
      ended = this.deps.store.runs.markInterrupted(
        run.id,
        ended.exitReason ?? 'Tuning Bench closed during the run',
        new Date(ended.endedAt ?? this.deps.clock.now()),
      );
    // A run stopped by a skip or a cancel did not measure anything: its place counts as skipped.
    if (live.skipCurrent || (live.cancelled && !this.closed)) this.skip(id, position, 'person');
    this.deps.events.emit('sweeps.onDidChange', this.get(id));
    return ended;
  }

  private async pauseIfAsked(id: number, live: LiveSweep): Promise<void> {
    if (!live.paused) return;
    this.setStatus(id, 'paused');
    this.deps.events.emit('sweeps.onDidChange', this.get(id));
    await new Promise<void>((resolve) => (live.resume = resolve));
    live.resume = null;
    if (!live.cancelled) this.setStatus(id, 'running');
  }

  /** Measured once, when the sweep begins: the GPU's temperature if it is idle now, else unknown. */
  private async idleTemperature(): Promise<number | null> {
    const reading = await this.deps.reader?.();
    if (!reading || reading.computeProcesses > 0 || (reading.utilPercent ?? 0) > 10) return null;
    return reading.tempC;
  }

  private isDone(record: SweepRecord, position: SchedulePosition): boolean {
    if (record.skipped.some((s) => s.configIndex === position.configIndex && s.repeatIndex === position.repeatIndex)) return true;
    return this.deps.store.runs
      .forSweep(record.id)
      .some(
        (run) =>
          run.configIndex === position.configIndex && run.repeatIndex === position.repeatIndex && run.status !== 'interrupted' && run.status !== 'running',
      );
  }

  /** A `git=` sweep's revisions and the directory whose repository they name (what its before/after diff is of). */
  private revisionsOf(record: SweepRecord): Sweep['git'] {
    if (record.kind !== 'sweep') return null;
    try {
      const request = readSweepRequest(record.id, record.request);
      const revisions = request.vary.find((v) => v.name === GIT_VARIABLE);
      if (!revisions) return null;
      const workload = request.command ? adHocWorkload(request.command) : this.requireWorkload(record.workloadId ?? -1);
      return {
        cwd: this.deps.runner.workingDirectory(workload),
        revisions: revisions.values,
        sides: request.checkout?.sides ?? [],
        links: request.checkout?.links ?? [],
      };
    } catch {
      // Its workload was removed since (or its request cannot be read): the revisions have no directory to be read in.
      return null;
    }
  }

  /** The latest run at this place that was interrupted: what a run started there now replaces. */
  private interruptedAt(id: number, position: SchedulePosition): Run | undefined {
    return this.deps.store.runs
      .forSweep(id)
      .filter((run) => run.configIndex === position.configIndex && run.repeatIndex === position.repeatIndex && run.status === 'interrupted')
      .at(-1);
  }

  private configRanOutOfMemory(id: number, configIndex: number): boolean {
    return this.deps.store.runs.forSweep(id).some((run) => run.configIndex === configIndex && OOM_CLASSES.has(run.exitClass ?? ''));
  }

  private skip(id: number, position: SchedulePosition, reason: SkippedPosition['reason']): void {
    const record = this.requireRecord(id);
    if (record.skipped.some((s) => s.configIndex === position.configIndex && s.repeatIndex === position.repeatIndex)) return;
    this.deps.store.sweeps.setSkipped(id, [...record.skipped, { ...position, reason }]);
  }

  private setStatus(id: number, status: SweepRecord['status'], endedAt: Date | null = null): void {
    this.deps.store.sweeps.setStatus(id, status, endedAt);
  }

  /** A failed run as the progress tells it: its place in the schedule, config and repeat, and why. */
  private failureOf(record: SweepRecord, repeats: number, run: Run | undefined): SweepRunFailure | null {
    if (!run || run.configIndex === null) return null;
    const position = { configIndex: run.configIndex, repeatIndex: run.repeatIndex ?? 0 };
    const finder = record.kind === 'batch-finder';
    return {
      run: finder ? position.configIndex + 1 : schedulePlace(position, record.configs.length),
      of: finder ? null : record.configs.length * repeats,
      configIndex: position.configIndex,
      config: record.configs[position.configIndex]?.name ?? `config ${position.configIndex + 1}`,
      repeat: position.repeatIndex + 1,
      repeats,
      runId: run.id,
      exitClass: run.exitClass,
      // A line of output at most, but bounded all the same: it goes out with every progress event.
      reason: failureReason(run).slice(0, MAX_REASON_CHARS),
    };
  }

  private toSweep(record: SweepRecord): Sweep {
    const runs = this.deps.store.runs.forSweep(record.id);
    const live = this.live.get(record.id);
    const request = record.request as { repeats?: number };
    const repeats = record.kind === 'batch-finder' ? 1 : (request.repeats ?? 1);
    const configs = record.configs.map((config) => {
      const own = runs.filter((run) => run.configIndex === config.index);
      const ok = own.filter((run) => run.exitClass === 'ok');
      const skipped = record.skipped.filter((s) => s.configIndex === config.index);
      const finished = own.filter((run) => run.status !== 'running' && run.status !== 'interrupted');
      const pick = (value: (run: Run) => number | null) => median(ok.map(value).filter((v): v is number => v !== null));
      const status: Sweep['configs'][number]['status'] = own.some((run) => run.status === 'running')
        ? 'running'
        : own.some((run) => OOM_CLASSES.has(run.exitClass ?? ''))
          ? 'oom'
          : skipped.length >= repeats
            ? 'skipped'
            : finished.length + skipped.length >= repeats
              ? ok.length > 0
                ? 'done'
                : 'failed'
              : 'pending';
      const vram = ok.map((run) => run.summary.gpu?.vramPeakMiB ?? null).filter((v): v is number => v !== null);
      return {
        ...config,
        runIds: own.map((run) => run.id),
        status,
        throughputMedian: pick((run) => run.summary.throughput.median),
        throughputUnit: ok.find((run) => run.summary.throughput.unit !== null)?.summary.throughput.unit ?? null,
        stepTimeMsMedian: pick((run) => run.summary.stepTimeMs.median),
        finalLossMedian: pick((run) => run.summary.finalLoss),
        vramPeakMiB: vram.length > 0 ? Math.max(...vram) : null,
        failure: sideFailure(own),
      };
    });
    const total = record.kind === 'batch-finder' ? Math.max(record.configs.length, 1) : record.configs.length * repeats;
    const done = Math.min(
      total,
      record.configs.reduce((n, config) => {
        const finished = runs.filter((run) => run.configIndex === config.index && run.status !== 'running' && run.status !== 'interrupted');
        const repeatsDone = new Set([
          ...finished.map((run) => run.repeatIndex),
          ...record.skipped.filter((s) => s.configIndex === config.index).map((s) => s.repeatIndex),
        ]);
        return n + repeatsDone.size;
      }, 0),
    );
    const durations = runs.map(runSeconds).filter((s): s is number => s !== null);
    const waits = runs.map((run) => run.wait?.seconds ?? 0);
    const perRun = durations.length > 0 ? median(durations)! + (median(waits) ?? 0) : null;
    const running = ['queued', 'running', 'paused'].includes(record.status);
    const failed = runs.filter(isFailedRun);
    return {
      id: record.id,
      name: record.name,
      kind: record.kind,
      createdAt: record.createdAt,
      endedAt: record.endedAt,
      workloadId: record.workloadId,
      workloadName: record.workloadName,
      plan: record.plan,
      repeats,
      status: record.status,
      configs,
      progress: {
        done,
        total,
        currentRunId: live?.currentRunId ?? null,
        current: running ? (live?.current ?? null) : null,
        etaSeconds: running && perRun !== null && record.kind === 'sweep' ? perRun * (total - done) : null,
        waiting: live?.waiting ?? null,
        now: live?.now ? placeNow(live.now, live.currentRunId) : null,
        failed: failed.length,
        lastFailure: this.failureOf(record, repeats, failed.at(-1)),
      },
      request: record.request,
      git: this.revisionsOf(record),
      error: record.error,
      endedNote: record.endedNote,
      result: record.result,
    };
  }
}

/** The place under way as the contract gives it: waiting until its run has started. */
function placeNow(now: NonNullable<LiveSweep['now']>, runId: number | null): SweepPlaceNow {
  return {
    ...now.place,
    phase: now.runStartedAt === null ? 'waiting' : 'running',
    since: now.since.toISOString(),
    runId: now.runStartedAt === null ? null : runId,
    runStartedAt: now.runStartedAt,
  };
}

/** A side in a name: its short commit, or the working tree. */
function shortSide(side: CheckoutPlan['sides'][number]): string {
  return side.value === WORKTREE_VALUE ? 'working tree' : side.commit.slice(0, SHORT_SHA_CHARS);
}

/** A `git=` sweep named after its revisions: `before/after: 3f2a9c1 → working tree`. */
export function gitSweepName(checkout: CheckoutPlan, request: Pick<SweepRequest, 'vary' | 'plan'>): string {
  const others = request.vary.filter((v) => v.name !== GIT_VARIABLE).map((v) => v.name);
  const sides = checkout.sides.map(shortSide);
  if (others.length === 0 && sides.length === 2) return `before/after: ${sides[0]} → ${sides[1]}`;
  return `git ${sides.join(', ')}${others.length > 0 ? ` × ${others.join(', ')} (${request.plan})` : ''}`;
}

/** A config of a `git=` sweep named by its revision's label (short SHA and subject), then its other changes. */
export function gitConfigName(config: SweepConfig, checkout: CheckoutPlan): string {
  const side = checkout.sides.find((s) => s.value === config.values[GIT_VARIABLE]);
  const others = config.changes.filter((change) => !change.startsWith(`${GIT_VARIABLE}=`));
  return [side?.label ?? config.name, ...others].join(' ');
}
