// `run --knob` and `sweep --vary knob.NAME` as a user types them: a real pty, a real SQLite file, real PyTorch on the CPU.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as runSchema, type Run } from '../../electron/shared/api.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir, REPO_ROOT } from '../helpers/tempCore.js';
import { assertTorch, skipTorchTests, TORCH_PYTHON } from '../helpers/torch.js';

const dir = makeTempDir('tb-knobs-cli-');
const db = path.join(dir, 'runs.db');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/knobs/slow_loader.py');
const SCRIPT = path.join(dir, 'slow_loader.py');
const loaderLine = () =>
  fs
    .readFileSync(SCRIPT, 'utf8')
    .split('\n')
    .findIndex((line) => line.includes('DataLoader(dataset, batch_size=None)')) + 1;

function runJson(args: string[]): Run {
  const result = runCli(['--db', db, ...args], { cwd: dir, timeoutMs: 120_000 });
  expect(result.status, result.stderr).toBe(0);
  return runSchema.parse(JSON.parse(result.stdout));
}

describe.skipIf(skipTorchTests('knobsCli.test.ts'))('knobs from the CLI', () => {
  beforeAll(() => {
    assertTorch();
    fs.copyFileSync(FIXTURE, SCRIPT);
  });

  it('runs an unmodified script with --knob, records the knobs, where each applied, and the faster steps', () => {
    // --cwd: under npm the CLI runs where `npm test` was typed (INIT_CWD); the script is here.
    const command = ['--cwd', dir, '--', TORCH_PYTHON, 'slow_loader.py', '--steps', '30', '--sleep-ms', '40'];
    const plain = runJson(['run', '--json', ...command]);
    const tuned = runJson(['run', '--json', '--knob', 'workers=4', '--knob', 'autocast=bf16', '--knob', 'tf32', ...command]);
    expect(plain.knobs).toBeNull();
    expect(tuned.config).toEqual({ 'knob.workers': '4', 'knob.autocast': 'bf16', 'knob.tf32': 'on' });
    expect(tuned.knobs).toMatchObject({ requested: { workers: '4', autocast: 'bf16', tf32: 'on' }, cuda: false });
    const byName = Object.fromEntries(tuned.knobs!.knobs.map((k) => [k.name, k]));
    expect(byName.workers).toMatchObject({ state: 'applied', outcomes: [{ what: 'num_workers=4 (was 0)', file: SCRIPT, line: loaderLine() }] });
    expect(byName.autocast!.state).toBe('applied');
    expect(byName.tf32).toMatchObject({ state: 'skipped', outcomes: [{ reason: expect.stringMatching(/^no CUDA device here/u) }] });
    // The engine's own steady step time, from the lines the script printed: workers overlap the 40 ms waits.
    expect(tuned.summary.stepTimeMs.median).not.toBeNull();
    expect(tuned.summary.stepTimeMs.median!).toBeLessThan(plain.summary.stepTimeMs.median! * 0.5);

    const shown = runCli(['--db', db, 'show', String(tuned.id)]);
    expect(shown.stdout).toContain('knobs     in force: workers=4 autocast=bf16 (torch ');
    expect(shown.stdout).toContain(`workers=4: applied at slow_loader.py:${loaderLine()} (num_workers=4 (was 0))`);
    expect(shown.stdout).toMatch(/tf32=on: skipped at slow_loader\.py:\d+ \(no CUDA device here/u);
  });

  it('refuses an unknown knob or a bad value before anything runs, naming the valid ones', () => {
    const unknown = runCli(['--db', db, 'run', '--knob', 'amp=bf16', '--', TORCH_PYTHON, 'slow_loader.py'], { cwd: dir });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('--knob no knob "amp": the knobs are workers=1-64|off, pinMemory=on|off,');
    const bad = runCli(['--db', db, 'sweep', '--vary', 'knob.autocast=off,fp8', '--', TORCH_PYTHON, 'slow_loader.py'], { cwd: dir });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--vary knob.autocast: "fp8" is not one of its values (bf16|fp16|off)');
  });

  it('sweeps a knob like any variable: each config records its knobs, the baseline none in force', () => {
    const result = runCli(
      [
        '--db',
        db,
        'sweep',
        '--json',
        '--cwd',
        dir,
        '--repeats',
        '1',
        '--no-wait-idle',
        '--vary',
        'knob.workers=off,2',
        '--',
        TORCH_PYTHON,
        'slow_loader.py',
        '--steps',
        '8',
        '--sleep-ms',
        '5',
      ],
      { cwd: dir, timeoutMs: 180_000 },
    );
    expect(result.status, result.stderr).toBe(0);
    const sweep = JSON.parse(result.stdout) as { configs: Array<{ name: string; config: Record<string, string>; runIds: number[] }> };
    expect(sweep.configs.map((c) => [c.name, c.config])).toEqual([
      ['baseline', { 'knob.workers': 'off' }],
      ['+knob.workers=2', { 'knob.workers': '2' }],
    ]);
    const [baseline, withWorkers] = sweep.configs.map((c) => runJson(['show', String(c.runIds[0]), '--json']));
    expect(baseline!.knobs!.knobs).toEqual([{ name: 'workers', value: 'off', state: 'unused', outcomes: [] }]);
    expect(withWorkers!.knobs!.knobs[0]).toMatchObject({ name: 'workers', value: '2', state: 'applied', outcomes: [{ line: loaderLine() }] });
    // The command itself is the same: the knob is no part of it.
    expect(withWorkers!.command).toEqual(baseline!.command);
  });
});
