// Checks the synthetic workload keeps its contract: formula-following throughput, falling loss,
// reproducible numbers, OOM/usage exits, load file and worker processes.
import { median } from 'simple-statistics';
import { describe, it, expect } from 'vitest';
import { execFile, type ExecFileException } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const SCRIPT = resolve(import.meta.dirname, '../../resources/workloads/synthetic/train.js');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
  pid: number;
  wallMs: number;
}

interface StepLine {
  step: number;
  loss: number;
  tokPerSec: number;
  msPerStep: number;
}

/** A colour-neutral environment: the test runner may set FORCE_COLOR for its own output. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (!('FORCE_COLOR' in extra)) delete env.FORCE_COLOR;
  if (!('NO_COLOR' in extra)) delete env.NO_COLOR;
  if (!('SYNTHETIC_MAX_BATCH' in extra)) delete env.SYNTHETIC_MAX_BATCH;
  if (!('TUNING_BENCH_LOAD_FILE' in extra)) delete env.TUNING_BENCH_LOAD_FILE;
  return env;
}

function runSynthetic(args: string[], env: Record<string, string> = {}, onSpawn?: (pid: number) => void): Promise<Result> {
  return new Promise((done) => {
    const started = performance.now();
    const child = execFile(process.execPath, [SCRIPT, ...args], { env: cleanEnv(env), timeout: 20_000 }, (err: ExecFileException | null, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      done({ code, stdout, stderr, pid: child.pid ?? -1, wallMs: performance.now() - started });
    });
    if (child.pid !== undefined) onSpawn?.(child.pid);
  });
}

function stepLines(stdout: string): StepLine[] {
  const re = /^step (\d+): loss (nan|\d+\.\d{3}), (\d+) tok\/s, (\d+\.\d) ms\/step$/gm;
  return [...stdout.matchAll(re)].map((m) => ({
    step: Number(m[1]),
    loss: m[2] === 'nan' ? NaN : Number(m[2]),
    tokPerSec: Number(m[3]),
    msPerStep: Number(m[4]),
  }));
}

function expected(stdout: string): { tokPerSec: number; msPerStep: number } {
  const m = /^synthetic: expected steady (\d+\.\d) tok\/s, (\d+\.\d{2}) ms\/step$/m.exec(stdout);
  if (!m) throw new Error(`no expected line in:\n${stdout}`);
  return { tokPerSec: Number(m[1]), msPerStep: Number(m[2]) };
}

/** The same formula as the script's header comment, written out independently. */
function formula(batch: number, workers: number, amp: boolean, compile: boolean, seqLen = 256): number {
  const compute = (2.0 + 0.75 * batch) * (amp ? 0.55 : 1) * (compile ? 0.7 : 1);
  const data = 0.5 * batch;
  const step = workers === 0 ? compute + data : Math.max(compute, data / workers) + 0.2;
  return ((batch * seqLen) / step) * 1000;
}

/** Pids of this script's data-loader workers (Linux /proc). */
function workerPids(parentPid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.includes('synthetic-dataloader-worker') && argv.includes(`parent=${parentPid}`)) {
        pids.push(Number(entry));
      }
    } catch {
      // the process went away while we looked
    }
  }
  return pids;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('synthetic workload', () => {
  const configs = [
    { name: 'defaults', args: [], batch: 8, workers: 0, amp: false, compile: false },
    {
      name: 'batch 16, 2 workers, amp, compile',
      args: ['--batch-size', '16', '--workers', '2', '--amp', '--compile', 'on'],
      batch: 16,
      workers: 2,
      amp: true,
      compile: true,
    },
    { name: 'batch 4, amp bf16', args: ['--batch-size', '4', '--amp', 'bf16'], batch: 4, workers: 0, amp: true, compile: false },
  ];

  for (const c of configs) {
    it(`follows the formula after warm-up: ${c.name}`, async () => {
      const r = await runSynthetic([...c.args, '--steps', '60', '--log-every', '10']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('\x1b['); // not a TTY, no colour asked
      expect(r.stdout).not.toContain('\r'); // and no progress bar

      const onOff = (b: boolean) => (b ? 'on' : 'off');
      expect(r.stdout).toContain(`synthetic: batch=${c.batch} workers=${c.workers} amp=${onOff(c.amp)} compile=${onOff(c.compile)} steps=60 seed=0`);
      const exp = expected(r.stdout);
      expect(exp.tokPerSec).toBeCloseTo(formula(c.batch, c.workers, c.amp, c.compile), 0);

      const lines = stepLines(r.stdout);
      expect(lines.map((l) => l.step)).toEqual([10, 20, 30, 40, 50, 60]);
      // Warm-up (5 steps) or compile (10 steps) is inside the first line and makes it slow.
      expect(lines[0]!.tokPerSec).toBeLessThan(exp.tokPerSec * 0.8);
      const steady = lines.filter((l) => l.step > 10);
      expect(Math.abs(median(steady.map((l) => l.tokPerSec)) / exp.tokPerSec - 1)).toBeLessThan(0.03);
      expect(Math.abs(median(steady.map((l) => l.msPerStep)) / exp.msPerStep - 1)).toBeLessThan(0.03);

      // Loss falls.
      for (let i = 1; i < lines.length; i++) expect(lines[i]!.loss).toBeLessThan(lines[i - 1]!.loss);

      const evalLoss = /^eval: loss (\d+\.\d{3})$/m.exec(r.stdout);
      expect(evalLoss).not.toBeNull();
      expect(Number(evalLoss![1])).toBeCloseTo(lines.at(-1)!.loss + 0.03, 3);

      const done = /^done: 60 steps in (\d+\.\d) s$/m.exec(r.stdout);
      expect(done).not.toBeNull();
      // It really takes about as long as it says.
      expect(r.wallMs).toBeGreaterThan(Number(done![1]) * 1000 * 0.8 - 60);
    }, 20_000);
  }

  it('gives identical numbers for the same seed and different ones for another seed', async () => {
    const args = ['--steps', '30', '--log-every', '5', '--batch-size', '4'];
    const numbers = (out: string) =>
      out
        .split('\n')
        .filter((l) => /^(step|eval|done)/.test(l))
        .join('\n');
    const [a, b, c] = await Promise.all([
      runSynthetic([...args, '--seed', '7']),
      runSynthetic([...args, '--seed', '7']),
      runSynthetic([...args, '--seed', '8']),
    ]);
    expect(numbers(a.stdout)).not.toBe('');
    expect(numbers(a.stdout)).toBe(numbers(b.stdout));
    expect(numbers(a.stdout)).not.toBe(numbers(c.stdout));
  }, 20_000);

  it('dies with a CUDA OOM traceback when the batch exceeds --max-batch', async () => {
    const r = await runSynthetic(['--max-batch', '8', '--batch-size', '16']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Traceback (most recent call last):');
    expect(r.stderr).toContain('CUDA out of memory');
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 7.63 GiB of which 1.12 GiB is free.',
    );
    expect(stepLines(r.stdout)).toEqual([]);
  }, 10_000);

  it('takes the memory limit from SYNTHETIC_MAX_BATCH too', async () => {
    const over = await runSynthetic(['--batch-size', '16', '--steps', '5'], { SYNTHETIC_MAX_BATCH: '12' });
    expect(over.code).toBe(1);
    expect(over.stderr).toContain('CUDA out of memory');
    const within = await runSynthetic(['--batch-size', '12', '--steps', '5'], { SYNTHETIC_MAX_BATCH: '12' });
    expect(within.code, within.stderr).toBe(0);
  }, 10_000);

  it.each([[['--bogus']], [['--batch-size', 'abc']], [['--batch-size', '0']], [['--amp', 'maybe']], [['--steps', '10', 'extra']]])(
    'rejects bad arguments %j with exit 2',
    async (args) => {
      const r = await runSynthetic(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/error/i);
      expect(r.stdout).toBe('');
    },
    10_000,
  );

  it('prints help and exits 0', async () => {
    const r = await runSynthetic(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--batch-size');
    expect(r.stdout).toContain('--max-batch');
  });

  it('keeps training with nan loss after --nan-at', async () => {
    const r = await runSynthetic(['--steps', '20', '--log-every', '5', '--nan-at', '12']);
    expect(r.code).toBe(0);
    const losses = stepLines(r.stdout).map((l) => l.loss);
    expect(losses.slice(0, 2).every(Number.isFinite)).toBe(true);
    expect(losses.slice(2).every(Number.isNaN)).toBe(true);
    expect(r.stdout).toMatch(/^eval: loss nan$/m);
  });

  it('writes the load file while running and phase done at the end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'synthetic-load-'));
    const file = join(dir, 'load.json');
    const seen: Array<{ phase: string; util: number; vramMiB: number }> = [];
    const poll = setInterval(() => {
      try {
        seen.push(JSON.parse(readFileSync(file, 'utf8')));
      } catch {
        // not written yet
      }
    }, 25);
    try {
      const r = await runSynthetic(['--steps', '60', '--amp', 'on'], { TUNING_BENCH_LOAD_FILE: file });
      clearInterval(poll);
      expect(r.code, r.stderr).toBe(0);
      const last = JSON.parse(readFileSync(file, 'utf8'));
      expect(last).toMatchObject({ phase: 'done', util: 0, vramMiB: 0, pid: r.pid });
      expect(typeof last.t).toBe('number');
      const training = seen.find((s) => s.phase === 'train');
      expect(training).toBeDefined();
      expect(training!.vramMiB).toBe(500 + 8 * 180 * 0.6);
      expect(training!.util).toBeGreaterThan(0);
      expect(training!.util).toBeLessThanOrEqual(1);
      expect(readdirSync(dir)).toEqual(['load.json']); // no temp files left behind
    } finally {
      clearInterval(poll);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);

  it.runIf(process.platform === 'linux')(
    'runs real worker processes and stops them at exit',
    async () => {
      let parent = -1;
      let mostSeen = 0;
      let poll: ReturnType<typeof setInterval> | undefined;
      const r = await runSynthetic(['--workers', '3', '--steps', '80'], {}, (pid) => {
        parent = pid;
        // Polled rather than looked at once, so a slow machine's late start cannot fool it.
        poll = setInterval(() => {
          mostSeen = Math.max(mostSeen, workerPids(pid).length);
        }, 40);
      });
      clearInterval(poll);
      expect(r.code, r.stderr).toBe(0);
      expect(mostSeen).toBe(3);
      // SIGTERM was sent at exit; give the workers a moment to go.
      for (let i = 0; i < 20 && workerPids(parent).length > 0; i++) await sleep(50);
      expect(workerPids(parent)).toEqual([]);
    },
    20_000,
  );

  it('colours only when asked and never with NO_COLOR', async () => {
    const forced = await runSynthetic(['--steps', '3'], { FORCE_COLOR: '1' });
    expect(forced.stdout).toContain('\x1b[');
    expect(stepLines(forced.stdout)).toHaveLength(1); // step lines stay plain
    const vetoed = await runSynthetic(['--steps', '3'], { FORCE_COLOR: '1', NO_COLOR: '1' });
    expect(vetoed.stdout).not.toContain('\x1b[');
  });
});
