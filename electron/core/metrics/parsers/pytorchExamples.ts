// pytorch/examples formats: MNIST's `Train Epoch: 1 [400/2022 (20%)]\tLoss: 0.0000236`, ImageNet's `Epoch: [0][ 10/5005]\tTime ... Loss ... Acc@1 ...`
// word_language_model's `| epoch   1 |   200/ 2928 batches | lr 20.00 | ms/batch 5.62 | loss 8.19 | ppl 3613.91`, and
// PyTorch's Quickstart tutorial's `loss: 2.302345  [   64/60000]`.
import { parseNumber } from '../text/numbers.js';
import type { LineParser } from './types.js';
import { addMeterValues, readMeterFields, type MeterName } from './meterFields.js';
import { beginsWith } from './lineStart.js';

const MNIST_TRAIN = /^\s*Train Epoch: (\d+) \[(\d+)\/(\d+) \((\d+)%\)\]\s+Loss: (\S+)/;
const MNIST_TEST = /^\s*Test set: Average loss: (\S+), Accuracy: (\d+)\/(\d+) \(\d+%\)/;
/** ImageNet's ProgressMeter: `Epoch: [E][i/N]` (no space between the brackets) or `Test: [i/N]`, then `Time` without a colon. */
const IMAGENET_TRAIN = /^\s*Epoch: \[(\d+)\]\[\s*(\d+)\/(\d+)\]\s+(Time .*)$/;
const IMAGENET_TEST = /^\s*Test: \[\s*(\d+)\/(\d+)\]\s+(Time .*)$/;
const IMAGENET_SUMMARY = /^\s*\* (?:Acc|Prec)@1 ([\d.]+) (?:Acc|Prec)@5 ([\d.]+)/;
/** PyTorch's Quickstart tutorial: `loss: 2.302345  [   64/60000]`, the samples done in the epoch and its size. */
const QUICKSTART_TRAIN = /^\s*loss: (\S+)\s+\[\s*(\d+)\/\s*(\d+)\]\s*$/;
/** Its test pass, on the line after `Test Error:`: ` Accuracy: 45.2%, Avg loss: 2.151412`. */
const QUICKSTART_TEST = /^\s*Accuracy: ([\d.]+)%, Avg loss: (\S+)\s*$/;
/**
 * word_language_model's (and PyTorch's nn.Transformer tutorial's) interval line, `| epoch   1 |   200/ 2928 batches |
 * lr 5.00 | ms/batch  5.62 | loss  8.19 | ppl  3613.91`, the mean time per batch over the interval.
 */
const WORD_LM_TRAIN = /^\s*\|\s*epoch\s+(\d+)\s*\|\s*(\d+)\s*\/\s*(\d+) batches\s*\|(.*)$/;
/** Its `| end of epoch   1 | time:  8.64s | valid loss  5.62 | valid ppl   277.24` and `| End of training | test loss ...`. */
const WORD_LM_END = /^\s*\|\s*(?:end of epoch\s+(\d+)|End of training)\s*\|(.*)$/;
/** A field between its pipes: a name of words (`ms/batch`, `valid loss`, `time:`), then the value, maybe with `s`. */
const WORD_LM_FIELD = /^\s*([A-Za-z][\w/ ]*?):?\s+(-?[\d.]+(?:e[-+]?\d+)?|nan|inf)(s?)\s*$/;
const WORD_LM_NAMES: Readonly<Record<string, string>> = {
  lr: 'lr',
  'ms/batch': 'step_time_ms',
  loss: 'loss',
  ppl: 'ppl',
  time: 'epoch_time_s',
  'valid loss': 'eval_loss',
  'valid ppl': 'eval_ppl',
  'test loss': 'eval_loss',
  'test ppl': 'eval_ppl',
};

function wordLmFields(text: string, values: Record<string, number>): void {
  for (const field of text.split('|')) {
    const match = WORD_LM_FIELD.exec(field);
    const name = match === null ? undefined : WORD_LM_NAMES[match[1]!];
    const value = match === null ? null : parseNumber(match[2]!);
    if (name !== undefined && value !== null) values[name] = value;
  }
}

/** ImageNet's meters: seconds for Time and Data, top-k accuracy in percent (`Prec@k` in older versions). */
const NAMES: Readonly<Record<string, MeterName>> = {
  time: { name: 'step_time_ms', scale: 1000 },
  data: { name: 'data_time_ms', scale: 1000 },
  loss: { name: 'loss', scale: 1 },
  'acc@1': { name: 'acc1_percent', scale: 1 },
  'acc@5': { name: 'acc5_percent', scale: 1 },
  'prec@1': { name: 'acc1_percent', scale: 1 },
  'prec@5': { name: 'acc5_percent', scale: 1 },
};

/**
 * MNIST counts samples, not batches, in its brackets (`batch_idx * len(data)`; the batch size is nowhere in its
 * output), so its step counts samples done since training began, on through the epochs, as a tqdm bar counting
 * images does (the summary's throughput is then samples/s). ImageNet's step is `epoch × N + i` (epochs from 0).
 */
export function createPytorchExamplesParser(): LineParser {
  let epoch: number | null = null;
  /** MNIST: the samples of the epochs before the current one (from the first epoch seen), the current one and its size. */
  let samplesBefore = 0;
  let mnistEpoch: number | null = null;
  let mnistEpochSamples = 0;
  /** The Quickstart's samples done and epoch size at its last line. */
  let quickstartSeen = 0;
  let quickstartTotal = 0;
  return {
    name: 'pytorch-examples',
    matches: (line) => beginsWith(line, 'Train Epoch', 'Test', 'Epoch: [', '* ', '|', 'loss: ', 'Accuracy: '),
    // Its state (the epoch, MNIST's samples before) changes only on lines it makes a record of: fairseq's `| epoch`
    // lines, asked here first, keep their line templates.
    keepsStateOnNull: true,
    parse(line) {
      const quickstart = QUICKSTART_TRAIN.exec(line);
      if (quickstart !== null) {
        const loss = parseNumber(quickstart[1]!);
        const seen = Number(quickstart[2]);
        const total = Number(quickstart[3]);
        // An epoch's lines count up from its first batch; a count lower than the last starts the next epoch.
        if (seen < quickstartSeen) samplesBefore += quickstartTotal;
        quickstartSeen = seen;
        quickstartTotal = total;
        const values: Record<string, number> = loss === null ? {} : { loss };
        values.samples_seen = seen;
        values.samples_total = total;
        return { step: samplesBefore + seen, kind: 'train', values };
      }
      const quickstartTest = QUICKSTART_TEST.exec(line);
      if (quickstartTest !== null) {
        const values: Record<string, number> = { eval_accuracy: Number(quickstartTest[1]) / 100 };
        const loss = parseNumber(quickstartTest[2]!);
        if (loss !== null) values.eval_loss = loss;
        return { step: null, kind: 'eval', values };
      }
      const wordLm = WORD_LM_TRAIN.exec(line);
      if (wordLm !== null) {
        const lineEpoch = Number(wordLm[1]);
        const batch = Number(wordLm[2]);
        const batches = Number(wordLm[3]);
        const values: Record<string, number> = { epoch: lineEpoch, batch, batches };
        wordLmFields(wordLm[4]!, values);
        return { step: (lineEpoch - 1) * batches + batch, kind: 'train', values };
      }
      const wordLmEnd = WORD_LM_END.exec(line);
      if (wordLmEnd !== null) {
        const values: Record<string, number> = wordLmEnd[1] === undefined ? {} : { epoch: Number(wordLmEnd[1]) };
        wordLmFields(wordLmEnd[2]!, values);
        return Object.keys(values).some((name) => name.startsWith('eval_')) ? { step: null, kind: 'eval', values } : null;
      }
      const mnist = MNIST_TRAIN.exec(line);
      if (mnist !== null) {
        const values: Record<string, number> = {
          epoch: Number(mnist[1]),
          samples_seen: Number(mnist[2]),
          samples_total: Number(mnist[3]),
          progress_percent: Number(mnist[4]),
        };
        const loss = parseNumber(mnist[5] ?? '');
        if (loss !== null) values.loss = loss;
        const lineEpoch = values.epoch!;
        // Each epoch's samples (its line's total) go before the next one's: a run resumed at epoch 5 counts from there.
        if (mnistEpoch !== null && lineEpoch > mnistEpoch) samplesBefore += mnistEpochSamples * (lineEpoch - mnistEpoch);
        mnistEpoch = lineEpoch;
        mnistEpochSamples = values.samples_total!;
        return { step: samplesBefore + values.samples_seen!, kind: 'train', values };
      }
      const mnistTest = MNIST_TEST.exec(line);
      if (mnistTest !== null) {
        const values: Record<string, number> = { eval_accuracy: Number(mnistTest[2]) / Number(mnistTest[3]) };
        const loss = parseNumber(mnistTest[1] ?? '');
        if (loss !== null) values.eval_loss = loss;
        return { step: null, kind: 'eval', values };
      }
      const train = IMAGENET_TRAIN.exec(line);
      if (train !== null) {
        epoch = Number(train[1]);
        const batch = Number(train[2]);
        const batches = Number(train[3]);
        const values: Record<string, number> = { epoch, batch, batches };
        addMeterValues(values, readMeterFields(train[4] ?? ''), NAMES, null, false);
        return { step: epoch * batches + batch, kind: 'train', values };
      }
      const test = IMAGENET_TEST.exec(line);
      if (test !== null) {
        const values: Record<string, number> = {};
        addMeterValues(values, readMeterFields(test[3] ?? ''), NAMES, null, true);
        values.batch = Number(test[1]);
        values.batches = Number(test[2]);
        if (epoch !== null) values.epoch = epoch;
        return { step: null, kind: 'eval', values };
      }
      const summary = IMAGENET_SUMMARY.exec(line);
      if (summary === null) return null;
      const values: Record<string, number> = { eval_acc1_percent: Number(summary[1]), eval_acc5_percent: Number(summary[2]) };
      if (epoch !== null) values.epoch = epoch;
      return { step: null, kind: 'eval', values };
    },
  };
}
