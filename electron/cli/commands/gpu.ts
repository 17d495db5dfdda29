// `tuning-bench gpu ...`: the GPU's control state, and manual changes that stay; plus the GPU options
// `run` and `sweep` take for their own duration (DESIGN's CLI contract).
import readline from 'node:readline/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { Core } from '../../core/createCore.js';
import { UsageError } from '../errors.js';
import { contractClient } from '../contract.js';
import { ApiFailure, type GpuJournalEntry, type MethodInput, type MethodOutput } from '../../shared/api.js';
import {
  formatClockRange,
  GpuValueError,
  parseClockRange,
  parseGpuSelector,
  parseOnOff,
  parseWatts,
  type GpuOperation,
  type GpuRunSettings,
} from '../../shared/gpuSettings.js';

/** Commander's parser from ours: a bad value is a usage error (exit 2) before anything runs. */
function argParser<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (error) {
      if (error instanceof GpuValueError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  };
}

export const parseClockArg = argParser((text) => parseClockRange(text));
export const parseWattsArg = argParser(parseWatts);
export const parseGpuArg = argParser(parseGpuSelector);

export interface GpuCliOptions {
  persistence?: boolean;
  lockClocks?: GpuRunSettings['lockClocks'];
  lockMemoryClocks?: GpuRunSettings['lockMemoryClocks'];
  powerLimit?: number;
  gpu?: string;
  yes?: boolean;
}

/** `--persistence --lock-clocks MIN[,MAX] --lock-memory-clocks MIN[,MAX] --power-limit WATTS --gpu INDEX|UUID --yes` */
export function addGpuRunOptions(command: Command): Command {
  return command
    .addOption(new Option('--persistence', 'persistence mode on for the run (restored after)'))
    .addOption(new Option('--lock-clocks <min[,max]>', 'lock GPU clocks in MHz for the run (restored after)').argParser(parseClockArg))
    .addOption(new Option('--lock-memory-clocks <min[,max]>', 'lock memory clocks in MHz for the run (restored after)').argParser(parseClockArg))
    .addOption(new Option('--power-limit <watts>', 'power limit in W for the run (restored after)').argParser(parseWattsArg))
    .addOption(new Option('--gpu <index|uuid>', 'the GPU to sample and control (default: $TUNING_BENCH_GPU, else 0)').argParser(parseGpuArg))
    .addOption(new Option('--yes', 'change clocks or power even if other processes use the GPU'));
}

export function runSettingsFrom(options: GpuCliOptions): GpuRunSettings {
  const settings: GpuRunSettings = {};
  if (options.persistence) settings.persistence = true;
  if (options.lockClocks) settings.lockClocks = options.lockClocks;
  if (options.lockMemoryClocks) settings.lockMemoryClocks = options.lockMemoryClocks;
  if (options.powerLimit !== undefined) settings.powerLimitW = options.powerLimit;
  return settings;
}

/** The run settings in the contract's words (the CLI checked them as flags; the engine checks them again). */
export function runSettingsText(options: GpuCliOptions): MethodInput<'runs.start'>['gpuSettings'] {
  const settings = runSettingsFrom(options);
  return {
    ...(settings.persistence === undefined ? {} : { persistence: settings.persistence }),
    ...(settings.lockClocks === undefined ? {} : { lockClocks: formatClockRange(settings.lockClocks) }),
    ...(settings.lockMemoryClocks === undefined ? {} : { lockMemoryClocks: formatClockRange(settings.lockMemoryClocks) }),
    ...(settings.powerLimitW === undefined ? {} : { powerLimitW: String(settings.powerLimitW) }),
  };
}

const OTHER_PROCESSES = /^other processes use GPU/u;

/**
 * Runs a change; when other processes use the GPU, asks on a terminal (without one, the message says
 * to pass --yes). The engine made no change before asking.
 */
export async function withConfirmation<T>(confirmed: boolean, attempt: (confirm: boolean) => Promise<T>): Promise<T> {
  try {
    return await attempt(confirmed);
  } catch (error) {
    if (!(error instanceof ApiFailure && OTHER_PROCESSES.test(error.message)) || confirmed || !process.stdin.isTTY) throw error;
    const prompt = readline.createInterface({ input: process.stdin, output: process.stderr });
    const answer = await prompt.question(`${error.message.replace(/; confirm to go ahead.*$/u, '')}.\nChange them anyway? [y/N] `);
    prompt.close();
    if (!/^y(es)?$/iu.test(answer.trim())) throw new ApiFailure('conflict', 'nothing changed: you answered no');
    return attempt(true);
  }
}

/** An operation checked here (for a usage error naming the flag) in the contract's words, which the engine checks again. */
function operationText(op: GpuOperation): MethodInput<'gpu.apply'>['operation'] {
  switch (op.kind) {
    case 'lockClocks':
    case 'lockMemoryClocks':
      return { kind: op.kind, range: formatClockRange(op.range) };
    case 'powerLimit':
      return { kind: op.kind, watts: String(op.watts) };
    default:
      return op;
  }
}

/** Prints what a start of the CLI put back from a crashed engine (the CLI restores without asking). */
export async function restoreAbandonedGpuSettings(core: Core, out: NodeJS.WritableStream = process.stderr): Promise<void> {
  const { restored, failed } = await contractClient(core)['gpu.restoreAbandoned']({});
  for (const entry of restored) out.write(`tuning-bench: restored GPU settings left by a run that did not finish: undid ${entry.description}\n`);
  for (const entry of failed) out.write(`tuning-bench: could not restore ${entry.description}: ${entry.error ?? 'unknown error'}\n`);
}

type Status = MethodOutput<'gpu.status'>;

function mhz(value: number | null): string {
  return value === null ? 'N/A' : `${value} MHz`;
}

function watts(value: number | null): string {
  return value === null ? 'N/A' : `${Number.isInteger(value) ? value : value.toFixed(2)} W`;
}

function entryLine(entry: GpuJournalEntry): string {
  return `  #${entry.id} ${entry.createdAt}  ${entry.description}  [${entry.state}]${entry.error ? `\n      ${entry.error}` : ''}`;
}

export function formatGpuStatus(status: Status): string {
  const lines: string[] = [];
  if (!status.available || !status.state) {
    lines.push(`GPU ${status.gpu}: not available (${status.reason ?? 'unknown'})`);
  } else {
    const s = status.state;
    const graphics = s.supportedGraphicsMHz;
    const lock = (range: typeof s.locks.clocks) => (range ? `${formatClockRange(range)} MHz` : 'none known');
    lines.push(
      `GPU ${s.index}: ${s.name ?? 'unknown'}${s.uuid ? ` (${s.uuid})` : ''}`,
      `  persistence mode    ${s.persistenceMode === null ? 'N/A' : s.persistenceMode ? 'on' : 'off'}`,
      `  clocks now          graphics ${mhz(s.clocks.graphicsMHz)}, memory ${mhz(s.clocks.memMHz)}`,
      `  max clocks          graphics ${mhz(s.clocks.maxGraphicsMHz)}, memory ${mhz(s.clocks.maxMemMHz)}`,
      `  clock lock          ${lock(s.locks.clocks)}`,
      `  memory clock lock   ${lock(s.locks.memoryClocks)}`,
      `  power limit         ${watts(s.power.requestedLimitW ?? s.power.limitW)} (default ${watts(s.power.defaultLimitW)}, range ${watts(s.power.minLimitW)} - ${watts(s.power.maxLimitW)})`,
      `  supported clocks    ${graphics.length > 0 ? `graphics ${graphics.at(-1)}-${graphics[0]} MHz (${graphics.length} steps)` : 'graphics not listed'}, memory ${s.supportedMemoryMHz.length > 0 ? `${[...s.supportedMemoryMHz].reverse().join(', ')} MHz` : 'not listed'}`,
      `  processes           ${s.processes.length === 0 ? 'none' : s.processes.map((p) => `${p.name ?? '?'} (pid ${p.pid}${p.usedMemoryMiB === null ? '' : `, ${p.usedMemoryMiB} MiB`})`).join(', ')}`,
    );
    if (status.heldBy) lines.push(`  held by             ${status.heldBy}`);
    for (const profile of status.profiles) {
      const p = profile.settings;
      const parts = [
        p.lockClocks ? `lock ${formatClockRange(p.lockClocks)} MHz` : null,
        p.persistence ? 'persistence on' : null,
        p.powerLimitW ? `${p.powerLimitW} W` : null,
      ];
      lines.push(`  profile ${profile.name.padEnd(15)}${parts.filter(Boolean).join(', ')}  (${profile.basis})`);
    }
  }
  lines.push(`  changes go through  ${status.elevation.mode}: ${status.elevation.detail}`);
  lines.push(status.manual.length === 0 ? 'Manual changes in force: none' : 'Manual changes in force:', ...status.manual.map(entryLine));
  lines.push(
    status.abandoned.length === 0 ? 'Unrestored changes of runs or sweeps: none' : 'Unrestored changes of runs or sweeps:',
    ...status.abandoned.map(entryLine),
  );
  return lines.join('\n');
}

interface GpuCommandContext {
  withCore: <T>(command: Command, gpu: string | undefined, work: (core: Core) => Promise<T>) => Promise<T>;
  json: (command: Command) => boolean;
}

/** `gpu status` and the six manual changes. */
export function addGpuCommands(program: Command, context: GpuCommandContext): void {
  const gpu = program.command('gpu').description('GPU state and manual changes that stay (persistence, clock and power locks)');
  const common = (command: Command) =>
    command
      .addOption(new Option('--gpu <index|uuid>', 'the GPU (default: $TUNING_BENCH_GPU, else 0)').argParser(parseGpuArg))
      .option('--json', 'machine-readable output');

  common(gpu.command('status').description('persistence, clocks, power limit, processes, and unrestored journal entries')).action(
    async (options: { gpu?: string }, command: Command) => {
      await context.withCore(command, options.gpu, async (core) => {
        const status = await contractClient(core)['gpu.status']({ ...(options.gpu === undefined ? {} : { gpu: options.gpu }) });
        process.stdout.write(context.json(command) ? `${JSON.stringify(status, null, 2)}\n` : `${formatGpuStatus(status)}\n`);
      });
    },
  );

  const change = (name: string, description: string, operation: (value: string | undefined) => GpuOperation, argument?: string) => {
    const command = common(gpu.command(name).description(description)).option('--yes', 'change it even if other processes use the GPU');
    if (argument) command.argument(argument);
    command.action(async (...args: unknown[]) => {
      const value = argument ? (args[0] as string) : undefined;
      const options = args[argument ? 1 : 0] as { gpu?: string; yes?: boolean };
      const self = args[argument ? 2 : 1] as Command;
      let op: GpuOperation;
      try {
        op = operation(value);
      } catch (error) {
        if (error instanceof GpuValueError) throw new UsageError(error.message);
        throw error;
      }
      await context.withCore(self, options.gpu, async (core) => {
        const result = await withConfirmation(options.yes === true, (confirm) =>
          contractClient(core)['gpu.apply']({
            operation: operationText(op),
            ...(options.gpu === undefined ? {} : { gpu: options.gpu }),
            confirmOtherProcesses: confirm,
          }),
        );
        if (context.json(self)) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        else {
          process.stdout.write(`${result.message} (via ${result.via})\n`);
          for (const warning of result.warnings) process.stdout.write(`  ${warning}\n`);
          process.stdout.write('This change stays until you reset it or reboot; `tuning-bench gpu status` shows it.\n');
        }
      });
    });
  };

  change('persistence', 'persistence mode on or off', (v) => ({ kind: 'persistence', enabled: parseOnOff(v!) }), '<on|off>');
  change('lock-clocks', 'lock GPU clocks at MIN[,MAX] MHz', (v) => ({ kind: 'lockClocks', range: parseClockRange(v!) }), '<min[,max]>');
  change('reset-clocks', 'unlock GPU clocks', () => ({ kind: 'resetClocks' }));
  change('lock-memory-clocks', 'lock memory clocks at MIN[,MAX] MHz', (v) => ({ kind: 'lockMemoryClocks', range: parseClockRange(v!) }), '<min[,max]>');
  change('reset-memory-clocks', 'unlock memory clocks', () => ({ kind: 'resetMemoryClocks' }));
  change('power-limit', 'set the power limit in whole watts', (v) => ({ kind: 'powerLimit', watts: parseWatts(v!) }), '<watts>');
}
