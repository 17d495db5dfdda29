// A run's metric samples as typed columns: what its summary and chart series are read from, at about 30 bytes a
// sample where a sample object held about 100 (a dense log of a million steps writes three million samples).
import type { MetricKind, MetricSample, MetricSource } from './samples.js';

export const SOURCES: readonly MetricSource[] = ['text', 'channel', 'derived'];
export const KINDS: readonly MetricKind[] = ['train', 'eval', 'progress', 'summary'];
export const SOURCE_CODE = { text: 0, channel: 1, derived: 2 } as const satisfies Record<MetricSource, number>;
export const KIND_CODE = { train: 0, eval: 1, progress: 2, summary: 3 } as const satisfies Record<MetricKind, number>;

/** Room for this many samples at first; the columns double as they fill (a short run stays small). */
const INITIAL_CAPACITY = 1024;

export class SampleColumns {
  length = 0;
  /** NaN where the sample has no step. */
  step: Float64Array;
  tMs: Float64Array;
  value: Float64Array;
  /** Index into `names`. */
  name: Uint32Array;
  /** Codes of SOURCES and KINDS. */
  source: Uint8Array;
  kind: Uint8Array;
  readonly names: string[] = [];
  private readonly codes = new Map<string, number>();

  /**
   * `capacity`: the samples expected, where the reader knows (MetricStore.countNumeric). Sized once, the columns
   * never double: a doubling holds the old and the new columns at once, and leaves up to half of them unused.
   */
  constructor(capacity = INITIAL_CAPACITY) {
    this.step = new Float64Array(capacity);
    this.tMs = new Float64Array(capacity);
    this.value = new Float64Array(capacity);
    this.name = new Uint32Array(capacity);
    this.source = new Uint8Array(capacity);
    this.kind = new Uint8Array(capacity);
  }

  static from(samples: readonly MetricSample[]): SampleColumns {
    const columns = new SampleColumns(samples.length);
    for (const sample of samples) columns.push(sample.step, sample.tMs, sample.name, sample.value, sample.source, sample.kind);
    return columns;
  }

  push(step: number | null, tMs: number, name: string, value: number, source: MetricSource, kind: MetricKind): void {
    if (this.length === this.step.length) this.grow();
    const at = this.length++;
    this.step[at] = step ?? Number.NaN;
    this.tMs[at] = tMs;
    this.value[at] = value;
    let code = this.codes.get(name);
    if (code === undefined) {
      code = this.names.length;
      this.names.push(name);
      this.codes.set(name, code);
    }
    this.name[at] = code;
    this.source[at] = SOURCE_CODE[source];
    this.kind[at] = KIND_CODE[kind];
  }

  /** The code of a name in `name`, or -1 where no sample has it. */
  nameCode(name: string): number {
    return this.codes.get(name) ?? -1;
  }

  stepAt(i: number): number | null {
    const step = this.step[i]!;
    return Number.isNaN(step) ? null : step;
  }

  sample(i: number): MetricSample {
    return { step: this.stepAt(i), tMs: this.tMs[i]!, name: this.names[this.name[i]!]!, value: this.value[i]!, source: SOURCES[this.source[i]!]!, kind: KINDS[this.kind[i]!]! };
  }

  /** The indexes of the samples `keep` picks (of `within`, or of all), in order. Counted first, so the list is made at its size. */
  where(keep: (i: number) => boolean, within?: Uint32Array): Uint32Array {
    const count = within === undefined ? this.length : within.length;
    const at = within === undefined ? (k: number) => k : (k: number) => within[k]!;
    let picked = 0;
    for (let k = 0; k < count; k++) if (keep(at(k))) picked++;
    const indexes = new Uint32Array(picked);
    for (let k = 0, n = 0; k < count; k++) if (keep(at(k))) indexes[n++] = at(k);
    return indexes;
  }

  private grow(): void {
    const capacity = Math.max(INITIAL_CAPACITY, this.step.length * 2);
    const grown = <T extends Float64Array | Uint32Array | Uint8Array>(column: T, make: (n: number) => T): T => {
      const bigger = make(capacity);
      bigger.set(column);
      return bigger;
    };
    this.step = grown(this.step, (n) => new Float64Array(n));
    this.tMs = grown(this.tMs, (n) => new Float64Array(n));
    this.value = grown(this.value, (n) => new Float64Array(n));
    this.name = grown(this.name, (n) => new Uint32Array(n));
    this.source = grown(this.source, (n) => new Uint8Array(n));
    this.kind = grown(this.kind, (n) => new Uint8Array(n));
  }
}
