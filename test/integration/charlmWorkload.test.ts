// The built-in charlm workload through the app: the structured channel wins, and a missing PyTorch is said plainly.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempCore, type TempCore } from '../helpers/tempCore.js';
import { assertTorch, skipTorchTests, TORCH_PYTHON as PYTHON } from '../helpers/torch.js';

const skipTorch = skipTorchTests('charlmWorkload.test.ts');

let harness: TempCore | null = null;
afterEach(async () => {
  await harness?.cleanup();
  harness = null;
});

describe('the charlm workload', () => {
  it.skipIf(skipTorch)(
    'trains through the app, its metrics from the structured channel',
    async () => {
      assertTorch();
      harness = tempCore();
      const workload = harness.core.store.workloads.getByName('charlm')!;
      const run = harness.core.runner.start({
        workload,
        values: { python: PYTHON, amp: 'bf16', steps: '24', threads: '2', batch: '8', seq_len: '64' },
      });
      const finished = await harness.core.runner.waitForExit(run.id);
      expect(finished).toMatchObject({ status: 'succeeded', exitClass: 'ok' });
      expect(finished.summary).toMatchObject({ metricsSource: 'channel', steps: 24, nanDetected: false });
      expect(finished.summary.throughput.unit).toBe('tokens/s');
      expect(finished.summary.throughput.median).toBeGreaterThan(0);
      expect(finished.summary.finalLoss).toBeLessThan(4.5);
    },
    180_000,
  );

  it('says which Python it tried when PyTorch is missing', async () => {
    const shadow = fs.mkdtempSync(path.join(harness?.dir ?? '/tmp', 'no-torch-'));
    fs.writeFileSync(path.join(shadow, 'torch.py'), 'raise ModuleNotFoundError("No module named \'torch\'")\n');
    harness = tempCore({ env: { ...process.env, PYTHONPATH: shadow } });
    const workload = harness.core.store.workloads.getByName('charlm')!;
    const run = harness.core.runner.start({ workload, values: { python: PYTHON, steps: '5' } });
    const finished = await harness.core.runner.waitForExit(run.id);
    fs.rmSync(shadow, { recursive: true, force: true });
    expect(finished).toMatchObject({ status: 'failed', exitCode: 3, exitClass: 'error' });
    expect(finished.exitReason).toContain(`PyTorch is not installed for ${PYTHON}`);
  });
});
