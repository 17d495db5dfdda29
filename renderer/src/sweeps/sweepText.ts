// A sweep in words and numbers: which statuses are live, speedups against the baseline, the window title, the end notice.
import type { Sweep } from '../../../electron/shared/api.js';
import { formatDuration } from '../shared/format.js';

export type SweepStatus = Sweep['status'];
export type SweepConfigState = Sweep['configs'][number];

/** Still to finish: the engine holds these in its queue. */
export const ACTIVE_STATUSES: ReadonlySet<SweepStatus> = new Set(['queued', 'running', 'paused']);
/** How a sweep ends on its own or by cancel ('interrupted' is the engine dying, and can be resumed). */
export const ENDED_STATUSES: ReadonlySet<SweepStatus> = new Set(['succeeded', 'failed', 'cancelled']);

export const APP_TITLE = 'Tuning Bench';

export function isActive(sweep: Pick<Sweep, 'status'>): boolean {
  return ACTIVE_STATUSES.has(sweep.status);
}

/** A speedup as the sweep matrix shows it: `1.31×`, or a dash where there is none. */
export function formatSpeedup(value: number | null): string {
  return value === null ? '–' : `${value.toFixed(2)}×`;
}

export function formatEta(seconds: number | null): string | null {
  return seconds === null ? null : formatDuration(seconds * 1000);
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
