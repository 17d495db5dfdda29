// torchvision's reference scripts (MetricLogger): `Epoch: [0]  [  72/5005]  eta: 5:20:32  lr: 0.1  img/s: 17.26  loss: 6.9733 (6.9704)  ...`.
import { parseClockSeconds } from '../text/numbers.js';
import type { LineParser } from './types.js';
import { addMeterValues, readMeterFields, type MeterName } from './meterFields.js';
import { beginsWith } from './lineStart.js';

/** MetricLogger's header: `Epoch: [E]` or `Test:` (also `Test: EMA`), two spaces, then `[i/N]`. */
const HEADER = /^\s*(?:Epoch: \[(\d+)\]|(Test:(?: \w+)?))\s+\[\s*(\d+)\/(\d+)\]\s+(.*)$/;
/** The classification script's final line: `Test:  Acc@1 76.130 Acc@5 92.862`. */
const FINAL_ACCURACY = /^\s*Test:(?: \w+)?\s+Acc@1 ([\d.]+) Acc@5 ([\d.]+)/;
/** `Epoch: [0] Total time: 0:12:34` after each epoch. */
const EPOCH_TOTAL = /^\s*Epoch: \[(\d+)\] Total time: (\d+:\d{2}:\d{2})/;

/** MetricLogger prints seconds for time and data, MiB for `max mem`, top-k accuracy in percent. */
const NAMES: Readonly<Record<string, MeterName>> = {
  eta: { name: 'eta_s', scale: 1 },
  lr: { name: 'lr', scale: 1 },
  'img/s': { name: 'samples_per_sec', scale: 1 },
  loss: { name: 'loss', scale: 1 },
  acc1: { name: 'acc1_percent', scale: 1 },
  acc5: { name: 'acc5_percent', scale: 1 },
  time: { name: 'step_time_ms', scale: 1000 },
  data: { name: 'data_time_ms', scale: 1000 },
  'max mem': { name: 'memory_gib', scale: 1 / 1024 },
};

/** The step is `epoch × N + i` (epochs from 0), so it grows through the run; test lines are not steps. */
export function createTorchvisionParser(): LineParser {
  let epoch: number | null = null;
  return {
    name: 'torchvision',
    matches: (line) => beginsWith(line, 'Epoch: [', 'Test:'),
    parse(line) {
      const header = HEADER.exec(line);
      if (header !== null) {
        const fields = readMeterFields(header[5] ?? '');
        // timm and pytorch/examples print `Test: [i/N]` too, with `Time`, never MetricLogger's `eta` / `time`.
        if (!fields.some((field) => field.label === 'eta' || field.label === 'time')) return null;
        const batch = Number(header[3]);
        const batches = Number(header[4]);
        const values: Record<string, number> = {};
        const training = header[1] !== undefined;
        addMeterValues(values, fields, NAMES, null, !training);
        values.batch = batch;
        values.batches = batches;
        if (training) {
          epoch = Number(header[1]);
          values.epoch = epoch;
          return { step: epoch * batches + batch, kind: 'train', values };
        }
        if (epoch !== null) values.epoch = epoch;
        return { step: null, kind: 'eval', values };
      }
      const final = FINAL_ACCURACY.exec(line);
      if (final !== null) {
        const values: Record<string, number> = { eval_acc1_percent: Number(final[1]), eval_acc5_percent: Number(final[2]) };
        if (epoch !== null) values.epoch = epoch;
        return { step: null, kind: 'eval', values };
      }
      const total = EPOCH_TOTAL.exec(line);
      if (total === null) return null;
      const seconds = parseClockSeconds(total[2] ?? '');
      if (seconds === null) return null;
      return { step: null, kind: 'summary', values: { epoch: Number(total[1]), epoch_time_s: seconds } };
    },
  };
}
