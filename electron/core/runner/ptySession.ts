// One pseudo-terminal running one command: the sole owner of that child and its process group.
import os from 'node:os';
import * as pty from 'node-pty';

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
 * The pty's line discipline would turn every "\n" into "\r\n"; switching that off before exec keeps
 * the stored bytes exactly what the program wrote (the terminal view converts line ends itself).
 */
const RAW_OUTPUT_WRAPPER = 'stty -onlcr 2>/dev/null; exec "$0" "$@"';

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(os.constants.signals).map(([name, number]) => [number, name]),
);

export class PtySession {
  readonly pid: number;
  private readonly terminal: pty.IPty;
  private exited = false;
  private readonly disposables: pty.IDisposable[] = [];

  constructor(options: PtySessionOptions) {
    this.terminal = pty.spawn('/bin/sh', ['-c', RAW_OUTPUT_WRAPPER, options.file, ...options.args], {
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
  }

  onData(listener: (data: Buffer) => void): void {
    // With `encoding: null` node-pty hands over Buffers, though its types still say string.
    this.disposables.push(this.terminal.onData((data) => listener(data as unknown as Buffer)));
  }

  onExit(listener: (exit: PtyExit) => void): void {
    this.disposables.push(
      this.terminal.onExit(({ exitCode, signal }) => {
        this.exited = true;
        const signalName = signal ? (SIGNAL_NAMES.get(signal) ?? `signal ${signal}`) : null;
        listener({ exitCode: signalName ? null : exitCode, signal: signalName });
      }),
    );
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

  close(): void {
    if (!this.exited) this.signalGroup('SIGKILL');
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }
}
