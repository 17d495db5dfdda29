// What a new user hit on the command line (issue 28): cut commands, misleading errors, empty imports, a mistyped --db, variables that were not variables.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run as runSchema, type Run } from '../../electron/shared/api.js';
import { runCli } from '../helpers/cli.js';
import { capturedFixture } from '../helpers/fixtures.js';
import { makeTempDir } from '../helpers/tempCore.js';

const dir = makeTempDir('tb-newuser-');
const db = path.join(dir, 'runs.db');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A program that prints the arguments it was given, as JSON: what the run really ran with. */
const PRINT_ARGS = ['node', '-e', 'console.log(JSON.stringify(process.argv.slice(1)))', '--'];

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  // INIT_CWD: where the person stood (npm sets it to the repository when the tests run through npx).
  return runCli(['--db', db, ...args], { cwd: dir, env: { INIT_CWD: dir, ...env } });
}

function runOf(result: ReturnType<typeof cli>): Run {
  expect(result.status, result.stderr).toBe(0);
  return runSchema.parse(JSON.parse(result.stdout));
}

function runIds(): number[] {
  return (JSON.parse(cli(['runs', '--json']).stdout) as Run[]).map((run) => run.id);
}

describe('runs shows every command whole (item 6)', () => {
  it('never cuts the value at the end that tells configs apart; piped, the command is in full', () => {
    const long = [...PRINT_ARGS, '--a-long-option-that-pushes-the-rest-out', 'value', '--batch_size', '16'];
    const run = runOf(cli(['run', '--json', '--', ...long]));
    const table = cli(['runs']).stdout;
    const row = table.split('\n').find((line) => line.startsWith(`${run.id} `));
    expect(row).toMatch(/--batch_size 16$/u);
    expect(row).toContain('--a-long-option-that-pushes-the-rest-out');
  });
});

describe('errors name the flag and the fix, one exit-status rule (item 7)', () => {
  it('a bad number names its flag, what it counts and an example, never "a run id"', () => {
    const cases: Array<[string[], RegExp]> = [
      [['run', '--max-steps', '0', '--', 'true'], /--max-steps takes a whole number of steps, at least 1 \(e\.g\. --max-steps 500\); got "0"/u],
      [['runs', '--limit', '-1'], /--limit takes a whole number of runs, at least 1 \(e\.g\. --limit 20\); got "-1"/u],
      [['sweep', '--repeats', 'many', '--vary', 'a=1,2', '--', 'true', '{a}'], /--repeats takes a whole number of runs per config/u],
      [['show', 'abc'], /"abc" is not a run id: a run id is a positive whole number/u],
    ];
    for (const [args, message] of cases) {
      const result = cli(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      if (args[0] !== 'show') expect(result.stderr, args.join(' ')).not.toMatch(/run id/u);
    }
  });

  it('a script without its execute bit is refused with the interpreter and chmod, and no run is stored', () => {
    fs.writeFileSync(path.join(dir, 'train.py'), 'print("step 1: loss 1.0")\n', { mode: 0o644 });
    const before = runIds();
    const result = cli(['run', '--', './train.py']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/\.\/train\.py is not executable .*`python3 \.\/train\.py`.*`chmod \+x \.\/train\.py`/u);
    expect(result.stderr).not.toMatch(/command not found|check the spelling/u);
    expect(runIds()).toEqual(before);
  });

  it('a folder given as the program is refused as a folder', () => {
    fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
    const result = cli(['run', '--', './scripts']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/\.\/scripts is a folder, not a program/u);
  });

  it('a missing script is a failed run that says no such file, not "check the spelling"', () => {
    const result = cli(['run', '--json', '--', './nothere.py']);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ exitClass: 'not_found', exitReason: expect.stringMatching(/^no such file: \.\/nothere\.py \(in /u) });
  });

  it('missing files and folders are sentences, never ENOENT or EISDIR', () => {
    const cases: Array<[string[], RegExp]> = [
      [['import', path.join(dir, 'nothere.log')], /the log .*nothere\.log does not exist/u],
      [['import', dir], /is a folder/u],
      [['compare', '1', '-o', path.join(dir, 'no-such-folder', 'x.md')], /x\.md does not exist \(nor, maybe, its folder .*no-such-folder\)/u],
    ];
    runOf(cli(['run', '--json', '--', 'true']));
    for (const [args, message] of cases) {
      const result = cli(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr, args.join(' ')).not.toMatch(/ENOENT|EISDIR/u);
    }
  });

  it('a run that is not there exits 2 from every command, and says where it looked', () => {
    for (const command of ['show', 'log', 'metrics', 'compare', 'reparse', 'profile']) {
      const result = cli([command, '999']);
      expect(result.status, command).toBe(2);
      expect(result.stderr, command).toMatch(new RegExp(`no run 999 in ${db.replaceAll('.', '\\.')}`, 'u'));
    }
  });
});

describe('an empty log is refused (item 8)', () => {
  it('/dev/null and a file of 0 bytes make no run', () => {
    const empty = path.join(dir, 'empty.log');
    fs.writeFileSync(empty, '');
    const before = runIds();
    for (const file of ['/dev/null', empty]) {
      const result = cli(['import', file]);
      expect(result.status, file).toBe(2);
      expect(result.stderr, file).toMatch(/is empty \(0 bytes\): nothing was imported/u);
    }
    expect(runIds()).toEqual(before);
  });
});

describe('a mistyped --db is said, never a new empty database (item 9)', () => {
  it('a command that reads refuses a database that is not there, and makes no file or folder', () => {
    const typo = path.join(dir, 'tpyo', 'runs.db');
    for (const args of [
      ['--db', typo, 'runs'],
      ['--db', path.join(dir, 'runz.db'), 'show', '1'],
    ]) {
      const result = runCli(args, { cwd: dir });
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/there is no database at .* \(given by --db\): check the path/u);
    }
    expect(fs.existsSync(path.join(dir, 'tpyo'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'runz.db'))).toBe(false);
    const fromEnv = runCli(['runs'], { cwd: dir, env: { TUNING_BENCH_DB: typo } });
    expect(fromEnv.status).toBe(2);
    expect(fromEnv.stderr).toMatch(/given by TUNING_BENCH_DB/u);
  });

  it('a command that records makes the file in a folder that is there, and says so; never the folder', () => {
    const inMissingFolder = runCli(['--db', path.join(dir, 'tpyo', 'runs.db'), 'run', '--', 'true'], { cwd: dir });
    expect(inMissingFolder.status).toBe(2);
    expect(inMissingFolder.stderr).toMatch(/the folder of the database .* does not exist: .*mkdir -p/u);
    expect(fs.existsSync(path.join(dir, 'tpyo'))).toBe(false);
    const fresh = path.join(dir, 'second.db');
    const made = runCli(['--db', fresh, 'run', '--', 'true'], { cwd: dir });
    expect(made.status, made.stderr).toBe(0);
    expect(made.stderr).toContain(`a new database at ${fresh}`);
    expect(fs.existsSync(fresh)).toBe(true);
  });
});

describe('{var} in a run is a variable, and flags can be swept (item 10)', () => {
  const argsOf = (run: Run) => run.command.slice(PRINT_ARGS.length);

  it('run -- cmd {batch} takes --set, as sweep and the UI do', () => {
    const run = runOf(cli(['run', '--json', '--set', 'batch=16', '--', ...PRINT_ARGS, '--batch_size', '{batch}']));
    expect(argsOf(run)).toEqual(['--batch_size', '16']);
    expect(run.config).toEqual({ batch: '16' });
  });

  it('a placeholder without --set, a --set without a placeholder, and an empty value where one is needed are refused with the fix', () => {
    const cases: Array<[string[], RegExp]> = [
      [['run', '--', ...PRINT_ARGS, '--batch_size', '{batch}'], /the command has \{batch\}: give its value with --set batch=VALUE/u],
      [['run', '--set', 'lr=3', '--', ...PRINT_ARGS], /--set lr=\.\.\.: the command has no \{lr\} placeholder/u],
      [['run', '--set', 'batch=', '--', ...PRINT_ARGS, '--batch_size', '{batch}'], /\{batch\} has no value: .*--set batch=16/u],
    ];
    for (const [args, message] of cases) {
      const result = cli(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
  });

  it('a flag variable is there or absent: --set amp= leaves it out, and --vary amp=,--amp sweeps it', () => {
    const without = runOf(cli(['run', '--json', '--set', 'amp=', '--', ...PRINT_ARGS, '--steps', '3', '{amp}']));
    expect(argsOf(without)).toEqual(['--steps', '3']);
    const sweep = cli(['sweep', '--json', '--repeats', '1', '--no-wait-idle', '--vary', 'amp=,--amp', '--', ...PRINT_ARGS, '--steps', '3', '{amp}']);
    expect(sweep.status, sweep.stderr).toBe(0);
    const configs = (JSON.parse(sweep.stdout) as { configs: Array<{ values: Record<string, string>; runIds: number[] }> }).configs;
    expect(configs.map((config) => config.values.amp)).toEqual(['', '--amp']);
    const commands = configs.map((config) => argsOf(runOf(cli(['show', '--json', String(config.runIds[0])]))));
    expect(commands).toEqual([
      ['--steps', '3'],
      ['--steps', '3', '--amp'],
    ]);
  });

  it('sweeping an empty value of a variable that needs one is refused before anything runs', () => {
    const before = runIds();
    const result = cli(['sweep', '--repeats', '1', '--no-wait-idle', '--vary', 'bs=,4', '--', ...PRINT_ARGS, '--bs', '{bs}']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/\{bs\} has no value/u);
    expect(runIds()).toEqual(before);
  });
});

describe('an import says what it found and what is missing (item 3)', () => {
  it('a log whose lines mention epoch but hold no loss or step time offers the regex, as the same log with "ep" does', () => {
    for (const word of ['epoch', 'ep']) {
      const log = path.join(dir, `${word}.log`);
      fs.writeFileSync(log, Array.from({ length: 30 }, (_, i) => `[${word} 1 | it ${i + 1}/30] l=${(2.31 - i * 0.01).toFixed(2)} tm=45\n`).join(''));
      const result = cli(['import', log]);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout, word).toMatch(/metrics +no step time, throughput or loss found/u);
      expect(result.stdout, word).toMatch(/--regex/u);
    }
  });

  it('a log with step times but no loss says the loss is missing and how to teach it', () => {
    const log = capturedFixture('training-logs', 'nanogpt-1.log');
    const withLoss = cli(['import', log]);
    expect(withLoss.stdout).toMatch(/metrics +from the terminal output: step times and loss/u);
    const noLoss = path.join(dir, 'noloss.log');
    fs.writeFileSync(noLoss, Array.from({ length: 20 }, (_, i) => `[epoch 1 | batch ${i + 1}/20] l=2.31 t=45ms\n`).join(''));
    const result = cli(['import', noLoss]);
    expect(result.stdout).toMatch(/metrics +from the terminal output: step times; no loss found/u);
    expect(result.stdout).toMatch(/--regex/u);
  });
});

describe('"samples" means training samples only (item 15)', () => {
  it('a run without parsed metrics says it has no parsed metric values, and what metrics lists is named so in its help', () => {
    const logFile = path.join(dir, 'words.log');
    fs.writeFileSync(logFile, 'starting\nall done\n');
    const run = runOf(cli(['import', '--json', logFile]));
    const metrics = cli(['metrics', String(run.id)]);
    expect(metrics.status).toBe(0);
    expect(metrics.stdout).toContain(`run ${run.id} has no parsed metric values`);
    const help = cli(['metrics', '--help']).stdout;
    expect(help).toContain('parsed metric values');
    expect(`${metrics.stdout}${help}`).not.toMatch(/metric samples/u);
  });
});
