// The Python side of the knobs (resources/python/tuning_bench_knobs/) run directly with real PyTorch on the CPU:
// what each knob does to an unmodified script, the line it records, and that nothing a knob does stops the script.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readKnobResults } from '../../electron/core/runner/knobResults.js';
import { type KnobSettings, type RunKnobs } from '../../electron/shared/knobs.js';
import { makeTempDir, REPO_ROOT } from '../helpers/tempCore.js';
import { assertTorch, skipTorchTests, TORCH_PYTHON } from '../helpers/torch.js';

const HELPER_DIR = path.join(REPO_ROOT, 'resources/python');
const SLOW_LOADER = path.join(REPO_ROOT, 'test/fixtures/knobs/slow_loader.py');

const dir = makeTempDir('tb-knobs-py-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let resultsCount = 0;

/** Runs a script (a file's argv, or code for `-c`) with these knobs; the folded results as the engine reads them. */
function runWithKnobs(script: { file: string; args?: string[] } | { code: string }, knobs: Record<string, unknown> | null, libraries: string[] = []) {
  const out = path.join(dir, `knobs-${++resultsCount}.jsonl`);
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: [HELPER_DIR, ...libraries].join(path.delimiter) };
  delete env.TUNING_BENCH_METRICS;
  if (knobs) env.TUNING_BENCH_KNOBS = JSON.stringify({ knobs, out });
  const args = 'code' in script ? ['-c', script.code] : [script.file, ...(script.args ?? [])];
  const result = spawnSync(TORCH_PYTHON, args, { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
  // As asked, unchecked: a test may send what the engine never would (threads=0), to see the Python side survive it.
  const asked: KnobSettings = Object.fromEntries(Object.entries(knobs ?? {}).map(([name, value]) => [name, value === true ? 'on' : String(value)]));
  return { result, knobs: readKnobResults(out, asked), raw: fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '' };
}

function knob(results: RunKnobs, name: string) {
  const found = results.knobs.find((k) => k.name === name);
  if (!found) throw new Error(`no knob ${name} in ${JSON.stringify(results)}`);
  return found;
}

/** The median of the step times the script printed, steps after the first two (the workers' start-up). */
function medianStepMs(stdout: string): number {
  const times = [...stdout.matchAll(/step (\d+) loss \S+ step_time_ms ([\d.]+)/gu)].filter((m) => Number(m[1]) > 2).map((m) => Number(m[2]));
  expect(times.length).toBeGreaterThan(10);
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The 1-based line of a file that holds `text` (where the script makes what a knob acts on). */
function lineOf(file: string, text: string): number {
  const index = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((line) => line.includes(text));
  expect(index, `${text} in ${file}`).toBeGreaterThanOrEqual(0);
  return index + 1;
}

/** A model whose forward hook (run inside the module's call, so inside the knob's autocast) says the dtype it made. */
const AUTOCAST_SCRIPT = `
import torch
model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
model.register_forward_hook(lambda module, inputs, output: print("inside:", output.dtype, flush=True))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(3):
    x, y = torch.randn(8, 16), torch.randn(8, 1)
    out = model(x)
    loss = torch.nn.functional.mse_loss(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("returned:", out.dtype, "loss finite:", bool(torch.isfinite(loss)), flush=True)
`;

describe.skipIf(skipTorchTests('knobsPython.test.ts'))('the knobs inside a Python run', () => {
  beforeAll(assertTorch);

  it('gives workers to a DataLoader made with none, at its line, and the slow loader gets measurably faster', () => {
    const plain = runWithKnobs({ file: SLOW_LOADER, args: ['--steps', '24', '--sleep-ms', '40'] }, null);
    expect(plain.result.status, plain.result.stderr).toBe(0);
    const tuned = runWithKnobs({ file: SLOW_LOADER, args: ['--steps', '24', '--sleep-ms', '40'] }, { workers: 4, persistentWorkers: true, prefetch: 2 });
    expect(tuned.result.status, tuned.result.stderr).toBe(0);
    const site = { file: SLOW_LOADER, line: lineOf(SLOW_LOADER, 'DataLoader(dataset, batch_size=None)') };
    expect(knob(tuned.knobs, 'workers')).toMatchObject({ state: 'applied', outcomes: [{ status: 'applied', what: 'num_workers=4 (was 0)', ...site }] });
    expect(knob(tuned.knobs, 'persistentWorkers').state).toBe('applied');
    expect(knob(tuned.knobs, 'prefetch').outcomes[0]).toMatchObject({ what: 'prefetch_factor=2', ...site });
    // Each batch waits 40 ms in __getitem__: four workers overlap those waits. Half the time is a generous margin
    // (on an idle machine it is near a quarter), whatever the machine's speed.
    expect(medianStepMs(tuned.result.stdout)).toBeLessThan(medianStepMs(plain.result.stdout) * 0.5);
    // Same data, same order, same training: the loss the script prints at its last step is the same.
    const lastLoss = (stdout: string) => /step 24 loss (\S+)/u.exec(stdout)?.[1];
    expect(lastLoss(tuned.result.stdout)).toBe(lastLoss(plain.result.stdout));
  });

  it('leaves a DataLoader alone whose num_workers the script sets itself, and says so at that line', () => {
    const { result, knobs } = runWithKnobs({ file: SLOW_LOADER, args: ['--steps', '6', '--sleep-ms', '1', '--workers', '1'] }, { workers: 4, prefetch: 4 });
    expect(result.status, result.stderr).toBe(0);
    const site = { file: SLOW_LOADER, line: lineOf(SLOW_LOADER, 'num_workers=args.workers') };
    expect(knob(knobs, 'workers')).toMatchObject({
      state: 'skipped',
      outcomes: [{ status: 'skipped', reason: 'the script sets num_workers=1 itself: left alone', ...site }],
    });
    // Its own workers take the prefetch, which the script did not set.
    expect(knob(knobs, 'prefetch')).toMatchObject({ state: 'applied', outcomes: [{ what: 'prefetch_factor=4', ...site }] });
  });

  it('runs the forward under bf16 autocast on the CPU: bfloat16 inside, float32 back to the loss the script computes', () => {
    const { result, knobs } = runWithKnobs({ code: AUTOCAST_SCRIPT }, { autocast: 'bf16' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('inside: torch.bfloat16');
    expect(result.stdout).toContain('returned: torch.float32 loss finite: True');
    expect(knob(knobs, 'autocast')).toMatchObject({
      state: 'applied',
      outcomes: [{ status: 'applied', file: '<string>', line: codeLine(AUTOCAST_SCRIPT, 'out = model(x)') }],
    });
    expect(knob(knobs, 'autocast').outcomes[0]!.what).toContain("torch.autocast('cpu', dtype=torch.bfloat16)");

    const plain = runWithKnobs({ code: AUTOCAST_SCRIPT }, null);
    expect(plain.result.stdout).toContain('inside: torch.float32');
  });

  it('skips the CUDA-only knobs with the reason where there is no CUDA, and fp16 autocast where the CPU takes bf16 only', () => {
    const { result, knobs } = runWithKnobs(
      { code: AUTOCAST_SCRIPT },
      { tf32: true, cudnnBenchmark: true, matmulPrecision: 'high', pinMemory: true, autocast: 'fp16' },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('inside: torch.float32');
    expect(knobs.cuda).toBe(false);
    for (const name of ['tf32', 'cudnnBenchmark', 'matmulPrecision']) {
      expect(knob(knobs, name)).toMatchObject({
        state: 'skipped',
        outcomes: [{ reason: expect.stringMatching(/^no CUDA device here: /u), file: '<string>', line: 2 }],
      });
    }
    expect(knob(knobs, 'pinMemory')).toMatchObject({ state: 'unused', outcomes: [{ reason: 'the script made no torch DataLoader' }] });
    expect(knob(knobs, 'autocast')).toMatchObject({ state: 'skipped', outcomes: [{ reason: expect.stringContaining('does not autocast to float16 on cpu') }] });
  });

  it('turns a knob that raises inside torch into a note, and the run goes on as without it', () => {
    // torch.set_num_threads(0) raises in PyTorch's C++ (the engine never sends 0; the Python side must survive it anyway).
    const threads = runWithKnobs({ code: AUTOCAST_SCRIPT }, { threads: 0, autocast: 'bf16' });
    expect(threads.result.status, threads.result.stderr).toBe(0);
    expect(threads.result.stdout).toContain('returned: torch.float32 loss finite: True');
    expect(threads.raw).toMatch(/"knob": "threads", "status": "failed", "what": null, "reason": "RuntimeError: [^"]*"/u);
    expect(threads.result.stderr).toContain('tuning_bench knobs: threads could not be applied (RuntimeError');
    expect(knob(threads.knobs, 'autocast').state).toBe('applied');

    // A forward that refuses autocast (as a custom op without a bfloat16 kernel does): the same call again without it.
    const refusing = `
import torch
class Picky(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 1)
    def forward(self, x):
        if torch.is_autocast_cpu_enabled():
            raise RuntimeError("no bfloat16 kernel for this op")
        return self.linear(x)
model = Picky()
for _ in range(3):
    out = model(torch.randn(2, 4))
print("trained", out.dtype, flush=True)
`;
    const picky = runWithKnobs({ code: refusing }, { autocast: 'bf16' });
    expect(picky.result.status, picky.result.stderr).toBe(0);
    expect(picky.result.stdout).toContain('trained torch.float32');
    expect(knob(picky.knobs, 'autocast')).toMatchObject({
      state: 'failed',
      outcomes: [
        {
          status: 'failed',
          reason: 'Picky raised under autocast (RuntimeError: no bfloat16 kernel for this op); it runs without autocast from now on',
          line: 13,
        },
      ],
    });
  });

  it("leaves the script's own set_num_threads standing, at its line; torch's own call in a DataLoader worker is no choice of the script's", () => {
    const sleepy = path.join(REPO_ROOT, 'test/fixtures/profiling/sleepy_loader.py');
    const { result, knobs } = runWithKnobs({ file: sleepy, args: ['--steps', '4', '--sleep-ms', '1'] }, { threads: 2, workers: 2 });
    expect(result.status, result.stderr).toBe(0);
    expect(knob(knobs, 'threads')).toMatchObject({ state: 'overridden' });
    expect(knob(knobs, 'threads').outcomes.filter((o) => o.status === 'overridden')).toEqual([
      expect.objectContaining({
        reason: 'the script sets torch.set_num_threads(1) itself, after the knob: its choice stands',
        file: sleepy,
        line: lineOf(sleepy, 'torch.set_num_threads(1)'),
      }),
    ]);
  });

  it('says why a knob never applied: no DataLoader, no model, no torch at all', () => {
    const noTorch = runWithKnobs({ code: 'print("plain python")' }, { workers: 4, autocast: 'bf16' });
    expect(noTorch.result.status).toBe(0);
    for (const name of ['workers', 'autocast']) {
      expect(knob(noTorch.knobs, name)).toMatchObject({
        state: 'unused',
        outcomes: [{ reason: expect.stringMatching(/^the command never imported torch in this process/u) }],
      });
    }
    const noLoader = runWithKnobs({ code: AUTOCAST_SCRIPT }, { workers: 4, channelsLast: true });
    expect(knob(noLoader.knobs, 'workers').outcomes[0]!.reason).toBe('the script made no torch DataLoader');
    expect(knob(noLoader.knobs, 'channelsLast').outcomes[0]!.reason).toBe('Sequential is called without a 4-D input (channels-last is for images: N, C, H, W)');
  });

  it('puts a convolutional model and its 4-D inputs in channels-last', () => {
    const conv = `
import torch
model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU())
for _ in range(2):
    out = model(torch.randn(2, 3, 16, 16))
print("weight channels_last:", model[0].weight.is_contiguous(memory_format=torch.channels_last), flush=True)
`;
    const { result, knobs } = runWithKnobs({ code: conv }, { channelsLast: true });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('weight channels_last: True');
    expect(knob(knobs, 'channelsLast')).toMatchObject({
      state: 'applied',
      outcomes: [{ what: 'Sequential and its 4-D inputs in torch.channels_last', line: 5 }],
    });
  });
});

/** The 1-based line of code given to `python -c`. */
function codeLine(code: string, text: string): number {
  return code.split('\n').findIndex((line) => line.includes(text)) + 1;
}

/**
 * Loss scaling against a stand-in torch that has both scaler classes (torch 2.3 on: torch.cuda.amp.GradScaler derives
 * from torch.amp.GradScaler): no CUDA here, and Debian's torch is older than both.
 */
const SCALERS_SCRIPT = `
import types
from tuning_bench_knobs.scaling import LossScaling

class GradScaler(object):
    def __init__(self, device="cuda", *args, **kwargs):
        self.device = device

class CudaGradScaler(GradScaler):
    def __init__(self, *args, **kwargs):
        super(CudaGradScaler, self).__init__("cuda", *args, **kwargs)

class Optimizer(object):
    def step(self, closure=None):
        return None

class Tensor(object):
    def backward(self, *args, **kwargs):
        return None

def fake_torch():
    return types.SimpleNamespace(
        amp=types.SimpleNamespace(GradScaler=GradScaler),
        cuda=types.SimpleNamespace(amp=types.SimpleNamespace(GradScaler=CudaGradScaler)),
        optim=types.SimpleNamespace(Optimizer=Optimizer),
        Tensor=Tensor,
        nn=types.SimpleNamespace(utils=types.SimpleNamespace()),
    )

class Recorder(object):
    def __init__(self):
        self.records = []
    def record(self, knob, status, **fields):
        self.records.append((status, fields.get("reason") or fields.get("what")))

for make in ('torch.amp.GradScaler("cuda")', "torch.cuda.amp.GradScaler()"):
    torch, recorder = fake_torch(), Recorder()
    scaling = LossScaling(torch, recorder)
    scaling.install()
    eval(make, {"torch": torch})
    scaling.activate(None)
    print("script's", make, "->", recorder.records)

torch, recorder = fake_torch(), Recorder()
scaling = LossScaling(torch, recorder)
scaling.install()
scaling.activate(None)
print("own ->", type(scaling.scaler).__name__, recorder.records)
`;

describe('loss scaling for fp16 on a torch with torch.amp.GradScaler', () => {
  it("leaves a script's own scaler alone, made either way, and makes its own with the class that takes the device", () => {
    const result = spawnSync('/usr/bin/python3', ['-c', SCALERS_SCRIPT], {
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: HELPER_DIR },
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).toBe(0);
    const left = "[('skipped', 'the script makes its own GradScaler: its loss scaling is left alone')]";
    expect(result.stdout).toContain(`script's torch.amp.GradScaler("cuda") -> ${left}`);
    expect(result.stdout).toContain(`script's torch.cuda.amp.GradScaler() -> ${left}`);
    expect(result.stdout).toContain(
      `own -> GradScaler [('applied', 'loss.backward() as scaler.scale(loss).backward(), optimizer.step() as scaler.step(optimizer) (scaler = torch.amp.GradScaler("cuda"))')]`,
    );
  });
});

describe("autocast's look at the script's own autocast", () => {
  it('asks torch 2.4 on per device, never by the functions it deprecates (an error under python -W error)', () => {
    const code = [
      'import types, warnings',
      'from tuning_bench_knobs.forward import _script_autocast',
      'def deprecated():',
      '    warnings.warn("torch.is_autocast_cpu_enabled() is deprecated", DeprecationWarning)',
      '    return False',
      'def enabled(device_type="cuda"):',
      '    return device_type == "cpu"',
      'torch = types.SimpleNamespace(is_autocast_enabled=enabled, is_autocast_cpu_enabled=deprecated)',
      'warnings.simplefilter("error")',
      'print(_script_autocast(torch, "cpu"), _script_autocast(torch, "cuda"))',
    ].join('\n');
    const result = spawnSync('/usr/bin/python3', ['-c', code], {
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: HELPER_DIR },
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('True False');
  });
});

/**
 * The compile knob compiles the script's model, not every module called at the top: pytorch/examples' MNIST calls
 * torchvision's Normalize (an nn.Module without parameters) in its Dataset before it calls its Net, and the knob
 * compiled that transform and never the model. A stand-in torch.compile records what it is given (torch 1.13 here
 * has none).
 */
const COMPILED_MODULES_SCRIPT = `
import sys, types
import torch
from tuning_bench_knobs.forward import ForwardKnobs

compiled = []
def stand_in_compile(module, *args, **kwargs):
    compiled.append(type(module).__name__)
    return module

class Recorder(object):
    def __init__(self):
        self.records = []
    def record(self, knob, status, **fields):
        self.records.append((status, fields.get("reason") or fields.get("what")))

class Normalize(torch.nn.Module):
    def forward(self, x):
        return (x - 0.1307) / 0.3081

recorder = Recorder()
knobs = ForwardKnobs(types.SimpleNamespace(compile=stand_in_compile, __version__="2.9.0"), {"compile": "on"}, recorder, None)
knobs._watch_script_compile()
x = torch.ones(2, 4)
for module in (Normalize(), torch.nn.Linear(4, 2), Normalize()):
    knobs.compile_around(module, lambda args, kwargs, module=module: module.forward(*args, **kwargs), (x,), {}, sys._getframe())
print(compiled)
print(recorder.records[0][0], recorder.records[0][1])
`;

describe.skipIf(skipTorchTests('knobsPython.test.ts'))('the compile knob', () => {
  it('compiles the model, and leaves a module without parameters (a transform) alone, saying so', () => {
    const result = spawnSync(TORCH_PYTHON, ['-c', COMPILED_MODULES_SCRIPT], {
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: HELPER_DIR },
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).toBe(0);
    const [compiled, first] = result.stdout.trim().split('\n');
    expect(compiled).toBe("['Linear']");
    expect(first).toBe('skipped Normalize has no parameters (a transform or a function, not a model): left uncompiled');
  });
});

describe.skipIf(skipTorchTests('knobsPython.test.ts'))('knobs a library applied for the script', () => {
  beforeAll(assertTorch);

  it('name the library that made the call (a Trainer making the loader and calling the model), at the script’s line', () => {
    // A stand-in of a Trainer, installed as a library is (in a site-packages folder): it makes the loader and calls
    // the model itself, as transformers' Trainer does inside train().
    const sitePackages = path.join(dir, 'lib', 'site-packages');
    fs.mkdirSync(path.join(sitePackages, 'transformers'), { recursive: true });
    fs.writeFileSync(path.join(sitePackages, 'transformers', '__init__.py'), '');
    fs.writeFileSync(
      path.join(sitePackages, 'transformers', 'trainer.py'),
      [
        'import torch',
        'class Trainer:',
        '    def __init__(self, model, dataset):',
        '        self.model, self.dataset = model, dataset',
        '    def train(self):',
        // As the Trainer does: its own settings passed explicitly, num_workers=0 and persistent_workers=False among them.
        '        for x in torch.utils.data.DataLoader(self.dataset, batch_size=4, num_workers=0, persistent_workers=False):',
        '            self.model(x).sum().backward()',
        '',
      ].join('\n'),
    );
    const file = path.join(dir, 'trainer_script.py');
    fs.writeFileSync(
      file,
      [
        'import torch',
        'from transformers.trainer import Trainer',
        'data = torch.randn(16, 8)',
        'model = torch.nn.Linear(8, 1)',
        'own = torch.utils.data.DataLoader(data, batch_size=4)',
        'Trainer(model, data).train()',
        '',
      ].join('\n'),
    );
    const { result, knobs } = runWithKnobs({ file }, { workers: 2, persistentWorkers: true, autocast: 'bf16' }, [sitePackages]);
    expect(result.status, result.stderr).toBe(0);
    const where = (name: string) => knob(knobs, name).outcomes.map((o) => [o.status, o.line, o.via]);
    expect(where('workers')).toEqual(
      expect.arrayContaining([
        ['applied', lineOf(file, 'DataLoader(data'), null],
        ['applied', lineOf(file, '.train()'), 'transformers'],
      ]),
    );
    expect(where('autocast')).toEqual([['applied', lineOf(file, '.train()'), 'transformers']]);
    // The Trainer's explicit setting is its own, and said to be: not the script's.
    expect(knob(knobs, 'persistentWorkers').outcomes.find((o) => o.via === 'transformers')).toMatchObject({
      status: 'skipped',
      reason: 'transformers sets persistent_workers=False itself: left alone',
    });
  });
});
