// The Python side of step profiles (resources/python/sitecustomize.py, tuning_bench_profiler/) run directly:
// it never breaks a script, hands on to the sitecustomize it shadows, and takes tuning_bench.step() as steps.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonSummary } from '../../electron/core/profile/profileFile.js';
import { makeTempDir, REPO_ROOT } from '../helpers/tempCore.js';
import { assertTorch, skipTorchTests, TORCH_PYTHON } from '../helpers/torch.js';

const HELPER_DIR = path.join(REPO_ROOT, 'resources/python');

const dir = makeTempDir('tb-profile-py-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A training loop with no optimizer: it marks its own steps. */
const MANUAL_STEPS = `
import torch, tuning_bench as tb
w = torch.randn(64, 64, requires_grad=True)
for i in range(12):
    loss = (torch.randn(32, 64) @ w).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
        w.grad = None
    tb.step()
print("trained", flush=True)
`;

function python(code: string, env: Record<string, string>, pythonPath = HELPER_DIR) {
  const base: NodeJS.ProcessEnv = { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: pythonPath, ...env };
  delete base.TUNING_BENCH_METRICS;
  return spawnSync(TORCH_PYTHON, ['-c', code], { cwd: dir, env: base, encoding: 'utf8', timeout: 60_000 });
}

const profileEnv = (outDir: string, warmupSteps = 3, steps = 4) => ({ TUNING_BENCH_PROFILE: JSON.stringify({ outDir, warmupSteps, steps }) });

describe.skipIf(skipTorchTests('profilePython.test.ts'))('the Python step profiler', () => {
  beforeAll(assertTorch);
  it('takes tuning_bench.step() as the step boundary when a script has no optimizer', () => {
    const out = path.join(dir, 'manual');
    const result = python(MANUAL_STEPS, profileEnv(out));
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('trained');
    const summary = pythonSummary.parse(JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')));
    // Four steady steps from step 4 (one a busy machine stalls is left out, and the window runs a step longer).
    expect(summary).toMatchObject({ tool: 'torch.profiler', boundary: 'tuning_bench.step', window: { fromStep: 4, toStep: 3 + summary.steps.length } });
    expect(summary.steps.filter((s) => s.kept)).toHaveLength(4);
    expect(summary.ops.map((op) => op.name)).toContain('aten::mm');
    expect(summary.notes).toEqual([]);
  });

  it('never breaks the script: an unwritable folder or a malformed request leaves training running', () => {
    const unwritable = python(MANUAL_STEPS, profileEnv('/proc/no-such-folder/profile'));
    expect(unwritable.status).toBe(0);
    expect(unwritable.stdout).toContain('trained');
    expect(unwritable.stderr).toContain('training goes on without profiling');

    const malformed = python(MANUAL_STEPS, { TUNING_BENCH_PROFILE: '{not json' });
    expect(malformed.status).toBe(0);
    expect(malformed.stdout).toContain('trained');
    expect(malformed.stderr).toContain('TUNING_BENCH_PROFILE is not usable');
  });

  it("runs the sitecustomize it shadows first (a user's or the distribution's), with or without profiling", () => {
    const userSite = path.join(dir, 'user-site');
    fs.mkdirSync(userSite, { recursive: true });
    fs.writeFileSync(path.join(userSite, 'sitecustomize.py'), 'import builtins\nbuiltins.USER_SITECUSTOMIZE = "ran"\n');
    const check = 'import builtins; print("user:", getattr(builtins, "USER_SITECUSTOMIZE", "missing"))';
    const pythonPath = `${HELPER_DIR}${path.delimiter}${userSite}`;
    expect(python(check, {}, pythonPath).stdout).toContain('user: ran');
    const out = path.join(dir, 'chained');
    const profiled = python(`${check}\n${MANUAL_STEPS}`, profileEnv(out), pythonPath);
    expect(profiled.stdout).toContain('user: ran');
    expect(fs.existsSync(path.join(out, 'trace.json'))).toBe(true);
  });

  it('times forward without module hooks when asked (as it does for compiled models): from the batch to backward()', () => {
    const script = fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures/profiling/sleepy_loader.py'), 'utf8');
    const run = (forwardTiming: string) => {
      const out = path.join(dir, `forward-${forwardTiming}`);
      const result = python(`import sys; sys.argv = ["sleepy", "--steps", "16", "--sleep-ms", "5", "--width", "64"]\n${script}`, {
        TUNING_BENCH_PROFILE: JSON.stringify({ outDir: out, warmupSteps: 4, steps: 8, forwardTiming }),
      });
      expect(result.status, result.stderr).toBe(0);
      return pythonSummary.parse(JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')));
    };
    const gaps = run('gaps');
    expect(gaps.steps.filter((s) => s.kept)).toHaveLength(8);
    for (const step of gaps.steps) {
      expect(step.forwardMs).toBeGreaterThan(0);
      expect(step.dataLoadingMs).toBeGreaterThanOrEqual(5);
      expect(step.dataLoadingMs + step.forwardMs + step.backwardMs + step.optimizerMs + step.otherMs).toBeCloseTo(step.stepMs, 6);
    }
    const bad = python(MANUAL_STEPS, { TUNING_BENCH_PROFILE: JSON.stringify({ outDir: path.join(dir, 'bad'), forwardTiming: 'guess' }) });
    expect(bad.status).toBe(0);
    expect(bad.stderr).toContain('forwardTiming is auto, hooks or gaps');
  });

  it('leaves an LR scheduler, a GradScaler and pickling of the optimizer working as without profiling', () => {
    // Schedulers wrap optimizer.step and read its __func__ and __self__; GradScaler inspects its signature.
    const script = `
import inspect, pickle, torch
model = torch.nn.Linear(16, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5)
scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
for i in range(12):
    loss = model(torch.randn(8, 16)).pow(2).mean()
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    sched.step()
pickle.dumps(opt)
print("lr %.4f steps %d signature %s" % (sched.get_last_lr()[0], opt._step_count, inspect.signature(opt.step)))
`;
    const plain = python(script, {});
    const out = path.join(dir, 'scheduler');
    const profiled = python(script, profileEnv(out));
    expect(plain.status, plain.stderr).toBe(0);
    expect(profiled.status, profiled.stderr).toBe(0);
    expect(profiled.stdout).toBe(plain.stdout);
    expect(profiled.stdout).toContain('lr 0.0010 steps 12');
    const summary = pythonSummary.parse(JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')));
    expect(summary.window).toMatchObject({ fromStep: 4, toStep: 3 + summary.steps.length });
    expect(summary.notes).toEqual([]);
  });

  it('counts a sync only for a tensor on a device, at the line of the script, and puts every Tensor method back', () => {
    // No GPU here: a CPU tensor's reads must pass uncounted; the wrappers must leave Tensor exactly as it was.
    const script = `
import torch
from tuning_bench_profiler import syncs
names = [name for name, _ in syncs._READERS]
before = {name: torch.Tensor.__dict__.get(name) for name in names}
inherited = {name: getattr(torch.Tensor, name) for name in names}
sites = syncs.SyncSites(torch)
sites.install()
t = torch.tensor([2.5])
values = (t.item(), float(t), int(t), bool(t), t.tolist(), t.cpu().numpy().tolist())
wrapped = all(getattr(torch.Tensor, name) is not inherited[name] for name in names)
sites.remove()
restored = all(torch.Tensor.__dict__.get(name) is before[name] and getattr(torch.Tensor, name) == inherited[name] for name in names)
print("counts", sites.counts, "wrapped", wrapped, "restored", restored, "values", values)
`;
    const result = python(script, {});
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('counts {} wrapped True restored True values (2.5, 2.5, 2, True, [2.5], [2.5])');
  });

  it("reads GPU busy time, kernels, device-to-host copies and device waits from a Kineto trace's events, over the kept steps only", () => {
    // Chrome trace events as Kineto writes them for CUDA (categories kernel, gpu_memcpy, cuda_runtime).
    const script = `
from tuning_bench_profiler import results
events = [
    {"cat": "kernel", "name": "volta_sgemm", "ts": 100, "dur": 50},
    {"cat": "kernel", "name": "elementwise", "ts": 140, "dur": 20},
    {"cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "ts": 180, "dur": 5},
    {"cat": "cuda_runtime", "name": "cudaStreamSynchronize", "ts": 186, "dur": 1},
    {"cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 99, "dur": 1},
    {"cat": "kernel", "name": "left_out_step", "ts": 1000, "dur": 500},
    {"cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "ts": 1200, "dur": 1},
]
print(sorted(results.device_facts(events, [(90, 200)]).items()))
`;
    const result = python(script, {});
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("[('busyMs', 0.065), ('deviceWaits', 1), ('kernels', 2), ('meanKernelUs', 25.0), ('memcpyDtoH', 1)]");
  });

  it('says so when the run ends before the window', () => {
    const out = path.join(dir, 'short');
    const result = python(MANUAL_STEPS, profileEnv(out, 20, 4));
    expect(result.status).toBe(0);
    const summary = pythonSummary.parse(JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')));
    expect(summary.steps).toEqual([]);
    expect(summary.notes[0]).toBe('the run made 12 steps (tuning_bench.step), fewer than the 20 warm-up steps the window waits for');

    // A window the run ends inside is profiled as far as it got.
    const cut = path.join(dir, 'cut');
    expect(python(MANUAL_STEPS, profileEnv(cut, 3, 20)).status).toBe(0);
    const partial = pythonSummary.parse(JSON.parse(fs.readFileSync(path.join(cut, 'summary.json'), 'utf8')));
    expect(partial.window).toMatchObject({ fromStep: 4, toStep: 12 });
    expect(partial.notes).toEqual(['the script ended after 9 of the 20 profiled steps']);
    expect(partial.trace).toBe('trace.json');
  });
});
