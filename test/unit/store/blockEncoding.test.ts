import { describe, expect, it } from 'vitest';
import { BLOCK_COLUMNS, decodeBlock, encodeBlock, type BlockColumns } from '../../../electron/core/store/blockEncoding.js';

function columnsOf(rows: ReadonlyArray<readonly [order: number, step: number, tMs: number, value: number]>): BlockColumns {
  return {
    order: Float64Array.from(rows, (row) => row[0]),
    step: Float64Array.from(rows, (row) => row[1]),
    tMs: Float64Array.from(rows, (row) => row[2]),
    value: Float64Array.from(rows, (row) => row[3]),
  };
}

/** Bit for bit: NaN is NaN, -0 is -0. */
function expectSameColumns(actual: BlockColumns, expected: BlockColumns, from = 0, to = expected.order.length): void {
  for (const name of BLOCK_COLUMNS) {
    expect(Array.from(actual[name]).map((x) => (Object.is(x, -0) ? '-0' : x))).toEqual(
      Array.from(expected[name].subarray(from, to)).map((x) => (Object.is(x, -0) ? '-0' : x)),
    );
  }
}

/** The first format, as a database made before this one holds it: the four columns whole, one after another. */
function firstFormat(columns: BlockColumns): Buffer {
  const count = columns.order.length;
  const packed = new Float64Array(4 * count);
  BLOCK_COLUMNS.forEach((name, k) => packed.set(columns[name], k * count));
  return Buffer.from(packed.buffer);
}

describe('block encoding', () => {
  it("stores a dense log's block in a quarter of the bytes: orders, steps and times as progressions, values whole", () => {
    // Three metrics a line: this one's orders rise by 3, steps by 1; an imported log's times are all 0.
    const count = 4096;
    const columns = columnsOf(Array.from({ length: count }, (_, i) => [7 + 3 * i, 100 + i, 0, 2.5 / (1 + i * 0.001)] as const));
    const data = encodeBlock(columns, 0, count);
    expect(data.byteLength).toBe(8 * (2 + 2 + 2 + 2 + count));
    expectSameColumns(decodeBlock(data, count), columns);
  });

  it('keeps every value exactly: a column that is nearly a progression, NaN steps, -0, infinities, a single sample', () => {
    // 0.1 * k drifts from 0.1 + 0.1 + ...: not a progression bit for bit, so stored whole.
    let drifting = 0;
    const cases: BlockColumns[] = [
      columnsOf(Array.from({ length: 50 }, (_, i) => [i + 1, Number.NaN, (drifting += 0.1), i % 7 === 0 ? -0 : Math.sin(i)] as const)),
      columnsOf([
        [1, 0, 0, Number.POSITIVE_INFINITY],
        [2, 1, 0, Number.NaN],
        [3, 2, 0, Number.NEGATIVE_INFINITY],
      ]),
      columnsOf([[5, -0, 1e300, -0]]),
      columnsOf(Array.from({ length: 10 }, (_, i) => [i + 1, 2 ** 53 - 5 + i, 0.5 * i, 1] as const)),
    ];
    for (const columns of cases) expectSameColumns(decodeBlock(encodeBlock(columns, 0, columns.order.length), columns.order.length), columns);
  });

  it('encodes a part of the columns', () => {
    const columns = columnsOf(Array.from({ length: 20 }, (_, i) => [i + 1, i, 10 * i, i * i] as const));
    expectSameColumns(decodeBlock(encodeBlock(columns, 5, 12), 7), columns, 5, 12);
  });

  it('reads blocks written before this format, aligned or not', () => {
    const columns = columnsOf(Array.from({ length: 9 }, (_, i) => [2 * i + 1, i, i, i / 3] as const));
    expectSameColumns(decodeBlock(firstFormat(columns), 9), columns);
    const shifted = Buffer.alloc(4 * 9 * 8 + 3).subarray(3);
    firstFormat(columns).copy(shifted);
    expectSameColumns(decodeBlock(shifted, 9), columns);
    const encoded = encodeBlock(columns, 0, 9);
    const shiftedEncoded = Buffer.alloc(encoded.byteLength + 5).subarray(5);
    encoded.copy(shiftedEncoded);
    expectSameColumns(decodeBlock(shiftedEncoded, 9), columns);
  });

  it('refuses a block whose bytes do not hold what its index row says', () => {
    const columns = columnsOf(Array.from({ length: 9 }, (_, i) => [i + 1, i, 0, Math.random()] as const));
    expect(() => decodeBlock(encodeBlock(columns, 0, 9), 8)).toThrow(/damaged/);
    expect(() => decodeBlock(encodeBlock(columns, 0, 9).subarray(0, 40), 9)).toThrow(/damaged/);
    expect(() => decodeBlock(firstFormat(columns), 8)).toThrow(/holds 288 bytes, not 256/);
  });
});
