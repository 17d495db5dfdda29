// A sweep in words and numbers: which statuses are live, speedups against the baseline, its progress, the window title, the end notice.
import type { Sweep, SweepPlaceNow, SweepRunFailure } from '../../../electron/shared/api.js';
import { formatDuration } from '../shared/format.js';
import { ACTIVE_STATUSES } from '../shared/sweepStatus.js';

export type SweepStatus = Sweep['status'];
export type SweepConfigState = Sweep['configs'][number];

export const APP_TITLE = 'Tuning Bench';

export function isActive(sweep: Pick<Sweep, 'status'>): boolean {
  return ACTIVE_STATUSES.has(sweep.status);
}

/** A speedup as the sweep matrix shows it: `1.31×`, or a dash where there is none. */
export function formatSpeedup(value: number | null): string {
  return value === null ? '–' : `${value.toFixed(2)}×`;
}

/** Time left in whole seconds at least ("about 1 s left", never "about 455 ms left": it is an estimate). */
export function formatEta(seconds: number | null): string | null {
  return seconds === null ? null : formatElapsed(Math.ceil(Math.max(1, seconds)) * 1000);
}

/** The sweep the window title follows: the one running, else a paused one, else a queued one. */
export function titleSweep(sweeps: readonly Sweep[]): Sweep | null {
  for (const status of ['running', 'paused', 'queued'] as const) {
    const found = sweeps.find((sweep) => sweep.status === status);
    if (found) return found;
  }
  return null;
}

/** "▶ 3/10 · synthetic ladder — Tuning Bench" while a sweep runs; the plain name otherwise. */
export function windowTitle(sweep: Sweep | null): string {
  if (!sweep) return APP_TITLE;
  const mark = sweep.status === 'paused' ? '⏸' : '▶';
  return `${mark} ${sweep.progress.done}/${sweep.progress.total} · ${sweep.name} — ${APP_TITLE}`;
}

const END_MARKS: Partial<Record<SweepStatus, string>> = { succeeded: '✓', failed: '✗', cancelled: '■' };

/** "Sweep 3 finished: succeeded" (the toast), and the tab's flashing title. */
export function endNotice(sweep: Pick<Sweep, 'id' | 'status' | 'kind'>): { text: string; title: string } {
  const what = sweep.kind === 'batch-finder' ? 'Batch finder' : 'Sweep';
  return {
    text: `${what} ${sweep.id} finished: ${sweep.status}`,
    title: `${END_MARKS[sweep.status] ?? '•'} ${what} ${sweep.id} ${sweep.status} — ${APP_TITLE}`,
  };
}

/** The plan in a word or two, as the list and the view show it. */
export function planLabel(sweep: Pick<Sweep, 'kind' | 'plan'>): string {
  if (sweep.kind === 'batch-finder') return 'batch finder';
  return sweep.plan === 'one-at-a-time' ? 'one at a time' : sweep.plan;
}

type SweepPlace = Pick<SweepPlaceNow, 'run' | 'of' | 'config' | 'repeat' | 'repeats'>;

/** Where a place sits: "run 3 of 8", or a batch finder's "probe 3" (it does not know how many it takes). */
function placeNumber(place: SweepPlace): string {
  return place.of === null ? `probe ${place.run}` : `run ${place.run} of ${place.of}`;
}

/** What a place runs: "batch=32, repeat 2/3" (no repeat when there is one). */
function placeWhat(place: SweepPlace): string {
  return place.repeats > 1 ? `${place.config}, repeat ${place.repeat}/${place.repeats}` : place.config;
}

/** "run 3 of 8, batch=32, repeat 2/3". */
export function placeText(place: SweepPlace): string {
  return `${placeNumber(place)}, ${placeWhat(place)}`;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Seconds as a person reads an elapsed time that ticks: whole seconds, then minutes and seconds. */
export function formatElapsed(ms: number): string {
  const clamped = Math.max(0, ms);
  return clamped < 60_000 ? `${Math.floor(clamped / 1000)} s` : formatDuration(clamped);
}

/**
 * What the sweep does now, from the engine's state: the place under way with how long it has waited or run (from the
 * engine's own start times, so a page opened late counts from the real start), or why nothing runs. Null once ended.
 */
export function nowLine(sweep: Pick<Sweep, 'status' | 'progress'>, nowMs: number): string | null {
  const { now, waiting } = sweep.progress;
  if (sweep.status === 'paused') return 'Paused: Resume goes on with the next run.';
  if (sweep.status === 'queued') return 'Queued: it starts when the sweep before it ends.';
  if (sweep.status !== 'running') return null;
  if (!now) return 'Between runs…';
  const where = capitalized(placeText(now));
  if (now.phase === 'waiting') {
    return `${where}: waiting ${formatElapsed(nowMs - Date.parse(now.since))} for a quiet machine${waiting ? ` (${waiting})` : ''}`;
  }
  return `${where}: running for ${formatElapsed(nowMs - Date.parse(now.runStartedAt ?? now.since))}`;
}

/** The latest failed run, where it sits and why: "Run 2 of 8 failed (batch=16, repeat 1/3): cuda_oom: …". Null while none failed. */
export function failureLine(sweep: Pick<Sweep, 'progress'>): string | null {
  const { failed, lastFailure } = sweep.progress;
  if (failed === 0 || !lastFailure) return null;
  const why = failureWhy(lastFailure);
  if (failed === 1) return `${capitalized(placeNumber(lastFailure))} failed (${placeWhat(lastFailure)}): ${why}`;
  return `${failed} runs failed; the latest, ${placeNumber(lastFailure)} (${placeWhat(lastFailure)}): ${why}`;
}

function failureWhy(failure: SweepRunFailure): string {
  return failure.exitClass && !failure.reason.startsWith(failure.exitClass) ? `${failure.exitClass}: ${failure.reason}` : failure.reason;
}
