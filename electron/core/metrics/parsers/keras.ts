// Keras progbar lines: `422/422 [=====] - 13s 29ms/step - loss: 0.78 - accuracy: 0.76 - val_loss: ...` (tf.keras 2, Keras 1/2, Keras 3) and `verbose=2`'s `1079/1079 - 21s - loss: 0.24 - 21s/epoch - 19ms/step`.
import { parseClockSeconds, parseDuration, parseNumber } from '../text/numbers.js';
import type { LineParser } from './types.js';
import { beginsWith, contentStart } from './lineStart.js';
import { addValues } from './values.js';

/** `Epoch 3/15` on a line of its own, which Keras prints before each epoch's bar. */
const EPOCH_HEADER = /^\s*Epoch (\d+)\/(\d+)\s*$/;
/** `n/total` then the bar: `[====>....]` (Keras 1/2) or a run of `━` (Keras 3). */
const PROGBAR = /^\s*(\d+)\/(\d+) (?:\[[=>.]*\]|[━─]+|(?=- ))(.*)$/;
/** The bar's first characters, or `n/total - ` of `verbose=2`, which prints one line per epoch and no bar. */
const CHEAP_PROGBAR = /^\s*\d+\/\d+ (?:[[━─]|- )/;
/** `name: value` segments between ` - `. */
const METRIC_SEGMENT = /^([A-Za-z_][\w/.]*): (\S+)$/;

/**
 * Keras. The step counts batches through the run, `(epoch - 1) × total + n` with Keras's 1-based
 * epochs, once an `Epoch N/M` header has been seen (the batch number alone otherwise). A bar that
 * has reached its total is the epoch's final line, with epoch averages and the validation metrics:
 * a `train` record; states before that are `progress`.
 */
export function createKerasParser(): LineParser {
  let epoch: number | null = null;
  let totalEpochs: number | null = null;
  return {
    name: 'keras',
    matches: (line) => {
      const first = line.charCodeAt(contentStart(line));
      return first >= 0x30 && first <= 0x39 ? CHEAP_PROGBAR.test(line) : beginsWith(line, 'Epoch ');
    },
    parse(line) {
      const header = EPOCH_HEADER.exec(line);
      if (header !== null) {
        epoch = Number(header[1]);
        totalEpochs = Number(header[2]);
        return null;
      }
      const bar = PROGBAR.exec(line);
      if (bar === null) return null;
      const n = Number(bar[1]);
      const total = Number(bar[2]);
      const done = n === total;
      const values: Record<string, number> = { batch: n, batches: total };
      if (epoch !== null) values.epoch = epoch;
      if (totalEpochs !== null) values.total_epochs = totalEpochs;
      const pairs: Array<[string, number]> = [];
      for (const raw of (bar[3] ?? '').split(' - ')) {
        const segment = raw.trim();
        if (segment.length === 0) continue;
        const metric = METRIC_SEGMENT.exec(segment);
        if (metric !== null && metric[1] !== 'ETA') {
          const value = parseNumber(metric[2] ?? '');
          if (value !== null) pairs.push([metric[1] ?? '', value]);
          continue;
        }
        readTimes(segment, done, values);
      }
      addValues(values, pairs);
      const step = epoch === null ? n : (epoch - 1) * total + n;
      return { step, kind: done ? 'train' : 'progress', values };
    },
  };
}

/**
 * The time segment: `ETA: 7s`, `13s 29ms/step`, `484s`, `0s 200us/sample`, or Keras 3's
 * `2:40 171ms/step` (an ETA while the epoch runs, the epoch's time once it is done).
 */
function readTimes(segment: string, done: boolean, values: Record<string, number>): void {
  const eta = segment.startsWith('ETA:') ? segment.slice(4).trim() : null;
  if (eta !== null) {
    const seconds = durationSeconds(eta);
    if (seconds !== null) values.eta_s = seconds;
    return;
  }
  for (const token of segment.split(/\s+/)) {
    if (token.endsWith('/step')) {
      const ms = parseDuration(token);
      if (ms !== null) values.step_time_ms = ms;
    } else if (token.endsWith('/epoch')) {
      // `verbose=2`'s `21s/epoch`: the epoch's time again, per epoch.
      const seconds = durationSeconds(token.slice(0, -'/epoch'.length));
      if (seconds !== null) values.epoch_time_s = seconds;
    } else if (token.endsWith('/sample')) {
      const ms = parseDuration(token);
      if (ms !== null && ms > 0) values.samples_per_sec = 1000 / ms;
    } else {
      const seconds = durationSeconds(token);
      if (seconds !== null) values[done ? 'epoch_time_s' : 'eta_s'] = seconds;
    }
  }
}

function durationSeconds(text: string): number | null {
  const clock = parseClockSeconds(text);
  if (clock !== null) return clock;
  const ms = parseDuration(text);
  return ms === null ? null : ms / 1000;
}
