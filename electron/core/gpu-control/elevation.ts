// How an allowlisted nvidia-smi command gets root: the app's own if it has it, else `sudo -n` where an
// administrator allowed it without a password, else pkexec with the polkit policy and helper from
// build/ (desktop only: it needs an authentication agent), else the exact command for a terminal.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { GpuElevation } from '../../shared/api.js';
import { assertAllowlisted } from './allowlist.js';

export type ElevationMode = GpuElevation['mode'];
export type ElevationSetting = 'auto' | ElevationMode;

/** Where the .deb installs the helper; the polkit policy names exactly this path. */
export const DEFAULT_HELPER_PATH = '/usr/lib/tuning-bench/tuning-bench-gpu-helper';
/** nvidia-smi answers a control in well under a second; a hung driver must not hang a sweep. */
const CONTROL_TIMEOUT_MS = 30_000;
/** pkexec's own exit codes (pkexec(1)): the dialog was dismissed, or the user is not authorised. */
const PKEXEC_DISMISSED = 126;
const PKEXEC_NOT_AUTHORIZED = 127;

export interface ElevationOptions {
  nvidiaSmi: string;
  env: Record<string, string>;
  setting: ElevationSetting;
  isRoot: boolean;
  /** pkexec needs a polkit agent, which a desktop session runs; a headless box has none. */
  desktop: boolean;
  helperPath: string;
  resolve: (program: string) => string | null;
}

export interface ElevatedResult {
  code: number;
  output: string;
  via: ElevationMode;
}

/** No way to root was found: the person runs this in a terminal. */
export class ManualCommandRequired extends Error {
  constructor(
    readonly command: string,
    readonly why: string,
  ) {
    super(`${why}. Run this in a terminal instead:\n  ${command}`);
    this.name = 'ManualCommandRequired';
  }
}

function exec(file: string, args: readonly string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: CONTROL_TIMEOUT_MS, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

export class Elevation {
  constructor(private readonly options: ElevationOptions) {}

  /** The command a person would type: `sudo nvidia-smi -i 0 -lgc 2100,2100`. */
  manualCommand(args: readonly string[]): string {
    const onPath = this.options.resolve('nvidia-smi') === this.options.nvidiaSmi;
    return ['sudo', onPath ? 'nvidia-smi' : this.options.nvidiaSmi, ...args].join(' ');
  }

  /** Which way a change would go now, and why, without changing anything. */
  async describe(): Promise<GpuElevation> {
    const { setting } = this.options;
    if (setting === 'manual') return { mode: 'manual', detail: 'TUNING_BENCH_GPU_ELEVATION=manual: the app shows the command to run instead' };
    if (this.useRoot()) return { mode: 'root', detail: 'Tuning Bench runs as root and calls nvidia-smi directly' };
    if (await this.sudoAllowed()) return { mode: 'sudo', detail: `sudo -n allows ${this.options.nvidiaSmi} without a password` };
    const pkexec = this.pkexecUsable();
    if (pkexec.ok) return { mode: 'pkexec', detail: `pkexec asks for authentication once, then runs ${this.options.helperPath}` };
    return { mode: 'manual', detail: this.whyManual(pkexec.why) };
  }

  /** Runs one allowlisted command as root by the first way that works. */
  async run(args: readonly string[]): Promise<ElevatedResult> {
    assertAllowlisted(args);
    const { setting, nvidiaSmi, env } = this.options;
    if (setting === 'manual') throw new ManualCommandRequired(this.manualCommand(args), 'TUNING_BENCH_GPU_ELEVATION=manual is set');
    if (this.useRoot()) return { ...(await exec(nvidiaSmi, args, env)), via: 'root' };

    if (setting === 'auto' || setting === 'sudo') {
      const sudo = this.options.resolve('sudo');
      if (sudo !== null) {
        const result = await exec(sudo, ['-n', '--', nvidiaSmi, ...args], env);
        // sudo's own refusal ("a password is required", "not allowed") means: try the next way.
        if (!/^sudo: /mu.test(result.output)) return { ...result, via: 'sudo' };
      }
      if (setting === 'sudo') throw new ManualCommandRequired(this.manualCommand(args), 'sudo -n is not allowed to run nvidia-smi without a password');
    }

    const pkexec = this.pkexecUsable();
    if (pkexec.ok) {
      // The helper re-checks the allowlist as root; the override of its nvidia-smi only counts outside pkexec (tests).
      const result = await exec(pkexec.file, [this.options.helperPath, ...args], { ...env, TUNING_BENCH_HELPER_NVIDIA_SMI: nvidiaSmi });
      if (result.code === PKEXEC_DISMISSED) throw new ManualCommandRequired(this.manualCommand(args), 'the authentication dialog was dismissed');
      if (result.code === PKEXEC_NOT_AUTHORIZED && /not authori[sz]ed|authoriz/iu.test(result.output)) {
        throw new ManualCommandRequired(this.manualCommand(args), 'polkit did not authorise this user to change GPU settings');
      }
      return { ...result, via: 'pkexec' };
    }
    throw new ManualCommandRequired(this.manualCommand(args), this.whyManual(pkexec.why));
  }

  private useRoot(): boolean {
    return this.options.setting === 'root' || (this.options.setting === 'auto' && this.options.isRoot);
  }

  private async sudoAllowed(): Promise<boolean> {
    if (this.options.setting !== 'auto' && this.options.setting !== 'sudo') return false;
    const sudo = this.options.resolve('sudo');
    if (sudo === null) return false;
    const { code } = await exec(sudo, ['-n', '-l', this.options.nvidiaSmi], this.options.env);
    return code === 0;
  }

  private pkexecUsable(): { ok: true; file: string } | { ok: false; why: string } {
    const { setting, desktop, helperPath } = this.options;
    if (setting !== 'auto' && setting !== 'pkexec') return { ok: false, why: `TUNING_BENCH_GPU_ELEVATION=${setting}` };
    if (setting === 'auto' && !desktop) return { ok: false, why: 'pkexec needs a desktop session to ask for the password' };
    const file = this.options.resolve('pkexec');
    if (file === null) return { ok: false, why: 'pkexec is not installed' };
    if (!isExecutable(helperPath)) return { ok: false, why: `the GPU helper is not installed at ${helperPath} (the .deb installs it)` };
    return { ok: true, file };
  }

  private whyManual(pkexecWhy: string): string {
    const sudo = this.options.resolve('sudo') === null ? 'sudo is not installed' : 'sudo -n asks for a password';
    return `Tuning Bench is not root, ${sudo}, and ${pkexecWhy}`;
  }
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(path.resolve(file), fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
