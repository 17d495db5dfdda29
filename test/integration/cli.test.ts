// The CLI contract of DESIGN.md, driven as a script would drive it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run as runSchema } from '../../electron/shared/api.js';
import { runCli } from '../helpers/cli.js';
import { capturedFixture } from '../helpers/fixtures.js';
import { makeTempDir, REPO_ROOT, SYNTHETIC_TRAIN } from '../helpers/tempCore.js';

const dir = makeTempDir();
const db = path.join(dir, 'runs.db');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('tuning-bench run / show / runs / log', () => {
  let runId = 0;

  it('runs the synthetic trainer and stores every byte it wrote (--json)', () => {
    const loadFile = path.join(dir, 'load.json');
    const result = runCli(['--db', db, 'run', '--json', '--', 'node', SYNTHETIC_TRAIN, '--steps', '50'], {
      env: { TUNING_BENCH_LOAD_FILE: loadFile },
    });
    expect(result.status, result.stderr).toBe(0);
    const run = runSchema.parse(JSON.parse(result.stdout));
    expect(run).toMatchObject({ status: 'succeeded', exitCode: 0, exitClass: 'ok', signal: null });
    expect(run.command).toEqual(['node', SYNTHETIC_TRAIN, '--steps', '50']);
    expect(run.summary).toHaveProperty('throughput');
    expect(run.endedAt).not.toBeNull();
    const written = (JSON.parse(fs.readFileSync(loadFile, 'utf8')) as { bytesWritten: number }).bytesWritten;
    expect(run.outputBytes).toBe(written);
    // The live output went to stderr, so stdout held only the JSON.
    expect(result.stderr).toContain('step 50: loss');
    runId = run.id;
  });

  it("runs a command where it was started; INIT_CWD only when npm runs this package's own script", () => {
    const here = makeTempDir();
    const ownPackage = { npm_package_name: 'tuning-bench', npm_package_json: path.join(REPO_ROOT, 'package.json') };
    const cwdOf = (result: ReturnType<typeof runCli>) => {
      expect(result.status, result.stderr).toBe(0);
      return runSchema.parse(JSON.parse(result.stdout)).cwd;
    };
    // Started from `here` by a program that npm ran elsewhere (a test runner under npx): INIT_CWD is inherited, not where it stands.
    expect(cwdOf(runCli(['--db', db, 'run', '--json', '--', 'pwd'], { cwd: here, env: { INIT_CWD: REPO_ROOT, ...ownPackage } }))).toBe(here);
    // `npm run cli -- run ...` typed in `here`: npm runs it in the package's folder and says in INIT_CWD where the person stood.
    expect(cwdOf(runCli(['--db', db, 'run', '--json', '--', 'pwd'], { cwd: REPO_ROOT, env: { INIT_CWD: here, ...ownPackage } }))).toBe(here);
    // A project's own npm script that starts tuning-bench runs in that project's folder, as npm scripts do.
    const project = { npm_package_name: 'their-project', npm_package_json: path.join(here, 'package.json') };
    expect(cwdOf(runCli(['--db', db, 'run', '--json', '--', 'pwd'], { cwd: here, env: { INIT_CWD: os.tmpdir(), ...project } }))).toBe(here);
    fs.rmSync(here, { recursive: true, force: true });
  });

  it('shows the stored run, the same object as run printed', () => {
    const result = runCli(['--db', db, 'show', String(runId), '--json']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: runId, status: 'succeeded' });
    const text = runCli(['--db', db, 'show', String(runId)]);
    expect(text.stdout).toMatch(new RegExp(`run ${runId}: succeeded`));
  });

  it('runs a workload with --set, through TUNING_BENCH_DB', () => {
    const result = runCli(['run', '--workload', 'synthetic', '--set', 'batch=16', '--set', 'steps=30', '--json'], {
      env: { TUNING_BENCH_DB: db },
    });
    expect(result.status, result.stderr).toBe(0);
    const run = runSchema.parse(JSON.parse(result.stdout));
    expect(run).toMatchObject({ workloadName: 'synthetic', status: 'succeeded', config: { batch: '16', steps: '30' } });
    expect(run.command).toContain('16');
  });

  it('lists runs newest first', () => {
    const result = runCli(['--db', db, 'runs', '--json']);
    const runs = JSON.parse(result.stdout) as Array<{ id: number }>;
    expect(runs.map((r) => r.id).slice(-2)).toEqual([runId + 1, runId]);
    expect(runCli(['--db', db, 'runs']).stdout).toMatch(/ID\s+STATUS/);
  });

  it('prints the log raw or ANSI-stripped', () => {
    const raw = runCli(['--db', db, 'log', String(runId), '--raw']);
    expect(raw.stdout).toContain('\x1b[');
    const plain = runCli(['--db', db, 'log', String(runId)]);
    expect(plain.stdout).not.toContain('\x1b[');
    expect(plain.stdout).toContain('step 50: loss');
  });

  it('lists the built-in workload', () => {
    expect(runCli(['--db', db, 'workloads']).stdout).toContain('synthetic (built-in)');
  });
});

describe('tuning-bench import and metrics', () => {
  it('imports a real nanoGPT log and prints its samples', () => {
    const log = capturedFixture('training-logs', 'nanogpt-1.log');
    const imported = runCli(['--db', db, 'import', log, '--name', 'nanogpt on a 4090', '--json']);
    expect(imported.status, imported.stderr).toBe(0);
    const run = runSchema.parse(JSON.parse(imported.stdout));
    expect(run).toMatchObject({ workloadName: 'nanogpt on a 4090', status: 'succeeded', exitClass: 'ok' });
    expect(run.summary.stepTimeMs.median).toBeGreaterThan(800);
    expect(run.summary.evalLoss).toBeCloseTo(1.722, 3);

    const metrics = runCli(['--db', db, 'metrics', String(run.id), '--json']);
    const points = JSON.parse(metrics.stdout) as Array<{ step: number | null; t: number; name: string; value: number | string }>;
    expect(points).toContainEqual(expect.objectContaining({ step: 100, name: 'loss', value: 2.4049 }));
    expect(points).toContainEqual(expect.objectContaining({ step: 100, name: 'step_time_ms', value: 929.71 }));
    expect(runCli(['--db', db, 'metrics', String(run.id)]).stdout).toMatch(/^STEP\tT_S\tNAME\tVALUE/);
  });

  it('says clearly when the log to import is not there', () => {
    const result = runCli(['--db', db, 'import', '/nonexistent/train.log']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/the log \/nonexistent\/train.log does not exist .*check the path; nothing was imported/u);
    expect(result.stderr).not.toMatch(/ENOENT/u);
  });
});

describe('bad input', () => {
  it('exits 2 with a clear message for bad arguments', () => {
    const cases: Array<[string[], RegExp]> = [
      [['run'], /nothing to run/],
      [['run', '--workload', 'nope'], /no workload "nope"/],
      [['run', '--workload', 'synthetic', '--set', 'batch'], /--set takes VAR=VALUE/],
      [['run', '--workload', 'synthetic', '--set', 'lr=1'], /no variable lr/],
      [['run', '--timeout', 'soon', '--', 'true'], /positive number of seconds/],
      [['show', 'abc'], /positive whole number/],
      [['show', '999'], /no run 999/],
      [['frobnicate'], /unknown command/],
    ];
    for (const [args, message] of cases) {
      const result = runCli(['--db', db, ...args]);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
  });

  it('records a command that is not there, and says so', () => {
    const result = runCli(['--db', db, 'run', '--json', '--', 'no-such-trainer']);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ exitClass: 'not_found', status: 'failed' });
  });

  it('stops a run at --timeout and records it as timed_out', () => {
    const result = runCli(['--db', db, 'run', '--timeout', '1', '--json', '--', 'node', SYNTHETIC_TRAIN, '--steps', '100000']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'timed_out', exitClass: 'timeout' });
  });
});

describe('the installed command', () => {
  const bin = path.join(REPO_ROOT, 'bin/tuning-bench.js');
  const built = fs.existsSync(path.join(REPO_ROOT, 'dist/node/electron/cli/entry.js'));

  it.runIf(built)('runs the compiled CLI (npm test builds it first)', () => {
    const result = spawnSync(process.execPath, [bin, '--db', db, 'runs', '--json'], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toBeInstanceOf(Array);
  });

  it('on a Node older than package.json asks for, says which it needs, not a missing export deep inside', () => {
    const needed = Number(
      /^>=(\d+)$/u.exec((JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node)![1],
    );
    // This Node, told it is older (a Debian's Node 20 gave: "node:module does not provide an export named getCompileCacheDir").
    const older = path.join(dir, 'older-node.mjs');
    fs.writeFileSync(older, `Object.defineProperty(process.versions, 'node', { value: '${needed - 4}.20.2' });\n`);
    const result = spawnSync(process.execPath, ['--import', older, bin, '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(new RegExp(`^tuning-bench: needs Node\\.js ${needed} or newer; this is Node ${needed - 4}\\.20\\.2 \\(`, 'u'));
  });

  const bundled = fs.existsSync(path.join(REPO_ROOT, 'dist/cli/tuning-bench.js'));
  it.runIf(bundled)('loads the bundle, not the compiled modules, and its run finds the output writer beside it', () => {
    // Records every module Node loads, so the test sees which build ran.
    const loaded = path.join(dir, 'loaded.txt');
    const hooks = path.join(dir, 'record-loads-hooks.mjs');
    fs.writeFileSync(
      hooks,
      `import fs from 'node:fs';\nexport async function load(url, context, next) {\n  fs.appendFileSync(${JSON.stringify(loaded)}, url + '\\n');\n  return next(url, context);\n}\n`,
    );
    const hook = path.join(dir, 'record-loads.mjs');
    fs.writeFileSync(hook, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    const result = spawnSync(
      process.execPath,
      ['--import', hook, bin, '--db', db, 'run', '--json', '--', process.execPath, '-e', "console.log('step 7: loss 2.5')"],
      { encoding: 'utf8' },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'succeeded', summary: { steps: 7, finalLoss: 2.5 } });
    const urls = fs.readFileSync(loaded, 'utf8').split('\n');
    expect(urls.some((url) => url.includes('/dist/cli/tuning-bench.js'))).toBe(true);
    expect(urls.filter((url) => url.includes('/dist/node/'))).toEqual([]);
  });

  it.runIf(bundled)("keeps V8's compiled code on disk, so the next command does not compile the bundle again", () => {
    const tmp = path.join(dir, 'tmp-for-cache');
    fs.mkdirSync(tmp, { recursive: true });
    // Where os.tmpdir() points; NODE_COMPILE_CACHE unset, so only the command itself can turn the cache on.
    const env = { ...process.env, TMPDIR: tmp, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined };
    const result = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8', env });
    expect(result.status, result.stderr).toBe(0);
    const cached = fs.readdirSync(path.join(tmp, 'node-compile-cache'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(cached.length).toBeGreaterThan(0);
  });

  it.runIf(bundled)("gives the output path's threads the same cache, and never the training command", () => {
    const tmp = path.join(dir, 'tmp-for-thread-cache');
    fs.mkdirSync(tmp, { recursive: true });
    // Node's own account of its compile cache, per thread, on stderr.
    const env = { ...process.env, TMPDIR: tmp, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };
    const run = () =>
      spawnSync(process.execPath, [bin, '--db', db, 'run', '--json', '--', 'sh', '-c', 'echo "cache=${NODE_COMPILE_CACHE:-none}"'], { encoding: 'utf8', env });
    const first = run();
    expect(first.status, first.stderr).toBe(0);
    const second = run();
    expect(second.status, second.stderr).toBe(0);
    // The second command's writer thread took its compiled code from the cache the first one left.
    expect(second.stderr).toMatch(/V8 code cache for ESM \S*outputWriterWorker\.js was accepted/u);
    const runId = (JSON.parse(second.stdout) as { id: number }).id;
    const log = spawnSync(process.execPath, [bin, '--db', db, 'log', String(runId)], { encoding: 'utf8', env: { ...env, NODE_DEBUG_NATIVE: undefined } });
    expect(log.stdout).toContain('cache=none');
  });
});
