// Turns engine values into display text: byte counts, durations, times, and argv as a shell would show it.
import type { Run } from '../../../electron/shared/api.js';

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits)} ${BYTE_UNITS[unit]}`;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const totalSeconds = Math.floor(seconds);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}h ${pad(m)}m ${pad(s)}s` : `${m}m ${pad(s)}s`;
}

/** A running run's duration grows with `now`; an ended one is fixed. */
export function runDurationMs(run: Pick<Run, 'startedAt' | 'endedAt'>, now: number): number {
  const start = Date.parse(run.startedAt);
  const end = run.endedAt ? Date.parse(run.endedAt) : now;
  // `now` may lag a just-started run by up to a tick; never show a negative duration.
  return Math.max(0, end - start);
}

const timeOnly = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const dateAndTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});
const full = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** Today's runs show only the time, older ones the date too: the list stays narrow. */
export function formatStartTime(iso: string, now = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toDateString() === now.toDateString() ? timeOnly.format(date) : dateAndTime.format(date);
}

export function formatDateTime(iso: string | null): string {
  if (!iso) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : full.format(date);
}

/** Characters a POSIX shell leaves alone outside quotes (braces checked apart, below). */
const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./{}-]+$/u;
/** Bash expands braces only around a comma or `..`; a template's `{batch}` is left alone and reads better bare. */
const BRACE_EXPANSION = /[{}].*(?:,|\.\.)|(?:,|\.\.).*[{}]/u;

export function shellQuote(arg: string): string {
  if (arg === '') return "''";
  if (SHELL_SAFE.test(arg) && !BRACE_EXPANSION.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** For display only: the engine runs argv directly, never through a shell. */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

export function formatEnvAssignments(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .map(([key, value]) => `${key}=${shellQuote(value)}`)
    .join(' ');
}

export function formatNumber(value: number | null, digits = 3): string {
  if (value === null || !Number.isFinite(value)) return '–';
  return Math.abs(value) >= 1000 ? Math.round(value).toLocaleString() : String(Number(value.toPrecision(digits)));
}

/** The message of an ApiFailure (or any error), which is what a person can act on. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
