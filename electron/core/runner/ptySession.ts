// One pseudo-terminal running one command: the sole owner of that child and its process group.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import * as pty from 'node-pty';
import { signalName } from '../system/signals.js';
import { addWaitingInputReader } from '../system/waitingInput.js';
import { ExitMarkerScanner, exitMarkerPrefix, type ProgramEnding } from './exitMarker.js';

export interface PtySessionOptions {
  /** Absolute path of the executable (resolved beforehand, so "not found" never reaches here). */
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** The Node that runs the launcher (see LAUNCHER_SCRIPT). */
  launcher: LauncherRuntime;
}

export interface PtyExit {
  exitCode: number | null;
  signal: string | null;
}

/** Carries what the launcher must undo before it starts the program (see LAUNCHER_SCRIPT). */
const HANDOFF_VARIABLE = 'TUNING_BENCH_WRAPPER_HANDOFF';
/** At most this much is read between two pieces of long work: the merge's chunk size (runOutput.ts) of a flood. */
const WAITING_READ_MAX_BYTES = 256 * 1024;

/**
 * The pty's first process: a small Node program that runs the training and stays until the engine
 * has read everything it wrote. It is Node, not a shell, because a shell's `$?` is 137 both for a
 * program killed by SIGKILL and for one that called `exit(137)`; Node's child process reports a
 * code or a signal, never both, so a run's ending is recorded as it was.
 * - `stty -onlcr`: the line discipline would turn every "\n" into "\r\n"; switching that off keeps
 *   the stored bytes exactly what the program wrote (the terminal view converts line ends itself).
 * - On Linux, once the last process holding the pty's far end exits, reads of our end fail with
 *   EIO and output still buffered in the kernel is lost (node-pty issues 72 and 85): several KiB
 *   at the end of a fast writer, often the very line that says why it failed. So the launcher
 *   waits for the program, prints a marker with how it ended (after all of the program's output,
 *   in order), and waits in turn until the engine, having seen the marker, ends it.
 * - INT, TERM and QUIT get handlers, not ignores: the program still gets Ctrl-C and the group's
 *   signals with their default actions (handlers do not survive exec), while the launcher lives on
 *   to report how the program ended.
 * - The launcher's own variables (ELECTRON_RUN_AS_NODE, a NODE_OPTIONS kept from it) travel in
 *   one variable and are undone before the program starts, so the program sees its own environment.
 * Written as CommonJS for `node -e`; plain ES2020 so any Node or Electron that runs the app runs it.
 */
const LAUNCHER_SCRIPT = `
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const [nonce, file, ...args] = process.argv.slice(1);
const handoff = JSON.parse(process.env.${HANDOFF_VARIABLE} || '{}');
const env = { ...process.env };
delete env.${HANDOFF_VARIABLE};
for (const key of handoff.remove || []) delete env[key];
Object.assign(env, handoff.restore || {});
spawnSync('stty', ['-onlcr'], { stdio: ['inherit', 'ignore', 'ignore'] });
for (const name of ['SIGINT', 'SIGTERM', 'SIGQUIT']) process.on(name, () => {});
let reported = false;
function report(status) {
  if (reported) return;
  reported = true;
  fs.writeSync(1, '\\x1b]7770;tb-exit;' + nonce + ';' + status + '\\x07');
  setTimeout(() => process.exit(0), 60000);
}
const child = spawn(file, args, { stdio: 'inherit', env });
child.on('error', (error) => {
  fs.writeSync(2, 'tuning-bench: cannot run ' + file + ': ' + error.message + '\\n');
  report(error.code === 'ENOENT' ? 127 : 126);
});
child.on('exit', (code, signal) => report(signal ? 's' + (os.constants.signals[signal] || 0) : code));
`;

/** Variables that change how Node itself starts: kept from the launcher, given back to the program. */
const NODE_STARTUP_VARIABLES = ['NODE_OPTIONS'] as const;

export interface LauncherRuntime {
  /** A Node binary: Node itself, or Electron with `env` ELECTRON_RUN_AS_NODE=1. */
  node: string;
  env: Record<string, string>;
}

/** The launcher's environment: the program's, minus what would change how Node starts, plus the runtime's own. */
export function launcherEnvironment(programEnv: Record<string, string>, runtime: LauncherRuntime): Record<string, string> {
  const env: Record<string, string> = { ...programEnv };
  const restore: Record<string, string> = {};
  for (const key of NODE_STARTUP_VARIABLES) {
    if (key in env) restore[key] = env[key]!;
    delete env[key];
  }
  const remove: string[] = [];
  for (const [key, value] of Object.entries(runtime.env)) {
    if (key in programEnv) restore[key] = programEnv[key]!;
    else remove.push(key);
    env[key] = value;
  }
  env[HANDOFF_VARIABLE] = JSON.stringify({ remove, restore });
  return env;
}

/** The terminal a run needs could not be opened: the reason, with this process's limits named. */
export class TerminalUnavailableError extends Error {
  override name = 'TerminalUnavailableError';
}

/** This process's soft limit from /proc/self/limits (`Max open files`, `Max processes`), or null where unreadable. */
function softLimit(limits: string, label: string): string | null {
  const line = limits.split('\n').find((text) => text.startsWith(label));
  return line ? (line.slice(label.length).trim().split(/\s+/u)[0] ?? null) : null;
}

/** node-pty's bare `forkpty(3) failed.` as what ran out and what to do about it. */
function describeTerminalFailure(error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  let limits = '';
  let openFiles: number | null = null;
  try {
    limits = fs.readFileSync('/proc/self/limits', 'utf8');
    // Less the descriptor this listing itself holds open.
    openFiles = fs.readdirSync('/proc/self/fd').length - 1;
  } catch {
    // Not Linux's /proc: the limits go unnamed.
  }
  const fileLimit = softLimit(limits, 'Max open files');
  const processLimit = softLimit(limits, 'Max processes');
  const inUse =
    fileLimit === null
      ? ''
      : `: Tuning Bench has ${openFiles ?? 'an unknown number'} of its ${fileLimit} open files in use (ulimit -n)` +
        (processLimit === null ? '' : ` and may run ${processLimit} processes (ulimit -u)`);
  return (
    `could not open a terminal for the run (${detail.replace(/\.$/u, '')})${inUse}. ` +
    'Close runs or programs you no longer need, or raise the limit (e.g. `ulimit -n 65536` before starting Tuning Bench), then start it again.'
  );
}

export class PtySession {
  readonly pid: number;
  private readonly terminal: pty.IPty;
  private readonly scanner: ExitMarkerScanner;
  private exited = false;
  private reported = false;
  private readonly dataListeners: Array<(data: Buffer) => void> = [];
  private readonly exitListeners: Array<(exit: PtyExit) => void> = [];
  private readonly stopReadingWaiting: () => void;
  /** One buffer for reads between long work's pieces: a terminal holds a few KB at a time. */
  private readonly waitingBuffer = Buffer.alloc(64 * 1024);

  constructor(options: PtySessionOptions) {
    const nonce = crypto.randomBytes(8).toString('hex');
    this.scanner = new ExitMarkerScanner(exitMarkerPrefix(nonce));
    try {
      this.terminal = pty.spawn(options.launcher.node, ['-e', LAUNCHER_SCRIPT, nonce, options.file, ...options.args], {
        name: 'xterm-256color',
        cols: options.cols,
        rows: options.rows,
        cwd: options.cwd,
        env: launcherEnvironment(options.env, options.launcher),
        // Bytes, not strings: invalid UTF-8 and binary output are kept exactly as written.
        encoding: null,
      });
    } catch (error) {
      // forkpty fails when the process is out of descriptors or processes: said with the limit, not as an internal fault.
      throw new TerminalUnavailableError(describeTerminalFailure(error), { cause: error });
    }
    // node-pty makes the child a session leader, so its pid is also its process group id.
    this.pid = this.terminal.pid;
    // With `encoding: null` node-pty hands over Buffers, though its types still say string.
    this.terminal.onData((data) => this.receive(data as unknown as Buffer));
    this.stopReadingWaiting = addWaitingInputReader(() => this.readWaiting());
    this.terminal.onExit(({ exitCode, signal }) => {
      // No marker: the shell itself was killed (SIGKILL from a stop, the OOM killer) or the pty broke.
      const rest = this.scanner.flush();
      if (rest.length > 0) for (const listener of this.dataListeners) listener(rest);
      const name = signal ? (signalName(signal) ?? `signal ${signal}`) : null;
      this.report({ exitCode: name ? null : exitCode, signal: name });
    });
  }

  onData(listener: (data: Buffer) => void): void {
    this.dataListeners.push(listener);
  }

  /** Fires once: when the program's marker arrives (all its output delivered), or when the pty ends without one. */
  onExit(listener: (exit: PtyExit) => void): void {
    this.exitListeners.push(listener);
  }

  /**
   * Reads what the terminal holds now, without waiting for the event loop, and hands it on as node-pty's data event
   * would (long work calls this between its pieces: system/waitingInput.ts). Only while node-pty's own stream holds
   * nothing unread and is flowing, so bytes are never handed on out of order; a read that would block, or the
   * terminal's end (EIO), is left to node-pty's stream. False once the run has ended.
   */
  private readWaiting(): boolean {
    if (this.exited) return false;
    const stream = (this.terminal as unknown as { _socket?: Readable })._socket;
    const fd = (this.terminal as unknown as { _fd?: number })._fd;
    if (!stream || typeof fd !== 'number' || stream.readableLength > 0 || stream.isPaused() || stream.destroyed) return true;
    for (let read = 0; read < WAITING_READ_MAX_BYTES && !this.exited;) {
      let bytes: number;
      try {
        bytes = fs.readSync(fd, this.waitingBuffer, 0, this.waitingBuffer.length, null);
      } catch {
        return true;
      }
      if (bytes <= 0) return true;
      read += bytes;
      this.receive(Buffer.from(this.waitingBuffer.subarray(0, bytes)));
    }
    return !this.exited;
  }

  private receive(chunk: Buffer): void {
    const scan = this.scanner.push(chunk);
    if (scan.output.length > 0) for (const listener of this.dataListeners) listener(scan.output);
    if (scan.ending !== null) this.report(endingToExit(scan.ending));
  }

  private report(exit: PtyExit): void {
    if (this.reported) return;
    this.reported = true;
    this.exited = true;
    for (const listener of this.exitListeners) listener(exit);
  }

  get hasExited(): boolean {
    return this.exited;
  }

  write(data: string): void {
    if (!this.exited) this.terminal.write(data);
  }

  resize(cols: number, rows: number): void {
    if (!this.exited) this.terminal.resize(cols, rows);
  }

  /** Signals the whole process group, so DataLoader-style children get it too. */
  signalGroup(signal: NodeJS.Signals): boolean {
    try {
      process.kill(-this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** Ends the group (the waiting shell, anything the program left behind) and stops listening. */
  close(): void {
    this.stopReadingWaiting();
    this.signalGroup('SIGKILL');
    this.dataListeners.length = 0;
    this.exitListeners.length = 0;
  }
}

function endingToExit(ending: ProgramEnding): PtyExit {
  if ('exitCode' in ending) return { exitCode: ending.exitCode, signal: null };
  return { exitCode: null, signal: signalName(ending.signalNumber) ?? `signal ${ending.signalNumber}` };
}
