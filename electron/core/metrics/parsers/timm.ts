// timm's train.py: `Train: 0 [  50/73 ( 70%)]  Loss: 6.77 (6.83)  Time: 0.320s,  400.32/s  (0.470s,  272.39/s)  LR: 1.000e-05  Data: ...`.
import type { LineParser } from './types.js';
import { addMeterValues, readMeterFields, type MeterName } from './meterFields.js';
import { beginsWith } from './lineStart.js';

const TRAIN = /^\s*Train: (\d+) \[\s*(\d+)\/(\d+) \(\s*\d+%\)\]\s+(.*)$/;
/** timm's validation: `Test: [   0/30]  Time: ...` (`Test (EMA):` for the EMA model); the colon after `Time` tells it from pytorch/examples. */
const TEST = /^\s*Test(?: \(EMA\))?: \[\s*(\d+)\/(\d+)\]\s+(Time: .*)$/;

/** timm prints seconds (`9.575s`) for Time and Data, and the rate beside Time is samples per second. */
const NAMES: Readonly<Record<string, MeterName>> = {
  loss: { name: 'loss', scale: 1 },
  time: { name: 'step_time_ms', scale: 1000 },
  data: { name: 'data_time_ms', scale: 1000 },
  lr: { name: 'lr', scale: 1 },
  'acc@1': { name: 'acc1_percent', scale: 1 },
  'acc@5': { name: 'acc5_percent', scale: 1 },
};

/** The step is `epoch × N + i` (epochs from 0); validation lines carry the epoch they follow. */
export function createTimmParser(): LineParser {
  let epoch: number | null = null;
  return {
    name: 'timm',
    matches: (line) => beginsWith(line, 'Train: ', 'Test'),
    parse(line) {
      const train = TRAIN.exec(line);
      if (train !== null) {
        epoch = Number(train[1]);
        const batch = Number(train[2]);
        const batches = Number(train[3]);
        const values: Record<string, number> = { epoch, batch, batches };
        addMeterValues(values, readMeterFields(train[4] ?? ''), NAMES, 'samples_per_sec', false);
        return { step: epoch * batches + batch, kind: 'train', values };
      }
      const test = TEST.exec(line);
      if (test === null) return null;
      const values: Record<string, number> = {};
      addMeterValues(values, readMeterFields(test[3] ?? ''), NAMES, 'samples_per_sec', true);
      values.batch = Number(test[1]);
      values.batches = Number(test[2]);
      if (epoch !== null) values.epoch = epoch;
      return { step: null, kind: 'eval', values };
    },
  };
}
