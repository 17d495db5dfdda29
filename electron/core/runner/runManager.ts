// The registry of live runs: makes a RunSession per start, keeps them by run id, forwards to them, and closes them all.
import fs from 'node:fs';
import type { Run, Workload } from '../../shared/api.js';
import { ApiFailure } from '../../shared/api.js';
import type { EventHub } from '../events.js';
import type { RunStore } from '../store/runStore.js';
import type { MetricStore } from '../store/metricStore.js';
import type { TelemetryStore } from '../store/telemetryStore.js';
import type { RunProcessStore } from '../store/runProcessStore.js';
import type { OutputWriter } from '../ingest/outputWriter.js';
import { expandCwd, expandWorkload, TemplateError, type ExpandedCommand } from './template.js';
import type { RunGpuLease } from './collaborators.js';
import { releaseGpu, type RunContext, type RunnerEnvironment, type StartRequest } from './runContext.js';
import { RunFaults } from './runFaults.js';
import { HeldWrites } from './heldWrites.js';
import { prepareLaunch, type UnfoundProgram } from './runLaunch.js';
import { RunSession } from './runSession.js';

export type { RunnerEnvironment, StartRequest } from './runContext.js';
export { DEFAULT_TERMINAL, STOP_ESCALATION_MS } from './runSession.js';

export class RunManager {
  private readonly sessions = new Map<number, RunSession>();
  private readonly context: RunContext;

  constructor(
    stores: { runs: RunStore; processes: RunProcessStore; metrics: MetricStore; telemetry: TelemetryStore; output: OutputWriter },
    events: EventHub,
    environment: RunnerEnvironment,
  ) {
    const { runs, processes, metrics: metricStore, telemetry, output } = stores;
    const faults = new RunFaults(events);
    const heldWrites = new HeldWrites(
      environment.clock,
      (runId) => events.emit('runs.onDidChange', runs.get(runId)!),
      (runId, error) => faults.report(runId, 'a write held while the database refused it failed', error),
      (write) => runs.withoutWaiting(write),
    );
    this.context = { runs, processes, metricStore, telemetry, output, events, environment, faults, heldWrites };
    output.onMetrics((runId, samples) => this.sessions.get(runId)?.acceptParsedMetrics(samples));
    output.onNotice((runId, message) => this.sessions.get(runId)?.noteParsing(message));
  }

  /** The exact argv, cwd and env a workload would run with these values. */
  /** The directory the workload's command runs in, before its values are settled. */
  workingDirectory(workload: Workload): string {
    return expandCwd(workload, this.context.environment.builtins);
  }

  preview(workload: Workload, values: Record<string, string>): ExpandedCommand {
    try {
      return expandWorkload(workload, values, this.context.environment.builtins);
    } catch (error) {
      if (error instanceof TemplateError) throw new ApiFailure('invalid_input', error.message);
      throw error;
    }
  }

  start(request: StartRequest): Run {
    // Made when a run needs it, not at the engine's start: a database open for reading only gets no folder beside it.
    fs.mkdirSync(this.context.environment.channelDir, { recursive: true });
    const base: ExpandedCommand = request.workload
      ? this.preview(request.workload, request.values)
      : { command: request.adHoc!.command, cwd: request.adHoc!.cwd, env: request.adHoc!.env ?? {}, config: {} };
    const launch = prepareLaunch(this.context, request, base);
    if (!('file' in launch)) return this.endUnfound(launch, request.gpuLease ?? null);
    const id = launch.record.id;
    const session = new RunSession(this.context, launch, request, () => this.sessions.delete(id));
    // Registered before it starts: whoever hears of the run (its first telemetry status included) finds it live.
    this.sessions.set(id, session);
    return session.start();
  }

  isActive(id: number): boolean {
    return this.sessions.has(id);
  }

  activeRunIds(): number[] {
    return [...this.sessions.keys()];
  }

  /** Ended runs whose ending a full disk or a long lock has kept out of the file so far (it waits in memory). */
  unstoredEndings(): number[] {
    return this.context.heldWrites.unstoredRuns();
  }

  /** Tries the held writes once now; returns the runs still unstored. */
  retryHeldWrites(): number[] {
    return this.context.heldWrites.tryNow();
  }

  /** Resolves with the final record once the run has ended and everything it wrote is stored. */
  async waitForExit(id: number): Promise<Run> {
    const session = this.sessions.get(id);
    if (session) return session.finished;
    const run = this.context.runs.get(id);
    if (!run) throw new ApiFailure('not_found', `no run ${id}`);
    return run;
  }

  write(id: number, data: string): void {
    this.requireSession(id).write(data);
  }

  resize(id: number, cols: number, rows: number): void {
    this.requireSession(id).resize(cols, rows);
  }

  /** SIGINT to the whole process group (as Ctrl-C would), then SIGTERM, then SIGKILL. */
  stop(id: number, options: { reason?: string } = {}): void {
    this.requireSession(id).stop(options.reason === undefined ? { kind: 'user' } : { kind: 'signal', reason: options.reason });
  }

  /** Kills every live run at once (the app is closing) and waits for their records to be complete. */
  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => session.close()));
    await this.context.faults.settled();
    const unstored = this.context.heldWrites.close();
    if (unstored.length > 0) {
      console.error(
        `tuning-bench: the end of run ${unstored.join(', ')} could not be written (the database is full or held by another process); ` +
          'it is lost with this process, and the run will be marked interrupted',
      );
    }
  }

  /** A run whose program does not exist ends as it starts: recorded `not_found`, its GPU settings put back. */
  private endUnfound({ record, program, cwd }: UnfoundProgram, gpuLease: RunGpuLease | null): Run {
    const { runs, environment, events, faults } = this.context;
    const ended = runs.recordEnding(record.id, {
      status: 'failed',
      exitCode: null,
      signal: null,
      exitClass: 'not_found',
      exitReason: program.includes('/')
        ? `no such file: ${program} (in ${cwd}); check the path, or give it from ${cwd}`
        : `command not found: ${program} (looked in PATH); check the spelling or give a full path`,
      endedAt: environment.clock.now(),
    });
    if (gpuLease) faults.track(record.id, releaseGpu(this.context, record.id, gpuLease));
    events.emit('runs.onDidChange', ended);
    return ended;
  }

  private requireSession(id: number): RunSession {
    const session = this.sessions.get(id);
    if (!session) {
      const runs = this.context.runs;
      throw new ApiFailure(runs.get(id) ? 'conflict' : 'not_found', runs.get(id) ? `run ${id} is not running` : `no run ${id}`);
    }
    return session;
  }
}
