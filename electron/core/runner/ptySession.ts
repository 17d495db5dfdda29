// One pseudo-terminal running one command: the sole owner of that child and its process group.
import crypto from 'node:crypto';
import os from 'node:os';
import * as pty from 'node-pty';
import { ExitMarkerScanner, exitMarkerPrefix } from './exitMarker.js';

export interface PtySessionOptions {
  /** Absolute path of the executable (resolved beforehand, so "not found" never reaches here). */
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

export interface PtyExit {
  exitCode: number | null;
  signal: string | null;
}

/**
 * The pty's first process: a small shell that runs the program and stays until the engine has read
 * everything the program wrote.
 * - `stty -onlcr`: the line discipline would turn every "\n" into "\r\n"; switching that off keeps
 *   the stored bytes exactly what the program wrote (the terminal view converts line ends itself).
 * - On Linux, once the last process holding the pty's far end exits, reads of our end fail with
 *   EIO and output still buffered in the kernel is lost (node-pty issues 72 and 85): several KiB
 *   at the end of a fast writer, often the very line that says why it failed. So the shell does
 *   not exec the program: it waits for it, prints a marker with its exit status (after all of the
 *   program's output, in order), and waits in turn until the engine, having seen the marker, ends it.
 * - The trap is a handler, not an ignore: the program still gets Ctrl-C and the group's SIGINT with
 *   its default action, while the shell lives on to report how the program ended.
 */
const WRAPPER_SCRIPT = [
  'stty -onlcr 2>/dev/null',
  'nonce=$1; shift',
  "trap ':' INT TERM QUIT",
  '"$@"',
  'status=$?',
  "printf '\\033]7770;tb-exit;%s;%d\\007' \"$nonce\" \"$status\"",
  // Ended by the engine once it has read the marker; the limit only matters if nobody reads.
  'exec sleep 60',
].join('\n');

/** `$?` above 128 is 128 + the number of the signal that killed the program. */
const SIGNAL_STATUS_BASE = 128;

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(os.constants.signals).map(([name, number]) => [number, name]),
);

export class PtySession {
  readonly pid: number;
  private readonly terminal: pty.IPty;
  private readonly scanner: ExitMarkerScanner;
  private exited = false;
  private reported = false;
  private readonly dataListeners: Array<(data: Buffer) => void> = [];
  private readonly exitListeners: Array<(exit: PtyExit) => void> = [];

  constructor(options: PtySessionOptions) {
    const nonce = crypto.randomBytes(8).toString('hex');
    this.scanner = new ExitMarkerScanner(exitMarkerPrefix(nonce));
    this.terminal = pty.spawn('/bin/sh', ['-c', WRAPPER_SCRIPT, 'tuning-bench-run', nonce, options.file, ...options.args], {
      name: 'xterm-256color',
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      env: options.env,
      // Bytes, not strings: invalid UTF-8 and binary output are kept exactly as written.
      encoding: null,
    });
    // node-pty makes the child a session leader, so its pid is also its process group id.
    this.pid = this.terminal.pid;
    // With `encoding: null` node-pty hands over Buffers, though its types still say string.
    this.terminal.onData((data) => this.receive(data as unknown as Buffer));
    this.terminal.onExit(({ exitCode, signal }) => {
      // No marker: the shell itself was killed (SIGKILL from a stop, the OOM killer) or the pty broke.
      const rest = this.scanner.flush();
      if (rest.length > 0) for (const listener of this.dataListeners) listener(rest);
      const signalName = signal ? (SIGNAL_NAMES.get(signal) ?? `signal ${signal}`) : null;
      this.report({ exitCode: signalName ? null : exitCode, signal: signalName });
    });
  }

  onData(listener: (data: Buffer) => void): void {
    this.dataListeners.push(listener);
  }

  /** Fires once: when the program's marker arrives (all its output delivered), or when the pty ends without one. */
  onExit(listener: (exit: PtyExit) => void): void {
    this.exitListeners.push(listener);
  }

  private receive(chunk: Buffer): void {
    const scan = this.scanner.push(chunk);
    if (scan.output.length > 0) for (const listener of this.dataListeners) listener(scan.output);
    if (scan.status !== null) this.report(statusToExit(scan.status));
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


  pause(): void {
    this.terminal.pause();
  }

  resume(): void {
    this.terminal.resume();
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
    this.signalGroup('SIGKILL');
    this.dataListeners.length = 0;
    this.exitListeners.length = 0;
  }
}

function statusToExit(status: number): PtyExit {
  const signal = status > SIGNAL_STATUS_BASE ? SIGNAL_NAMES.get(status - SIGNAL_STATUS_BASE) : undefined;
  return signal ? { exitCode: null, signal } : { exitCode: status, signal: null };
}
