// A Hugging Face Trainer prints its loss once every logging_steps (500 by default): a tune's short runs of it ended
// before the first and had no loss, so no quality gate. resources/python/tuning_bench_transformers wraps
// Trainer.training_step and adds a callback to every Trainer, and writes each optimizer step's loss to the structured
// channel. transformers is not installed here, so the script imports a stand-in of the surface the hook uses
// (`transformers.trainer.Trainer` with training_step, add_callback and callbacks told on_step_end, on_evaluate and
// on_train_end; `transformers.trainer_callback.TrainerCallback`), which runs its loop as Trainer 5 does: each
// micro-batch's loss divided by the accumulation steps and summed, the mean printed every logging_steps.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, tempCore } from '../helpers/tempCore.js';

const harness = tempCore({ env: { ...process.env, TUNING_BENCH_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
const dir = makeTempDir('tb-trainer-');
afterAll(async () => {
  await harness.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

const CALLBACK_MODULE = `
class TrainerCallback:
    def on_step_end(self, args, state, control, **kwargs): pass
    def on_evaluate(self, args, state, control, **kwargs): pass
    def on_train_end(self, args, state, control, **kwargs): pass
`;

const TRAINER_MODULE = `
import time
from transformers.trainer_callback import TrainerCallback

class Tensor:
    """A loss on the CPU, as torch's: detach(), +, item() and a device."""
    class device:
        type = "cpu"
    def __init__(self, value):
        self.value = value
    def detach(self):
        return self
    def __add__(self, other):
        return Tensor(self.value + other.value)
    def item(self):
        return self.value

class State:
    def __init__(self, rank0):
        self.global_step = 0
        self.is_world_process_zero = rank0

class Trainer:
    def __init__(self, steps, accumulation=2, logging_steps=500, rank0=True):
        self.callbacks = []
        self.steps = steps
        self.accumulation = accumulation
        self.logging_steps = logging_steps
        self.state = State(rank0)

    def add_callback(self, callback):
        self.callbacks.append(callback)

    def training_step(self, model, inputs, num_items_in_batch=None):
        return Tensor(inputs / self.accumulation)

    def train(self):
        logged = 0.0
        for step in range(self.steps):
            time.sleep(0.003)
            for micro in range(self.accumulation):
                logged += self.training_step(None, 3.0 - step / 100 + micro / 1000).item()
            self.state.global_step += 1
            for callback in self.callbacks:
                callback.on_step_end(None, self.state, None)
            if self.state.global_step % self.logging_steps == 0:
                print({"loss": "%.4g" % (logged / self.logging_steps), "epoch": "0.5"}, flush=True)
                logged = 0.0
        for callback in self.callbacks:
            callback.on_evaluate(None, self.state, None, metrics={"eval_loss": 2.25, "eval_accuracy": 0.5, "eval_runtime": 0.14, "epoch": 1.0})
        print({"eval_loss": "2.25", "eval_runtime": "0.14", "epoch": "1.0"}, flush=True)
        for callback in self.callbacks:
            callback.on_train_end(None, self.state, None)
`;

function writeStandIn(): void {
  fs.mkdirSync(path.join(dir, 'transformers'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'transformers', '__init__.py'), '');
  fs.writeFileSync(path.join(dir, 'transformers', 'trainer_callback.py'), CALLBACK_MODULE);
  fs.writeFileSync(path.join(dir, 'transformers', 'trainer.py'), TRAINER_MODULE);
}

async function run(script: string) {
  fs.writeFileSync(path.join(dir, 'train.py'), script);
  const { core } = harness;
  const started = core.startCommand({ adHoc: { command: ['/usr/bin/python3', 'train.py'], cwd: dir } });
  const ran = await core.runner.waitForExit(started.id);
  const points = await core.handlers['runs.metrics']({ id: ran.id }, { subscriberId: null });
  return { ran, channel: points.filter((p) => p.source === 'channel'), text: points.filter((p) => p.source === 'text') };
}

describe("a Hugging Face Trainer's loss", () => {
  writeStandIn();

  it('reaches the run at every optimizer step, long before its first logging step, with each step’s time and the evaluation', async () => {
    const { ran, channel } = await run('from transformers.trainer import Trainer\nTrainer(steps=120).train()\n');
    expect(ran.status).toBe('succeeded');
    const losses = channel.filter((p) => p.name === 'loss');
    expect(losses.map((p) => p.step)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    // A step's loss: the sum of its two micro-batches' (each divided by 2), the quantity whose mean the Trainer logs.
    expect(losses[0]!.value).toBeCloseTo((3.0 + 3.001) / 2, 9);
    expect(losses.at(-1)!.value).toBeCloseTo((2 * (3.0 - 119 / 100) + 0.001) / 2, 9);
    const stepTimes = channel.filter((p) => p.name === 'step_time_ms');
    expect(stepTimes.map((p) => p.step)).toEqual(Array.from({ length: 119 }, (_, i) => i + 2));
    expect(stepTimes.every((p) => typeof p.value === 'number' && p.value >= 3)).toBe(true);
    expect(channel.filter((p) => p.kind === 'eval').map((p) => [p.step, p.name, p.value])).toEqual([
      [120, 'eval_loss', 2.25],
      [120, 'eval_accuracy', 0.5],
    ]);
    expect(ran.summary.metricsSource).toBe('channel');
    expect(ran.summary.finalLoss).toBeCloseTo((2 * (3.0 - 119 / 100) + 0.001) / 2, 9);
    expect(ran.summary.evalLoss).toBe(2.25);
  }, 60_000);

  it('reaches it through a subclass that overrides training_step and calls the Trainer’s (as TRL’s trainers do)', async () => {
    const script = [
      'from transformers.trainer import Trainer',
      'class MyTrainer(Trainer):',
      '    def training_step(self, model, inputs, num_items_in_batch=None):',
      '        return super().training_step(model, inputs * 2, num_items_in_batch)',
      'MyTrainer(steps=20).train()',
      '',
    ].join('\n');
    const { ran, channel } = await run(script);
    expect(ran.status).toBe('succeeded');
    expect(channel.filter((p) => p.name === 'loss')[0]!.value).toBeCloseTo(3.0 + 3.001, 9);
  }, 60_000);

  it('writes nothing where no loss came (a training_step of its own), so the terminal’s logged loss stays the run’s', async () => {
    const script = [
      'from transformers.trainer import Trainer, Tensor',
      'class OwnStep(Trainer):',
      '    def training_step(self, model, inputs, num_items_in_batch=None):',
      '        return Tensor(inputs)',
      'OwnStep(steps=40, logging_steps=10).train()',
      '',
    ].join('\n');
    const { ran, channel, text } = await run(script);
    expect(ran.status).toBe('succeeded');
    expect(channel).toEqual([]);
    expect(text.filter((p) => p.name === 'loss')).toHaveLength(4);
    expect(ran.summary.metricsSource).toBe('text');
  }, 60_000);

  it('comes from rank 0 alone', async () => {
    const { ran, channel } = await run('from transformers.trainer import Trainer\nTrainer(steps=20, rank0=False).train()\n');
    expect(ran.status).toBe('succeeded');
    expect(channel).toEqual([]);
  }, 60_000);
});
