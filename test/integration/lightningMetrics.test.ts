// A PyTorch Lightning script whose terminal shows no loss (the quick-start's bar shows the step count and v_num)
// still gives its run a loss and its steps' times: resources/python/tuning_bench_lightning wraps Lightning's logger
// connector and writes what it logs to the structured channel. Lightning is not installed here, so the script imports
// a stand-in of the one module the hook wraps (`pytorch_lightning.trainer.connectors.logger_connector.logger_connector`),
// which behaves as Lightning 2.x's does: the loggers get single-element tensors every 50 steps, the bar its numbers.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, tempCore } from '../helpers/tempCore.js';

const harness = tempCore({ env: { ...process.env, TUNING_BENCH_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
const dir = makeTempDir('tb-lightning-');
afterAll(async () => {
  await harness.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

const CONNECTOR = `
class Tensor:
    """A single-element tensor: Lightning's loggers call .item() on it."""
    def __init__(self, value):
        self.value = value
    def numel(self):
        return 1
    def item(self):
        return self.value

class _LoggerConnector:
    def __init__(self, trainer):
        self.trainer = trainer
        self._progress_bar_metrics = {}
        self._logged_metrics = {}
        self.log_every_n_steps = 50

    def log_metrics(self, metrics, step=None):
        if not self.trainer.loggers or not metrics:
            return
        self._logged_metrics.update(metrics)
        scalars = {name: value.item() for name, value in metrics.items()}
        for logger in self.trainer.loggers:
            logger.append((step, scalars))

    def update_train_step_metrics(self):
        if (self.trainer.fit_loop.epoch_loop._batches_that_stepped + 1) % self.log_every_n_steps == 0:
            self.log_metrics({"train_loss": Tensor(self.trainer.loss), "epoch": Tensor(0)})
`;

/** A trainer's loop as Lightning runs it: the bar's numbers at each batch's end, the connector after, validation at the epoch's end, the count last. */
const SCRIPT = (loggers: string, bar: string, globalZero = true) => `
import time
from pytorch_lightning.trainer.connectors.logger_connector.logger_connector import _LoggerConnector, Tensor

class Loop: pass
class Trainer:
    is_global_zero = ${globalZero ? 'True' : 'False'}
    loggers = ${loggers}
    def __init__(self):
        self.fit_loop = Loop()
        self.fit_loop.epoch_loop = Loop()
        self.fit_loop.epoch_loop._batches_that_stepped = 0
        self.loss = 2.0

trainer = Trainer()
connector = _LoggerConnector(trainer)
for batch in range(120):
    time.sleep(0.004)
    trainer.loss = 2.0 - batch / 100
    connector._progress_bar_metrics.update(${bar})
    connector.update_train_step_metrics()
    print("Epoch 0: %d/120 [v_num=3]" % (batch + 1), flush=True)
    if batch == 119:
        # on_step=True in validation_step: each validation batch's value, then the pass's mean.
        connector.log_metrics({"valid_loss_step": Tensor(0.9)})
        connector.log_metrics({"valid_loss_epoch": Tensor(0.75), "val_acc": Tensor(0.5), "train_loss_epoch": Tensor(1.4)})
    trainer.fit_loop.epoch_loop._batches_that_stepped += 1
`;

function writeStandIn(): void {
  const module = path.join(dir, 'pytorch_lightning', 'trainer', 'connectors', 'logger_connector');
  fs.mkdirSync(module, { recursive: true });
  for (const folder of [
    'pytorch_lightning',
    'pytorch_lightning/trainer',
    'pytorch_lightning/trainer/connectors',
    'pytorch_lightning/trainer/connectors/logger_connector',
  ]) {
    fs.writeFileSync(path.join(dir, folder, '__init__.py'), '');
  }
  fs.writeFileSync(path.join(module, 'logger_connector.py'), CONNECTOR);
}

async function run(script: string) {
  fs.writeFileSync(path.join(dir, 'train.py'), script);
  const { core } = harness;
  const started = core.startCommand({ adHoc: { command: ['/usr/bin/python3', 'train.py'], cwd: dir } });
  const ran = await core.runner.waitForExit(started.id);
  const points = await core.handlers['runs.metrics']({ id: ran.id }, { subscriberId: null });
  return { ran, channel: points.filter((p) => p.source === 'channel') };
}

describe("a Lightning script's logged numbers", () => {
  writeStandIn();

  it('reach the run: the loss its loggers got every 50 steps, each step its time, validation as evaluation', async () => {
    const { ran, channel } = await run(SCRIPT('[[]]', '{"v_num": 3}'));
    expect(ran.status).toBe('succeeded');
    expect(channel.filter((p) => p.name === 'loss').map((p) => [p.step, p.value])).toEqual([
      [50, 1.51],
      [100, 1.01],
    ]);
    const stepTimes = channel.filter((p) => p.name === 'step_time_ms');
    // Every step after the first (its time would have no start); each took at least the script's 4 ms.
    expect(stepTimes.map((p) => p.step)).toEqual(Array.from({ length: 119 }, (_, i) => i + 2));
    expect(stepTimes.every((p) => typeof p.value === 'number' && p.value >= 4)).toBe(true);
    // After the last step: Lightning validates before it counts that step as done.
    expect(channel.filter((p) => p.kind === 'eval').map((p) => [p.step, p.name, p.value])).toEqual([
      [120, 'eval_loss', 0.75],
      [120, 'eval_accuracy', 0.5],
    ]);
    // The bar's version number and the epoch's average are not measurements of a step.
    expect(channel.some((p) => p.name === 'v_num' || p.name === 'epoch' || p.name === 'loss_epoch')).toBe(false);
    expect(ran.summary.metricsSource).toBe('channel');
    expect(ran.summary.finalLoss).toBeCloseTo(1.01, 6);
    expect(ran.summary.steadySteps).toBeGreaterThan(100);
  }, 60_000);

  it("without a logger, takes the bar's numbers (prog_bar=True) and makes none of the loggers' values", async () => {
    const { ran, channel } = await run(SCRIPT('[]', '{"v_num": 3, "train_loss_step": trainer.loss}'));
    expect(ran.status).toBe('succeeded');
    const losses = channel.filter((p) => p.name === 'loss');
    expect(losses).toHaveLength(120);
    expect(losses.at(-1)).toMatchObject({ step: 120, value: 2.0 - 119 / 100 });
    expect(channel.some((p) => p.kind === 'eval')).toBe(false);
  }, 60_000);

  it('come from rank 0 alone: under DDP every rank runs the same loop and calls the connector', async () => {
    const { ran, channel } = await run(SCRIPT('[[]]', '{"v_num": 3, "train_loss_step": trainer.loss}', false));
    expect(ran.status).toBe('succeeded');
    expect(channel).toEqual([]);
  }, 60_000);
});
