// The built-in PyTorch workload (resources/workloads/charlm) and its metrics helper
// (resources/python/tuning_bench.py), run for real with Python.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { assertTorch, skipTorchTests, TORCH_PYTHON } from '../helpers/torch.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TRAIN = path.join(ROOT, 'resources/workloads/charlm/train.py');
const HELPER_DIR = path.join(ROOT, 'resources/python');
/** The Python that trains (test/helpers/torch.ts). */
const SYSTEM_PYTHON = TORCH_PYTHON;
/** Any Python 3 for the tests that need no torch. */
const PYTHON = fs.existsSync(SYSTEM_PYTHON) ? SYSTEM_PYTHON : 'python3';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-charlm-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? '';
}

/** Why a Python cannot run these tests, or null when it can. */
function probe(python: string, code: string, what: string): string | null {
  const result = spawnSync(python, ['-c', code], { encoding: 'utf8', timeout: 120_000 });
  if (result.error) return `${python} cannot be run (${result.error.message})`;
  if (result.status !== 0) return `${python} ${what} (${lastLine(result.stderr) || `exit ${result.status}`})`;
  return null;
}

const noPython = probe(PYTHON, 'import sys; assert sys.version_info >= (3, 8)', 'is not Python 3.8+');
const skipTorch = skipTorchTests('charlm.test.ts');
/** Python itself is a prerequisite (README): without it these tests fail, saying why. */
function assertPython(): void {
  if (noPython !== null) throw new Error(`${noPython}: install Python 3.8 or newer`);
}

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, with a clean environment as a pty run would give (no inherited channel). */
function run(command: string, args: string[], env: Record<string, string | undefined> = {}): Promise<Finished> {
  const base: NodeJS.ProcessEnv = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };
  delete base.TUNING_BENCH_METRICS;
  delete base.PYTHONPATH;
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: dir, env: base, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

type JsonLine = Record<string, unknown>;

function readLines(file: string): JsonLine[] {
  const text = fs.readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JsonLine);
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

describe('charlm: the built-in PyTorch workload', () => {
  it.skipIf(skipTorch)(
    'trains 30 steps on CPU with bf16 and reports every step on both channels',
    async () => {
      assertTorch();
      const metrics = path.join(dir, 'train.jsonl');
      // No PYTHONPATH: the script finds resources/python by itself.
      const result = await run(SYSTEM_PYTHON, [TRAIN, '--steps', '30', '--amp', 'bf16', '--threads', '2', '--eval-every', '15'], {
        TUNING_BENCH_METRICS: metrics,
      });
      expect(result.code, result.stderr).toBe(0);

      const lines = readLines(metrics);
      const steps = lines.filter((line) => line.event === undefined);
      expect(steps.map((line) => line.step)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      for (const line of steps) {
        expect(typeof line.t).toBe('number');
        expect(line.tokens).toBe(16 * 128);
        expect(line.samples).toBe(16);
        for (const key of ['loss', 'lr', 'step_time_ms', 'grad_norm']) {
          expect(Number.isFinite(line[key]), `${key} of step ${String(line.step)}: ${String(line[key])}`).toBe(true);
        }
        expect(line.step_time_ms as number).toBeGreaterThan(0);
      }
      const losses = steps.map((line) => line.loss as number);
      expect(mean(losses.slice(-5))).toBeLessThan(mean(losses.slice(0, 5)));

      const events = lines.filter((line) => line.event !== undefined);
      expect(events[0]).toMatchObject({ event: 'config', step: null, batch_size: 16, seq_len: 128, amp: 'bf16', threads: 2, device: 'cpu' });
      const evals = events.filter((line) => line.event === 'eval');
      expect(evals.map((line) => line.step)).toEqual([15, 30]);
      for (const line of evals) expect(Number.isFinite(line.loss)).toBe(true);
      expect(events.at(-1)).toMatchObject({ event: 'done', step: 30 });

      const out = result.stdout;
      expect(out).toMatch(/^charlm: torch \S+, Python \S+ \(.+\), device cpu, threads 2\b/mu);
      expect(out).toMatch(/^step 30: loss \d+\.\d{3}, \d+ tok\/s, \d+\.\d ms\/step$/mu);
      expect(out.match(/^step \d+: loss \d+\.\d{3}, \d+ tok\/s, \d+\.\d ms\/step$/gmu)).toHaveLength(3);
      expect(out).toMatch(/^eval: step 15 loss \d+\.\d{3}$/mu);
      expect(out).toMatch(/^eval: step 30 loss \d+\.\d{3}$/mu);
      expect(out).toMatch(/^done: 30 steps in [\d.]+ s .*steady [\d.]+ steps\/s, \d+ tok\/s, [\d.]+ ms\/step/mu);
    },
    180_000,
  );

  it('exits 3 with one clear line naming the Python when torch cannot be imported', async () => {
    assertPython();
    // A torch module that fails to import, first on the path: a real ImportError in the real import statement.
    const fakeDir = path.join(dir, 'no-torch');
    fs.mkdirSync(fakeDir, { recursive: true });
    fs.writeFileSync(path.join(fakeDir, 'torch.py'), 'raise ModuleNotFoundError("No module named \'torch\'", name="torch")\n');
    const executable = spawnSync(PYTHON, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim();
    const metrics = path.join(dir, 'no-torch.jsonl');

    const result = await run(PYTHON, [TRAIN, '--steps', '5'], { PYTHONPATH: fakeDir, TUNING_BENCH_METRICS: metrics });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain('Traceback');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`charlm: PyTorch is not installed for ${executable} (Python 3.`);
    expect(result.stderr).toContain('apt-get install python3-torch');
    expect(result.stderr).toContain('the workload\'s "python" variable');
    expect(fs.existsSync(metrics)).toBe(false);

    // --help needs no torch.
    const help = await run(PYTHON, [TRAIN, '--help'], { PYTHONPATH: fakeDir });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--batch-size');
  }, 60_000);
});

describe('tuning_bench.py: the structured metrics channel', () => {
  const python = (code: string, env: Record<string, string | undefined>) => run(PYTHON, ['-c', code], { PYTHONPATH: HELPER_DIR, ...env });

  it('does nothing without TUNING_BENCH_METRICS', async () => {
    assertPython();
    const before = fs.readdirSync(dir);
    const result = await python(
      [
        'import tuning_bench as tb',
        'assert not tb.enabled() and tb.metrics_path() is None',
        'tb.log(step=1, loss=2.0, tokens=10)',
        'tb.log_event("config", batch_size=8)',
        'print("ok")',
      ].join('\n'),
      { TUNING_BENCH_METRICS: undefined },
    );
    expect(result).toMatchObject({ code: 0, stdout: 'ok\n', stderr: '' });
    expect(fs.readdirSync(dir)).toEqual(before);
  });

  it('writes one valid JSON object per line, NaN and infinities as strings', async () => {
    assertPython();
    const file = path.join(dir, 'values.jsonl');
    const result = await python(
      [
        'import tuning_bench as tb',
        'tb.log(step=1, loss=float("nan"), tokens=2048, samples=16, lr=3e-3, grad_norm=float("inf"), step_time_ms=12.5)',
        'tb.log(step=2.0, loss=-float("inf"), eval_loss=None)',
        'tb.log_event("config", batch_size=8, amp="bf16", compile=False, shapes=[1, float("nan")], t=5, event="x")',
        'tb.log_event("eval", step=2, loss=1.5)',
        'tb.log()',
      ].join('\n'),
      { TUNING_BENCH_METRICS: file },
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const raw = fs.readFileSync(file, 'utf8');
    expect(raw).not.toMatch(/\bNaN\b|\bInfinity\b/u);
    const lines = readLines(file);
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(typeof line.t).toBe('number');
    expect(lines[0]).toEqual({ t: lines[0]!.t, step: 1, loss: 'nan', tokens: 2048, samples: 16, lr: 3e-3, grad_norm: 'inf', step_time_ms: 12.5 });
    expect(lines[1]).toEqual({ t: lines[1]!.t, step: 2, loss: '-inf' });
    expect(lines[2]).toEqual({ t: lines[2]!.t, step: null, event: 'config', batch_size: 8, amp: 'bf16', compile: false, shapes: [1, 'nan'] });
    expect(lines[3]).toEqual({ t: lines[3]!.t, step: 2, event: 'eval', loss: 1.5 });
    expect(lines[4]).toEqual({ t: lines[4]!.t, step: null });
  });

  it('keeps lines whole when threads and a forked process log at once', async () => {
    assertPython();
    const file = path.join(dir, 'threads.jsonl');
    const result = await python(
      [
        'import os, threading, tuning_bench as tb',
        'def work(proc, k):',
        '    for i in range(400):',
        '        tb.log(step=i, loss=1.0, proc=proc, thread=k, pad="x" * (50 + (i * 37) % 900))',
        'tb.log_event("start")  # opened before the fork: the child shares the descriptor',
        'pid = os.fork()',
        'proc = 1 if pid == 0 else 0',
        'threads = [threading.Thread(target=work, args=(proc, k)) for k in range(6)]',
        'for t in threads: t.start()',
        'for t in threads: t.join()',
        'if pid == 0: os._exit(0)',
        'os.waitpid(pid, 0)',
      ].join('\n'),
      { TUNING_BENCH_METRICS: file },
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = readLines(file).filter((line) => line.event === undefined);
    expect(lines).toHaveLength(2 * 6 * 400);
    const seen = new Set(lines.map((line) => `${String(line.proc)}/${String(line.thread)}/${String(line.step)}`));
    expect(seen.size).toBe(2 * 6 * 400);
  });

  it('never raises into the loop: a broken path warns once; a removed file is created again', async () => {
    assertPython();
    const broken = await python(
      ['import tuning_bench as tb', 'for i in range(5): tb.log(step=i, loss=1.0)', 'tb.log_event("done")', 'print("still training")'].join('\n'),
      { TUNING_BENCH_METRICS: path.join(dir, 'missing-dir', 'm.jsonl') },
    );
    expect(broken.code).toBe(0);
    expect(broken.stdout).toBe('still training\n');
    expect(broken.stderr.match(/tuning_bench: metrics channel/gu)).toHaveLength(1);

    const file = path.join(dir, 'rotated.jsonl');
    const rotated = await python(
      ['import os, tuning_bench as tb', 'tb.log(step=1, loss=1.0)', 'os.remove(os.environ["TUNING_BENCH_METRICS"])', 'tb.log(step=2, loss=1.0)'].join('\n'),
      { TUNING_BENCH_METRICS: file },
    );
    expect(rotated).toMatchObject({ code: 0, stderr: '' });
    expect(readLines(file).map((line) => line.step)).toEqual([2]);
  });
});
