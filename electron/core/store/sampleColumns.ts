// A run's metric samples as typed columns: what its summary and chart series are read from, at about 30 bytes a
// sample where a sample object held about 100 (a dense log of a million steps writes three million samples).
import type { MetricKind, MetricSample, MetricSource } from './records.js';
import { freeBuffer } from './freeBuffer.js';

export const SOURCES: readonly MetricSource[] = ['text', 'channel', 'derived'];
export const KINDS: readonly MetricKind[] = ['train', 'eval', 'progress', 'summary'];
export const SOURCE_CODE = { text: 0, channel: 1, derived: 2 } as const satisfies Record<MetricSource, number>;
export const KIND_CODE = { train: 0, eval: 1, progress: 2, summary: 3 } as const satisfies Record<MetricKind, number>;

/** Room for this many samples at first; the columns double as they fill (a short run stays small). */
const INITIAL_CAPACITY = 1024;

/** SampleColumns between threads (see SampleColumns.pack): its columns, cut to its length, and its names. */
export type PackedSamples = Pick<SampleColumns, 'length' | 'step' | 'tMs' | 'value' | 'name' | 'source' | 'kind'> & { names: string[] };

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

  /**
   * The columns as a message to another thread: cut to their length, their buffers to be moved (`transfer`), not
   * copied; this object is not to be used after. About 30 bytes a sample, where a sample object cloned held ~150.
   */
  pack(): { packed: PackedSamples; transfer: ArrayBuffer[] } {
    const cut = <T extends Float64Array | Uint32Array | Uint8Array>(column: T): T =>
      column.length === this.length ? column : (column.slice(0, this.length) as T);
    const packed: PackedSamples = {
      length: this.length,
      step: cut(this.step),
      tMs: cut(this.tMs),
      value: cut(this.value),
      name: cut(this.name),
      source: cut(this.source),
      kind: cut(this.kind),
      names: this.names,
    };
    const transfer = [packed.step, packed.tMs, packed.value, packed.name, packed.source, packed.kind].map((column) => column.buffer as ArrayBuffer);
    // The columns cut from are this thread's garbage now (the object is not used after): freed at once.
    if (packed.step !== this.step) this.release();
    return { packed, transfer };
  }

  /** Columns received from another thread (see pack). */
  static unpack(packed: PackedSamples): SampleColumns {
    const columns = new SampleColumns(0);
    columns.length = packed.length;
    columns.step = packed.step;
    columns.tMs = packed.tMs;
    columns.value = packed.value;
    columns.name = packed.name;
    columns.source = packed.source;
    columns.kind = packed.kind;
    packed.names.forEach((name, code) => {
      columns.names.push(name);
      columns.codes.set(name, code);
    });
    return columns;
  }

  /** Appends samples `from` to `to` of other columns. */
  pushFrom(other: SampleColumns, from: number, to: number): void {
    for (let i = from; i < to; i++)
      this.push(other.stepAt(i), other.tMs[i]!, other.names[other.name[i]!]!, other.value[i]!, SOURCES[other.source[i]!]!, KINDS[other.kind[i]!]!);
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
    return {
      step: this.stepAt(i),
      tMs: this.tMs[i]!,
      name: this.names[this.name[i]!]!,
      value: this.value[i]!,
      source: SOURCES[this.source[i]!]!,
      kind: KINDS[this.kind[i]!]!,
    };
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

  /**
   * Frees the columns' memory now (see freeBuffer), where the caller is done with them (committed, sent on): this
   * object is empty after. A thread streaming a dense log through columns held tens of MiB of them as garbage.
   */
  release(): void {
    for (const column of [this.step, this.tMs, this.value, this.name, this.source, this.kind]) freeBuffer(column);
    this.length = 0;
  }

  private grow(): void {
    const capacity = Math.max(INITIAL_CAPACITY, this.step.length * 2);
    const grown = <T extends Float64Array | Uint32Array | Uint8Array>(column: T, make: (n: number) => T): T => {
      const bigger = make(capacity);
      bigger.set(column);
      freeBuffer(column);
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
