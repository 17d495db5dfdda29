// The same run again (or profiled): same workload or command, values and work per step, in the same place.
import fs from 'node:fs';
import path from 'node:path';
import { ApiFailure, type Run, type Workload } from '../../shared/api.js';
import { knobOfVariable } from '../../shared/knobs.js';
import { adHocWorkload } from '../../shared/typedCommand.js';
import type { EventHub } from '../events.js';
import { checkoutAgain, GitWorktreeError } from '../experiments/gitWorktrees.js';
import { IMPORTED_COMMAND } from '../ingest/importLog.js';
import type { RunManager } from '../runner/runManager.js';
import type { Store } from '../store/store.js';
import { refuseImported, requireRun } from './lookups.js';
import type { StartRun } from './startRun.js';

export interface RerunsOptions {
  store: Store;
  runner: RunManager;
  events: EventHub;
  startRun: StartRun;
  /** Where a before/after side's worktree is made again when its own is gone. */
  worktreeDir: string;
  gitEnv: Record<string, string>;
}

/** Owns the worktrees made again for re-runs of before/after sides: each removed as its run ends; close() waits for them. */
export class Reruns {
  private readonly cleanups = new Set<Promise<void>>();

  constructor(private readonly options: RerunsOptions) {}

  /** A window profiled when `profile` is given; the run is annotated as a re-run (or profiling re-run) of `id`. */
  async start(id: number, profile: { warmupSteps: number; steps: number } | null): Promise<Run> {
    const { store, runner, events } = this.options;
    const source = requireRun(store, id);
    refuseImported(store, id, `its command belongs to the machine it ran on, so ${profile ? 'profile' : 'run'} it there`);
    if (source.command[0] === IMPORTED_COMMAND) throw new ApiFailure('invalid_input', `run ${id} is an imported log: there is no command to run again`);
    if (runner.isActive(id)) {
      throw new ApiFailure('conflict', `run ${id} is still running; ${profile ? 'profile' : 'run'} it again when it ends (two runs at once would skew both)`);
    }
    const place = await this.place(source);
    const { start, extraConfig } = this.sameStart(source, place.cwd);
    const side = source.checkout ? { cwdOverride: place.cwd } : {};
    const unitsPerStep = source.unitsPerStep ?? undefined;
    let run: Run;
    try {
      run = await this.options.startRun({
        ...start,
        ...side,
        ...(Object.keys(extraConfig).length > 0 ? { extraConfig } : {}),
        ...(unitsPerStep ? { unitsPerStep } : {}),
        ...(profile ? { profile, profileOf: id } : {}),
        checkout: place.checkout,
      });
    } catch (error) {
      await place.remove?.();
      throw error;
    }
    if (place.remove) {
      const remove = place.remove;
      const cleanup = runner
        .waitForExit(run.id)
        .then(() => remove())
        .catch(() => undefined)
        .finally(() => this.cleanups.delete(cleanup));
      this.cleanups.add(cleanup);
    }
    // Said on the run itself, so the runs list and a comparison show what this extra run is.
    store.runs.annotate(run.id, profile ? { notes: `profiling re-run of run #${id}`, tags: ['profile'] } : { notes: `re-run of run #${id}`, tags: ['rerun'] });
    const annotated = requireRun(store, run.id);
    events.emit('runs.onDidChange', annotated);
    return annotated;
  }

  async close(): Promise<void> {
    await Promise.all([...this.cleanups]);
  }

  /**
   * The workload (when its template still gives the run's command), the typed command, or the command as it ran;
   * the values the command is not made from stay in the run's config, and a side keeps its `git=REV`.
   */
  private sameStart(source: Run, cwd: string) {
    const { store, runner } = this.options;
    const workload = source.workloadId !== null ? store.workloads.get(source.workloadId) : undefined;
    // A side's config holds `git=REV`, and a run with knobs `knob.NAME`, which are not command values: the command is
    // compared without them (the knobs go on to the re-run through its config).
    const { git: _revision, ...withKnobs } = source.config;
    const commandValues = Object.fromEntries(Object.entries(withKnobs).filter(([name]) => knobOfVariable(name) === null));
    const knobValues = Object.fromEntries(Object.entries(withKnobs).filter(([name]) => knobOfVariable(name) !== null));
    // The run's values split into its workload's variables and the rest: a typed run later given a workload to hold
    // a regex ("Save regex and parse again") keeps its typed values, which that workload has no variables for.
    const names = new Set(workload?.variables.map((variable) => variable.name) ?? []);
    const values = Object.fromEntries(Object.entries(commandValues).filter(([name]) => names.has(name)));
    const makesSameCommand = (from: Workload, filledWith: Record<string, string>): boolean => {
      try {
        return JSON.stringify(runner.preview(from, filledWith).command) === JSON.stringify(source.command);
      } catch {
        return false;
      }
    };
    // A typed run is run again as typed (its {variables} filled with the same values), so it keeps them too; one
    // stored before they were kept (or whose template no longer gives its command) runs its command as it ran.
    const typed = source.typedCommand;
    const typedWorkload = typed ? adHocWorkload(typed) : null;
    const start =
      workload && makesSameCommand(workload, values)
        ? { workload, values }
        : typed && typedWorkload && makesSameCommand(typedWorkload, typed.values)
          ? { workload: typedWorkload, values: typed.values }
          : { workload: null, values: {}, adHoc: { command: source.command, cwd, env: source.env } };
    const madeFrom = new Set(Object.keys(start.values));
    const unused = Object.fromEntries(Object.entries(commandValues).filter(([name]) => !madeFrom.has(name)));
    const extraConfig = { ...unused, ...knobValues, ...(source.checkout ? { git: source.checkout.revision } : {}) };
    return { start, extraConfig };
  }

  /**
   * Where a re-run of `source` runs: its own directory, or, for a before/after side whose temporary worktree is gone,
   * the same revision (and snapshot, and links) checked out again, removed when the re-run ends.
   */
  private async place(source: Run): Promise<{ cwd: string; checkout: Run['checkout']; remove: (() => Promise<void>) | null }> {
    if (!source.checkout) return { cwd: source.cwd, checkout: null, remove: null };
    fs.mkdirSync(this.options.worktreeDir, { recursive: true });
    const folder = fs.mkdtempSync(path.join(this.options.worktreeDir, `rerun-${source.id}-`));
    try {
      const again = await checkoutAgain(source.checkout, folder, this.options.gitEnv);
      return { cwd: again.cwd, checkout: again.checkout, remove: again.remove };
    } catch (error) {
      if (error instanceof GitWorktreeError) throw new ApiFailure('conflict', `run ${source.id} cannot be run again: ${error.message}`);
      throw error;
    }
  }
}
