// The bytes of one metric block (`metric_block_data.data`): four float64 columns (order, step, time, value), each
// stored whole or, when it is an exact arithmetic progression, as its first term and step.
//
// A dense log's block spent 32 bytes a sample where its text took 17: the orders of a metric rise by the number of
// metrics logged per line, steps by one, and an imported log's times are often all zero, so three of the four columns
// are progressions and only the values need their bytes. Stored whole they were twice the log again, written to the
// WAL, checkpointed into the file and read back for the summary (a 10 M-line import wrote 960 MB of blocks).

/** Columns of a block, in this order, each `count` float64s when stored whole. */
export const BLOCK_COLUMNS = ['order', 'step', 'tMs', 'value'] as const;

/** Where a sample lies in the run's order: given by the writer as samples arrive, kept from a row's rowid for migrated ones. */
export interface BlockColumns {
  order: Float64Array;
  /** NaN where the sample has no step. */
  step: Float64Array;
  tMs: Float64Array;
  /** NaN and ±Infinity as they were logged. */
  value: Float64Array;
}

/**
 * The first 8 bytes of a block in this format: a NaN's bit pattern, which the first word of the first format (a
 * sample's order: a finite number) never is, so blocks written before it still read as they were.
 */
const MAGIC_LOW = 0x5442_6b63; // 'ckBT'
const MAGIC_HIGH = 0x7ff4_0002;
/** Header: the magic word, then one byte a column saying how it is stored, then the count (a check). */
const HEADER_WORDS = 2;
const WHOLE = 0;
const PROGRESSION = 1;

/** Whether column[from..to) is first + k * delta exactly (bit for bit: NaN as NaN, -0 as -0) for every k. */
function progressionOf(column: Float64Array, from: number, to: number): { first: number; delta: number } | null {
  const first = column[from]!;
  const delta = to - from > 1 ? column[from + 1]! - first : 0;
  for (let k = 0, i = from; i < to; k++, i++) if (!Object.is(first + k * delta, column[i]!)) return null;
  return { first, delta };
}

export function encodeBlock(columns: BlockColumns, from: number, to: number): Buffer {
  const count = to - from;
  const progressions = BLOCK_COLUMNS.map((name) => progressionOf(columns[name], from, to));
  const words = HEADER_WORDS + progressions.reduce((sum, progression) => sum + (progression === null ? count : 2), 0);
  const packed = new Float64Array(words);
  const header = new DataView(packed.buffer);
  header.setUint32(0, MAGIC_LOW, true);
  header.setUint32(4, MAGIC_HIGH, true);
  progressions.forEach((progression, k) => header.setUint8(8 + k, progression === null ? WHOLE : PROGRESSION));
  header.setUint32(12, count, true);
  let at = HEADER_WORDS;
  BLOCK_COLUMNS.forEach((name, k) => {
    const progression = progressions[k]!;
    if (progression === null) {
      packed.set(columns[name].subarray(from, to), at);
      at += count;
    } else {
      packed[at++] = progression.first;
      packed[at++] = progression.delta;
    }
  });
  return Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
}

/** The block's words: in place where SQLite's buffer is aligned for a Float64Array (a block's buffer has its own memory), else copied. */
function wordsOf(data: Buffer): Float64Array {
  if (data.byteOffset % 8 === 0) return new Float64Array(data.buffer, data.byteOffset, data.byteLength / 8);
  const words = new Float64Array(data.byteLength / 8);
  new Uint8Array(words.buffer).set(data);
  return words;
}

function isEncoded(data: Buffer): boolean {
  return data.byteLength >= HEADER_WORDS * 8 && data.readUInt32LE(0) === MAGIC_LOW && data.readUInt32LE(4) === MAGIC_HIGH;
}

/** A block's columns from its bytes, in either format; whole columns are read in place, progressions written out. */
export function decodeBlock(data: Buffer, count: number): BlockColumns {
  if (!isEncoded(data)) {
    // The first format: every column whole.
    if (data.byteLength !== count * BLOCK_COLUMNS.length * 8) {
      throw new Error(`a metric block of ${count} samples holds ${data.byteLength} bytes, not ${count * BLOCK_COLUMNS.length * 8}`);
    }
    const packed = wordsOf(data);
    return {
      order: packed.subarray(0, count),
      step: packed.subarray(count, 2 * count),
      tMs: packed.subarray(2 * count, 3 * count),
      value: packed.subarray(3 * count),
    };
  }
  const stored = data.readUInt32LE(12);
  const kinds = BLOCK_COLUMNS.map((_, k) => data.readUInt8(8 + k));
  const expectedBytes = 8 * (HEADER_WORDS + kinds.reduce((sum, kind) => sum + (kind === WHOLE ? count : 2), 0));
  if (stored !== count || kinds.some((kind) => kind !== WHOLE && kind !== PROGRESSION) || data.byteLength !== expectedBytes) {
    throw new Error(`a metric block of ${count} samples is damaged (it says ${stored} samples in ${data.byteLength} bytes)`);
  }
  const words = wordsOf(data);
  // Every progression written out into one array: one allocation a block, however many columns are progressions.
  const spelled = new Float64Array(count * kinds.filter((kind) => kind === PROGRESSION).length);
  let at = HEADER_WORDS;
  let spelledAt = 0;
  const columns = BLOCK_COLUMNS.map((_, k) => {
    if (kinds[k] === WHOLE) {
      const column = words.subarray(at, at + count);
      at += count;
      return column;
    }
    const first = words[at]!;
    const delta = words[at + 1]!;
    at += 2;
    const column = spelled.subarray(spelledAt, spelledAt + count);
    spelledAt += count;
    for (let i = 0; i < count; i++) column[i] = first + i * delta;
    return column;
  });
  return { order: columns[0]!, step: columns[1]!, tMs: columns[2]!, value: columns[3]! };
}
