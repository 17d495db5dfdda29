// Profiles that tell the truth on unmodified scripts: a window of steady steps (an evaluation every few steps left out,
// steps numbered as the script prints them), input time outside a DataLoader found, no sync talk where nothing waits
// for a device, the profiler's own overhead measured, the trace marked with steps and phases, every operator compared,
// and a Python without torch said to be one.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../electron/shared/api.js';
import type { RunProfile } from '../../electron/shared/profile.js';
import { compareProfiles } from '../../electron/core/profile/compareProfiles.js';
import { profileMarkdown } from '../../electron/core/profile/profileMarkdown.js';
import { makeTempDir, REPO_ROOT, tempCore, type TempCore } from '../helpers/tempCore.js';
import { assertTorch, skipTorchTests, TORCH_PYTHON } from '../helpers/torch.js';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/profiling');

let harness: TempCore | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

async function profiled(
  h: TempCore,
  command: string[],
  cwd: string,
  window: { warmupSteps: number; steps: number },
): Promise<{ run: Run; profile: RunProfile; output: string }> {
  const started = h.core.startCommand({ adHoc: { command, cwd }, profile: window });
  const run = await h.core.runner.waitForExit(started.id);
  const output = h.core.store.runs
    .outputAfter(run.id, -1)
    .map((c) => c.data.toString())
    .join('');
  const profile = h.core.store.profiles.forRun(run.id);
  expect(profile, output).not.toBeNull();
  return { run, profile: profile!, output };
}

/** nanoGPT's data layout: uint16 token ids in data/shakespeare_char/{train,val}.bin. */
function writeTokens(dir: string): void {
  const data = path.join(dir, 'data/shakespeare_char');
  fs.mkdirSync(data, { recursive: true });
  for (const [split, count] of [
    ['train', 50_000],
    ['val', 5_000],
  ] as const) {
    const tokens = new Uint16Array(count);
    for (let i = 0; i < count; i += 1) tokens[i] = (i * 7919) % 65;
    fs.writeFileSync(path.join(data, `${split}.bin`), Buffer.from(tokens.buffer));
  }
}

describe.skipIf(skipTorchTests('profileTruth.test.ts'))('profiles that tell the truth on unmodified scripts', () => {
  beforeAll(assertTorch);

  it('leaves out the steps that hold an evaluation, runs on to keep 10 steady ones, and numbers them as the script does', async () => {
    harness = tempCore();
    writeTokens(harness.dir);
    // nanoGPT's loop: estimate_loss() every 5 iterations; the default window (after 10 warm-up steps, 10 steps) holds two of them.
    const { run, profile, output } = await profiled(
      harness,
      [TORCH_PYTHON, path.join(FIXTURES, 'nano_loop.py'), '--iters', '34', '--eval-interval', '5', '--eval-iters', '5'],
      harness.dir,
      { warmupSteps: 10, steps: 10 },
    );
    expect(run.status, output).toBe('succeeded');
    expect(profile).toMatchObject({ status: 'ok', device: 'cpu', keptSteps: 10, numbering: { by: 'script', offset: -1 } });
    // The script's iterations from 10: 10, 15 and 20 evaluate, and are left out (so are steps this busy machine slowed
    // to twice the median, as outliers: then the window runs longer still).
    const left = profile.steps.filter((s) => s.leftOut !== null);
    const evaluations = left.filter((s) => s.leftOut!.startsWith('an evaluation: '));
    expect(evaluations.map((s) => s.scriptStep)).toEqual(profile.steps.map((s) => s.scriptStep!).filter((n) => n % 5 === 0));
    expect(evaluations.map((s) => s.scriptStep).slice(0, 3)).toEqual([10, 15, 20]);
    for (const step of evaluations) expect(step.leftOut).toMatch(/^an evaluation: \d+\.\d ms of forward passes without gradients/u);
    for (const step of left) expect(step.leftOut).toMatch(/^an (evaluation|outlier): /u);
    expect(profile.window).toEqual({ fromStep: 10, toStep: 9 + profile.steps.length });
    expect(profile.notes.join('\n')).toContain('left out of the means and operators: step 10 (an evaluation');
    expect(profile.notes.join('\n')).toContain(`the window ran ${profile.steps.length} steps to keep 10`);
    // The operators are the kept steps': one forward pass (one embedding lookup) per training step, none of the evaluations'.
    expect(profile.ops.find((op) => op.name === 'aten::embedding')!.calls).toBe(1);
    expect(profile.opsComplete).toBe(true);

    // get_batch() is the script's own batch code, called by the loop: input, with its definition said.
    expect(profile.input).toMatchObject({ traced: true });
    expect(profile.input!.definition).toContain("the script's own batch code");
    expect(profile.input!.functions[0]!.function).toMatch(/^get_batch \(nano_loop\.py:\d+\)$/u);
    expect(profile.phases.inputMs!).toBeGreaterThan(0);
    const sum = ['dataLoadingMs', 'inputMs', 'forwardMs', 'backwardMs', 'optimizerMs', 'otherMs'] as const;
    expect(sum.reduce((total, key) => total + profile.phases[key]!, 0)).toBeCloseTo(profile.phases.stepMs!, 6);

    // On a CPU nothing waits for a device: the hundreds of .item() calls (memmap indexing, AdamW's step count) are not syncs.
    expect(profile.syncs).toBeNull();
    expect(profile.diagnosis.join('\n')).not.toMatch(/item\(\)|sync/u);

    // The profiler's overhead, against the run's own unprofiled steady steps.
    expect(profile.overhead).toMatchObject({ source: 'this run', unprofiledStepMs: run.summary.stepTimeMs.median });
    expect(profile.overhead!.profiledStepMs).toBeCloseTo(profile.phases.stepMs!, 6);
    expect(profileMarkdown(profile)).toContain(`Overhead: ${profile.overhead!.statement}`);

    // The trace: a slice per step (its boundary number) and per phase on named tracks, which Perfetto shows as rows.
    type TraceEvent = { name: string; ph: string; tid?: unknown; args?: Record<string, unknown> };
    const trace = JSON.parse(fs.readFileSync(profile.tracePath!, 'utf8')) as { traceEvents: TraceEvent[] } | TraceEvent[];
    const events = Array.isArray(trace) ? trace : trace.traceEvents;
    const track = (name: string) => events.find((e) => e.ph === 'M' && e.name === 'thread_name' && String(e.args?.name).startsWith(name))?.tid;
    const steps = events.filter((e) => e.ph === 'X' && e.tid === track('Tuning Bench: steps'));
    expect(steps.map((e) => e.name)).toEqual(profile.steps.map((s) => `step ${s.step}${s.leftOut ? ' (left out)' : ''}`));
    const phaseNames = new Set(events.filter((e) => e.ph === 'X' && e.tid === track('Tuning Bench: phases')).map((e) => e.name));
    expect([...phaseNames].sort()).toEqual(['backward', 'forward', "input (script's batch code)", 'optimizer']);
  }, 120_000);

  for (const style of ['function', 'generator', 'method'] as const) {
    it(`finds the input time of a hand-written batch ${style} (no DataLoader) and calls the run input-bound`, async () => {
      harness = tempCore();
      const batchMs = 25;
      const { profile, output } = await profiled(
        harness,
        [TORCH_PYTHON, path.join(FIXTURES, 'hand_batches.py'), '--style', style, '--steps', '24', '--batch-ms', String(batchMs)],
        harness.dir,
        { warmupSteps: 4, steps: 8 },
      );
      expect(profile.status, output).toBe('ok');
      expect(profile.phases.dataLoadingMs).toBe(0);
      expect(profile.phases.inputMs!).toBeGreaterThanOrEqual(batchMs);
      const where = {
        function: /^get_batch \(hand_batches\.py:\d+\)$/u,
        generator: /^batches \(hand_batches\.py:\d+\)$/u,
        method: /^next_batch \(hand_batches\.py:\d+\)$/u,
      }[style];
      expect(profile.input!.functions[0]!.function).toMatch(where);
      expect(profile.diagnosis[0]).toMatch(/^input-bound: \d+ % of each step is input: \d+ % in the script's own batch code/u);
    }, 90_000);
  }

  it('says nothing of syncs for .item() on CPU tensors (in a Dataset, and loss.item() each step)', async () => {
    harness = tempCore();
    const { profile, output } = await profiled(harness, [TORCH_PYTHON, path.join(FIXTURES, 'dataset_items.py'), '--steps', '24'], harness.dir, {
      warmupSteps: 4,
      steps: 8,
    });
    expect(profile.status, output).toBe('ok');
    expect(profile.ops.find((op) => op.name === 'aten::item')!.calls).toBeGreaterThan(32);
    expect(profile.syncs).toBeNull();
    const printed = profileMarkdown(profile);
    expect(printed).not.toMatch(/sync|item\(\)/u);
    // The DataLoader's wait is input by its definition.
    expect(profile.input!.definition).toContain('DataLoader');
  }, 90_000);

  it('compares every operator of either side, none shown as unknown', async () => {
    harness = tempCore();
    const run = (style: string, batchMs: string) =>
      profiled(harness!, [TORCH_PYTHON, path.join(FIXTURES, 'hand_batches.py'), '--style', style, '--steps', '16', '--batch-ms', batchMs], harness!.dir, {
        warmupSteps: 3,
        steps: 5,
      });
    const slow = await run('function', '20');
    const fast = await run('generator', '1');
    const comparison = compareProfiles(fast.profile, slow.profile);
    const names = new Set([...fast.profile.ops, ...slow.profile.ops].map((op) => op.name));
    expect(comparison.ops).toHaveLength(names.size);
    for (const op of comparison.ops) {
      expect(op.ms).not.toBeNull();
      expect(op.baselineMs).not.toBeNull();
    }
    expect(comparison.phases.find((p) => p.name === 'input')!.deltaMs!).toBeLessThan(-10);
  }, 90_000);
});

describe('profiling with a Python that has no torch', () => {
  const dir = makeTempDir('tb-notorch-');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('says the interpreter cannot import torch (not that the command never imported it), and whether py-spy and nsys are installed', async () => {
    // A virtual environment of its own: a Python without torch on any machine.
    const venv = path.join(dir, 'venv');
    execFileSync(TORCH_PYTHON, ['-m', 'venv', '--without-pip', venv]);
    const python = path.join(venv, 'bin', 'python');
    harness = tempCore();
    const started = harness.core.startCommand({
      adHoc: { command: [python, '-c', 'import torch'], cwd: dir, env: { PATH: '/usr/bin:/bin' } },
      profile: { warmupSteps: 10, steps: 10 },
    });
    const run = await harness.core.runner.waitForExit(started.id);
    expect(run.exitReason).toContain("ModuleNotFoundError: No module named 'torch'");
    const profile = harness.core.store.profiles.forRun(run.id)!;
    expect(profile.status).toBe('empty');
    expect(profile.notes[0]).toBe(
      `the script imports torch, but this Python (${python}) cannot import it (ModuleNotFoundError: No module named 'torch'): ` +
        'install PyTorch for this interpreter, or run the command with a Python that has it',
    );
    expect(profile.notes.join('\n')).not.toContain('never imported torch');
    expect(profile.notes.some((note) => /^py-spy is not installed \(not on PATH\)/u.test(note))).toBe(true);
    expect(profile.notes.some((note) => /^nsys is not installed \(not on PATH\)/u.test(note))).toBe(true);
  }, 60_000);
});
