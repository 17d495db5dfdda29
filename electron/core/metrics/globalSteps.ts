// One step count through a whole run: a printed step counter that restarts with each epoch or phase is counted on, never overwritten.
import type { MetricRecordKind } from './parsers/types.js';

/*
 * Many scripts count steps within an epoch (`epoch 2 step 1`), or start again at 0 for a second
 * phase (pre-training, then fine-tuning). Stored as printed, epoch 2's step 1 lands on epoch 1's and
 * replaces it: the run reports half its steps and the charts keep half their points. So the
 * collector puts every record on one global step: when a counter goes back to where its stretch
 * began (or goes back while the epoch changes), the new stretch continues after the last step seen,
 * one printing interval later. Counters of framework parsers that already count through epochs
 * (Keras, Lightning, timm, fairseq, ...) never go back, and pass unchanged.
 *
 * A counter that goes back only a little (a resumed checkpoint, two ranks printing a step apart) is
 * not a restart: it keeps its printed step, as before.
 */

/** Who printed a counter: the built-in parsers, or the workload's own regex (counted apart, they may count differently). */
export type StepOrigin = 'parser' | 'regex';

interface Counter {
  /** Added to the printed step: the global step is `printed + offset`. */
  offset: number;
  /** The highest printed step of the current stretch, or null before the first. */
  lastPrinted: number | null;
  /** The printed step the current stretch began at. */
  stretchStart: number;
  /** The last gap between two printed steps: the printing interval (1 for a line per step). */
  interval: number;
  /** The epoch of the last record that stated one. */
  epoch: number | undefined;
}

/** A restart the counter saw: the printed step it went back to, and the global step that became. */
export interface StepRestart {
  printed: number;
  global: number;
}

/** Record kinds whose steps are a training loop's counter; evaluations and summaries take the training counter's offset. */
const COUNTING_KINDS: ReadonlySet<MetricRecordKind> = new Set(['train', 'progress']);

export class GlobalSteps {
  private readonly counters = new Map<string, Counter>();

  /**
   * The global step of a record with a printed `step` (null stays null), and the restart it began,
   * if it began one. `epoch`: the epoch the record states, where it states one.
   */
  place(origin: StepOrigin, kind: MetricRecordKind, step: number | null, epoch: number | undefined): { step: number | null; restart: StepRestart | null } {
    if (step === null) return { step, restart: null };
    if (!COUNTING_KINDS.has(kind)) {
      // An evaluation at `step 50` of epoch 2 belongs to that epoch's stretch.
      const training = this.counters.get(`${origin}:train`) ?? this.counters.get(`${origin}:progress`);
      return { step: step + (training?.offset ?? 0), restart: null };
    }
    const key = `${origin}:${kind}`;
    let counter = this.counters.get(key);
    if (counter === undefined) {
      counter = { offset: 0, lastPrinted: null, stretchStart: step, interval: 1, epoch };
      this.counters.set(key, counter);
    }
    let restart: StepRestart | null = null;
    const last = counter.lastPrinted;
    if (last === null) {
      counter.lastPrinted = step;
      counter.stretchStart = step;
    } else if (step < last && (epochChanged(counter.epoch, epoch) || step <= counter.stretchStart + counter.interval)) {
      const lastGlobal = last + counter.offset;
      counter.offset = lastGlobal + counter.interval - step;
      counter.lastPrinted = step;
      counter.stretchStart = step;
      restart = { printed: step, global: step + counter.offset };
    } else if (step > last) {
      counter.interval = step - last;
      counter.lastPrinted = step;
    }
    if (epoch !== undefined) counter.epoch = epoch;
    return { step: step + counter.offset, restart };
  }
}

function epochChanged(before: number | undefined, now: number | undefined): boolean {
  return before !== undefined && now !== undefined && before !== now;
}
