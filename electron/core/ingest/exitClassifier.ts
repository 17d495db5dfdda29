// Decides why a run ended (exitClass in the CLI contract) from its exit and the last lines it printed.
import { signalName } from '../system/signals.js';
import type { ExitClass, RunStatus } from '../../shared/api.js';
import { stripAnsi } from '../../shared/ansi.js';
import { stripLinePrefix } from '../metrics/parsers/detect.js';

/** Why the engine stopped a run, when it did: one cause, kept from the moment the stop began. */
export type StopCause =
  /** A person, in the app or the CLI's Ctrl-C. */
  | { kind: 'user' }
  /** Asked with a reason by a face that was itself told to stop (the CLI's terminal closed, SIGTERM). */
  | { kind: 'signal'; reason: string }
  /** The run's own step limit: how such a run is meant to end. */
  | { kind: 'step-limit'; step: number; minStepSeconds?: number | null }
  | { kind: 'time-limit' }
  /** The engine itself was closing (the app quit, the server stopped). */
  | { kind: 'app-closing' };

export interface ExitFacts {
  exitCode: number | null;
  signal: string | null;
  /** Null: the run ended on its own. */
  stopCause: StopCause | null;
  /** The end of the run's output (a few tens of kilobytes is plenty). */
  outputTail: string;
}

export interface ExitVerdict {
  status: Exclude<RunStatus, 'running' | 'interrupted'>;
  exitClass: ExitClass;
  /** The line that decided it, or the engine's own explanation. */
  reason: string | null;
}

interface TextRule {
  exitClass: ExitClass;
  pattern: RegExp;
}

// Order matters: an out-of-memory traceback also says "CUDA", and must win over the generic CUDA rule.
// Rules read each line after its logger's or launcher's prefix (a stamp, a rank, a syslog head: see linePrefix.ts).
const TEXT_RULES: readonly TextRule[] = [
  { exitClass: 'cuda_oom', pattern: /CUDA out of memory|OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED|cudaErrorMemoryAllocation|out of memory on device/iu },
  // The kernel's OOM killer, as dmesg, the journal or a container runtime relays it.
  { exitClass: 'host_oom', pattern: /\bOut of memory: Kill(?:ed)? process \d+|\binvoked oom-killer\b|^oom-kill:|\boom_reaper: reaped process \d+/iu },
  {
    exitClass: 'cuda_error',
    pattern: /CUDA error|cudaError\w*|CUBLAS_STATUS_\w+|CUDNN_STATUS_\w+|NCCL error|device-side assert|illegal memory access/iu,
  },
  // A shell's report of a job it lost to a signal from outside (the OOM killer's SIGKILL, a scheduler's SIGTERM):
  // `/bin/bash: line 27: 318 Killed sh start.sh`, a bare `Killed` / `Terminated` line, zsh's `zsh: killed  python ...`.
  {
    exitClass: 'killed',
    pattern: /^(?:\S+: line \d+: +)?\d+ (?:Killed|Terminated)\b|^(?:Killed|Terminated)(?::\s*\d+)?\s*$|^(?:zsh|bash|sh): (?:killed|terminated)\s/u,
  },
  // The loss itself printed as NaN/Inf; a "grad norm: nan" alone is a skipped step, not a failed run.
  { exitClass: 'nan_loss', pattern: /\bloss\b[^\n,|]{0,24}?[:=\s]\s*[-+]?(?:nan|inf(?:inity)?)\b/iu },
];

/** Classes the text proves even when the command exited 0. */
const EXIT_ZERO_FAILURES: ReadonlySet<ExitClass> = new Set(['nan_loss', 'killed', 'host_oom']);

const GRAD_NORM = /\bgrad(?:ient)?[ _]norm\b[^\n,|]{0,8}?[:=\s]\s*([-+]?(?:nan|inf(?:inity)?|[\d.]+(?:e[-+]?\d+)?))/iu;
/**
 * One NaN gradient norm is a step that fp16 loss scaling skips, and training goes on; NaN on this
 * many readings in a row, the latest included, means the numbers themselves have gone bad.
 */
const NAN_GRAD_NORM_RUN = 3;

/** Finds the last line of `text` that matches a failure rule; used for live runs and imported logs alike. */
export function findFailureLine(text: string): { exitClass: ExitClass; line: string } | null {
  const lines = stripAnsi(text)
    .split(/\r\n|\r|\n/u)
    .map(stripLinePrefix);
  for (const rule of TEXT_RULES) {
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!;
      if (rule.pattern.test(line)) return { exitClass: rule.exitClass, line: line.trim() };
    }
  }
  return findNanGradNorm(lines);
}

function findNanGradNorm(lines: readonly string[]): { exitClass: ExitClass; line: string } | null {
  let run = 0;
  let latest: string | null = null;
  for (let i = lines.length - 1; i >= 0 && run < NAN_GRAD_NORM_RUN; i--) {
    const reading = GRAD_NORM.exec(lines[i]!);
    if (!reading) continue;
    if (Number.isFinite(Number(reading[1]))) return null;
    latest ??= lines[i]!.trim();
    run++;
  }
  return run >= NAN_GRAD_NORM_RUN && latest ? { exitClass: 'nan_loss', line: latest } : null;
}

export function classifyExit(facts: ExitFacts): ExitVerdict {
  const stopped = facts.stopCause === null ? null : stoppedVerdict(facts.stopCause);
  if (stopped) return stopped;
  const failure = facts.exitCode === 0 && facts.signal === null ? null : findFailureLine(facts.outputTail);
  if (failure) return { status: 'failed', exitClass: failure.exitClass, reason: failure.line };
  if (facts.signal === 'SIGKILL') {
    return {
      status: 'failed',
      exitClass: 'host_oom',
      reason: 'killed by SIGKILL from outside Tuning Bench: most likely the kernel out-of-memory killer (check `dmesg`)',
    };
  }
  if (facts.signal !== null) return { status: 'failed', exitClass: 'error', reason: `ended by ${facts.signal}` };
  if (facts.exitCode !== 0) {
    return { status: 'failed', exitClass: 'error', reason: exitCodeReason(facts.exitCode, facts.outputTail) };
  }
  // Exit 0 and yet failed: the loss went NaN, or a wrapper script went on after its job was killed.
  // (A CUDA OOM at exit 0 is one the script recovered from, as batch-size finders do.)
  const text = findFailureLine(facts.outputTail);
  if (text !== null && EXIT_ZERO_FAILURES.has(text.exitClass)) return { status: 'failed', exitClass: text.exitClass, reason: text.line };
  return { status: 'succeeded', exitClass: 'ok', reason: null };
}

/** Shells exit with 128 + n when their child was ended by signal n, so such codes get a hint beside the last line. */
const SHELL_SIGNAL_BASE = 128;

function exitCodeReason(exitCode: number | null, outputTail: string): string | null {
  const lastLine = lastNonEmptyLine(outputTail);
  const signal = exitCode !== null && exitCode > SHELL_SIGNAL_BASE ? signalName(exitCode - SHELL_SIGNAL_BASE) : undefined;
  if (signal === undefined) return lastLine;
  const hint =
    `exited with status ${exitCode}, the code a shell gives when its child was ended by ${signal}` +
    (signal === 'SIGKILL' ? '; perhaps the out-of-memory killer (check `dmesg`)' : '');
  return lastLine ? `${lastLine} — ${hint}` : hint;
}

function lastNonEmptyLine(text: string): string | null {
  const lines = stripAnsi(text).split(/\r\n|\r|\n/u);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line) return line;
  }
  return null;
}

function stoppedVerdict(cause: StopCause): ExitVerdict {
  switch (cause.kind) {
    case 'step-limit':
      // Stopping at the planned step is how such a run is meant to end: good data, not a failure.
      return {
        status: 'stopped',
        exitClass: 'ok',
        reason:
          cause.minStepSeconds == null
            ? `stopped at step ${cause.step}, the run's step limit`
            : `stopped at step ${cause.step}, the run's step limit (its steps were fast: it went on past the count until they spanned ${cause.minStepSeconds} s)`,
      };
    case 'time-limit':
      return { status: 'timed_out', exitClass: 'timeout', reason: 'stopped by Tuning Bench at the time limit' };
    case 'user':
      return { status: 'stopped', exitClass: 'killed', reason: 'stopped by the user' };
    case 'signal':
      return { status: 'stopped', exitClass: 'killed', reason: cause.reason };
    case 'app-closing':
      return { status: 'stopped', exitClass: 'killed', reason: 'stopped because Tuning Bench was closing' };
  }
}
