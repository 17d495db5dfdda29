#!/usr/bin/env node
// tuning-bench: the engine on the command line, for headless boxes and scripts (contract in DESIGN.md).
import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { createCore, type Core } from '../core/createCore.js';
import { defaultDatabasePath, defaultRendererDir } from '../core/paths.js';
import { integrityCheck, setAsideDatabase } from '../core/store/open.js';
import { writeRunLog } from '../core/runner/runLog.js';
import { importLog } from '../core/runner/importLog.js';
import { toPoint } from '../core/metrics/runMetrics.js';
import { startServer } from '../server/server.js';
import { ApiFailure, type Run } from '../shared/api.js';
import { formatRunDetails, formatRunTable } from './format.js';
import { runCommand } from './commands/run.js';
import { findBatchCommand, sweepCommand, type SweepCommandOptions } from './commands/sweep.js';
import { compareCommand, type CompareCommandOptions } from './commands/compare.js';
import { addGpuCommands, addGpuRunOptions, restoreAbandonedGpuSettings, runSettingsFrom, type GpuCliOptions } from './commands/gpu.js';
import { UsageError } from './errors.js';

/** Exit status for bad arguments (the contract); 1 is for a failure of the tool itself. */
export const EXIT_BAD_ARGUMENTS = 2;

interface GlobalOptions {
  db?: string;
  json?: boolean;
}

/** `gpu` picks the GPU to sample and control, as TUNING_BENCH_GPU would. */
function openCore(options: GlobalOptions, gpu?: string): Core {
  const env = gpu === undefined ? process.env : { ...process.env, TUNING_BENCH_GPU: gpu };
  return createCore({ face: 'headless', env, ...(options.db ? { dbPath: options.db } : {}) });
}

/**
 * Every command first puts back GPU changes a crashed engine left (the CLI restores and says so; the
 * desktop and the headless UI ask first).
 */
async function withCore<T>(options: GlobalOptions, work: (core: Core) => Promise<T> | T, gpu?: string): Promise<T> {
  const core = openCore(options, gpu);
  try {
    await restoreAbandonedGpuSettings(core);
    return await work(core);
  } finally {
    await core.close();
  }
}

export function parseRunId(value: string): number {
  if (!/^\d+$/u.test(value) || Number(value) < 1) throw new InvalidArgumentError('a run id is a positive whole number');
  return Number(value);
}

function requireRun(core: Core, id: number): Run {
  const run = core.store.runs.get(id);
  if (!run) throw new UsageError(`no run ${id} in ${core.dbPath} (list them with \`tuning-bench runs\`)`);
  return run;
}

function print(json: boolean | undefined, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}

export function buildProgram(): Command {
  const program = new Command('tuning-bench')
    .description('Measure ML training changes on one GPU workstation: run, record, compare.')
    .addOption(new Option('--db <file>', 'SQLite file (default: $TUNING_BENCH_DB, else ~/.local/share/tuning-bench/runs.db)'))
    .addOption(new Option('--json', 'machine-readable output'))
    .showHelpAfterError()
    .exitOverride();

  const globals = (command: Command) => command.optsWithGlobals<GlobalOptions>();

  const run = program
    .command('run')
    .description('run a command (or a workload) in a pseudo-terminal and record it')
    .option('--workload <name>', 'a registered workload (see `tuning-bench workloads`)')
    .option('--cwd <dir>', 'working directory of an ad-hoc COMMAND', process.cwd())
    .option('--set <var=value>', 'a workload variable (repeatable)', (value: string, previous: string[]) => [...previous, value], [])
    .option('--timeout <seconds>', 'stop the run after this many seconds', (value: string) => {
      const seconds = Number(value);
      if (!Number.isFinite(seconds) || seconds <= 0) throw new InvalidArgumentError('give a positive number of seconds');
      return seconds;
    })
    .option('--max-steps <n>', 'stop the run once its metrics reach this step', (value: string) => parseRunId(value))
    .option('--json', 'print the finished run as JSON')
    .argument('[command...]', 'the command after --, when no --workload is given');
  addGpuRunOptions(run).action(
    async (
      commandArgs: string[],
      options: { workload?: string; cwd: string; set: string[]; timeout?: number; maxSteps?: number } & GpuCliOptions,
      command: Command,
    ) => {
      const global = globals(command);
      await withCore(
        global,
        (core) =>
          runCommand(core, { ...options, commandArgs, json: global.json === true, gpuSettings: runSettingsFrom(options), confirm: options.yes === true }),
        options.gpu,
      );
    },
  );

  const positiveInt = (what: string) => (value: string) => {
    if (!/^\d+$/u.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${what} is a positive whole number`);
    return Number(value);
  };
  const collect = (value: string, previous: string[]) => [...previous, value];

  const sweep = program
    .command('sweep')
    .description('run a plan of configs as one experiment: repeats interleaved, one run at a time, on a quiet GPU')
    .option('--workload <name>', 'a registered workload')
    .option('--set <var=value>', 'a value every config shares (repeatable)', collect, [])
    .option('--vary <var=v1,v2>', 'a variable and its values, the first the baseline\'s (repeatable)', collect, [])
    .addOption(new Option('--plan <plan>', 'one-at-a-time: each change alone; ladder: each step adds one; grid: every combination').choices(['one-at-a-time', 'ladder', 'grid']).default('ladder'))
    .option('--repeats <n>', 'runs per config, interleaved A B C A B C', positiveInt('--repeats'), 3)
    .option('--max-steps <n>', 'stop each run after this many steps', positiveInt('--max-steps'))
    .option('--timeout <seconds>', 'stop each run after this many seconds', positiveInt('--timeout'))
    .option('--no-wait-idle', 'do not wait for an idle, cool GPU before each run')
    .option('--max-wait <seconds>', 'longest wait for an idle, cool GPU before a run', (v: string) => Number(positiveInt('--max-wait')(v)), 120)
    .option('--resume <sweep-id>', 'resume a sweep that was interrupted', positiveInt('a sweep id'))
    .option('--json', 'print the finished sweep as JSON');
  addGpuRunOptions(sweep).action(async (options: Omit<SweepCommandOptions, 'json'>, command: Command) => {
    const global = globals(command);
    await withCore(global, (core) => sweepCommand(core, { ...options, json: global.json === true }), options.gpu);
  });

  program
    .command('find-batch')
    .description('the largest batch that fits: doubles it until out of memory, then bisects (short runs)')
    .option('--workload <name>', 'a registered workload')
    .option('--set <var=value>', 'a value every probe shares (repeatable)', collect, [])
    .option('--var <name>', 'the batch variable', 'batch')
    .option('--start <n>', 'the first batch tried', positiveInt('--start'), 1)
    .option('--max-steps <n>', 'steps per probe', positiveInt('--max-steps'), 20)
    .option('--json', 'print the finder as JSON')
    .action(async (options: { workload?: string; set: string[]; var: string; start: number; maxSteps: number }, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) =>
        findBatchCommand(core, { workload: options.workload, set: options.set, variable: options.var, start: options.start, maxSteps: options.maxSteps, json: global.json === true }),
      );
    });

  const fraction = (what: string) => (value: string) => {
    const number = Number(value);
    if (!/^\d+(\.\d+)?$/u.test(value) || !Number.isFinite(number)) throw new InvalidArgumentError(`${what} is a number, e.g. 0.05`);
    return number;
  };
  program
    .command('compare')
    .description('runs or sweeps side by side against a baseline, as a table to share')
    .argument('<ids...>', 'run ids (12) and sweeps (s3 or sweep:3); a sweep\'s baseline is its first config')
    .option('--baseline <run-id>', 'the run whose config is the baseline', (value: string) => parseRunId(value))
    .addOption(new Option('--format <format>', 'output format').choices(['md', 'csv', 'json', 'html']).default('md'))
    .option('-o, --output <file>', 'write to this file (. for a generated name) instead of stdout')
    .addOption(new Option('--by <grouping>', 'one row per config (repeats pooled) or per run').choices(['config', 'run']).default('config'))
    .option('--gate-metric <name>', 'quality gate: metric compared (auto = final eval loss, else train loss at the matched point; or loss, eval_loss, accuracy, ...)', 'auto')
    .addOption(new Option('--gate-direction <better>', 'quality gate: which way is better for the metric').choices(['lower', 'higher']).default('lower'))
    .option('--gate-abs <amount>', 'quality gate: how much worse than the baseline passes', fraction('--gate-abs'), 0.05)
    .option('--gate-rel <fraction>', 'quality gate: and at most this fraction of the baseline worse (off unless given)', fraction('--gate-rel'))
    .option('--no-gate-abs', 'quality gate: no absolute tolerance (use with --gate-rel)')
    .option('--no-gate', 'no quality gate at all')
    .action(async (ids: string[], options: CompareCommandOptions, command: Command) => {
      await withCore(globals(command), (core) => compareCommand(core, ids, options));
    });

  const db = program.command('db').description('the database file: check it, or set a damaged one aside');
  db.command('check')
    .description("SQLite's integrity check of the database")
    .action(async (_options: unknown, command: Command) => {
      await withCore(globals(command), (core) => {
        const problems = integrityCheck(core.store.db);
        process.stdout.write(`${core.dbPath}: ${problems.join('\n')}\n`);
        if (problems.length !== 1 || problems[0] !== 'ok') process.exitCode = 1;
      });
    });
  db.command('set-aside')
    .description('rename a damaged database to <file>.damaged-<time> (kept, never deleted); the next start makes a fresh one')
    .action((_options: unknown, command: Command) => {
      const file = globals(command).db ?? defaultDatabasePath(process.env);
      if (!fs.existsSync(file)) throw new UsageError(`there is no database at ${file}`);
      const aside = setAsideDatabase(file);
      process.stdout.write(`${file} is now ${aside}; the next start creates a fresh database at ${file}.\n`);
    });

  addGpuCommands(program, {
    withCore: (command, gpu, work) => withCore(globals(command), work, gpu),
    json: (command) => globals(command).json === true,
  });

  program
    .command('show')
    .description('one run with its summary')
    .argument('<run-id>', 'the run', parseRunId)
    .option('--json', 'machine-readable output')
    .action(async (id: number, _options: unknown, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) => {
        const run = requireRun(core, id);
        print(global.json, run, () => formatRunDetails(run));
      });
    });

  program
    .command('runs')
    .description('list runs, newest first')
    .option('--limit <n>', 'at most this many', (value: string) => parseRunId(value), 100)
    .option('--json', 'machine-readable output')
    .action(async (options: { limit: number }, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) => {
        const runs = core.store.runs.list(options.limit);
        print(global.json, runs, () => formatRunTable(runs));
      });
    });

  program
    .command('log')
    .description("a run's stored terminal output (ANSI stripped unless --raw)")
    .argument('<run-id>', 'the run', parseRunId)
    .option('--raw', 'the exact bytes the program wrote')
    .action(async (id: number, options: { raw?: boolean }, command: Command) => {
      await withCore(globals(command), async (core) => {
        requireRun(core, id);
        await writeRunLog(core.store.runs, id, options.raw ? 'raw' : 'plain', process.stdout);
      });
    });

  program
    .command('metrics')
    .description("a run's metric samples: step, time, name, value")
    .argument('<run-id>', 'the run', parseRunId)
    .option('--json', 'machine-readable output')
    .action(async (id: number, _options: unknown, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) => {
        requireRun(core, id);
        // JSON has no NaN: non-finite values print as the strings "nan", "inf", "-inf".
        const points = core.store.metrics.forRun(id).map((sample) => {
          const point = toPoint(sample);
          return { step: point.step, t: point.tMs / 1000, name: point.name, value: point.value, kind: point.kind, source: point.source };
        });
        print(global.json, points, () =>
          points.length === 0
            ? `run ${id} has no metric samples`
            : ['STEP\tT_S\tNAME\tVALUE', ...points.map((p) => `${p.step ?? '-'}\t${p.t.toFixed(3)}\t${p.name}\t${p.value}`)].join('\n'),
        );
      });
    });

  program
    .command('import')
    .description('a log produced elsewhere, parsed into a run')
    .argument('<logfile>', 'the log file')
    .option('--name <name>', 'a name for the run (default: the file name)')
    .option('--json', 'print the run as JSON')
    .action(async (file: string, options: { name?: string }, command: Command) => {
      const global = globals(command);
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(file);
      } catch (error) {
        throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      await withCore(global, async (core) => {
        const run = await importLog(core.store, { text: bytes, name: options.name ?? path.basename(file), now: new Date(), source: path.resolve(file) });
        print(global.json, run, () => formatRunDetails(run));
      });
    });

  program
    .command('workloads')
    .description('registered workloads (`synthetic` is always there)')
    .option('--json', 'machine-readable output')
    .action(async (_options: unknown, command: Command) => {
      const global = globals(command);
      await withCore(global, (core) => {
        const workloads = core.store.workloads.list();
        print(global.json, workloads, () =>
          workloads
            .map((w) => {
              const vars = w.variables.map((v) => `${v.name}=${v.default}`).join(' ');
              return `${w.name}${w.builtin ? ' (built-in)' : ''}\n  ${w.command.join(' ')}\n  variables: ${vars || 'none'}`;
            })
            .join('\n'),
        );
      });
    });

  program
    .command('serve')
    .description('headless UI on 127.0.0.1; prints its URL with the token')
    .option('--port <n>', 'port (default: a free one)', (value: string) => {
      const port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('a port is 0-65535');
      return port;
    })
    .action(async (options: { port?: number }, command: Command) => {
      const core = openCore(globals(command));
      let server;
      try {
        server = await startServer({ core, rendererDir: defaultRendererDir(), ...(options.port !== undefined ? { port: options.port } : {}) });
      } catch (error) {
        await core.close();
        throw error;
      }
      process.stdout.write(`Tuning Bench is serving ${core.dbPath}\nOpen ${server.url}\n(Ctrl-C stops it)\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
      await core.close();
    });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are "errors" to commander; they exit 0.
      return error.exitCode === 0 ? 0 : EXIT_BAD_ARGUMENTS;
    }
    if (error instanceof UsageError || (error instanceof ApiFailure && error.code === 'invalid_input')) {
      process.stderr.write(`tuning-bench: ${error.message}\n`);
      return EXIT_BAD_ARGUMENTS;
    }
    process.stderr.write(`tuning-bench: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

