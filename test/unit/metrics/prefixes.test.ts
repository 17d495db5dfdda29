// Plain training-loop formats give their metrics, and a logger's, launcher's or log shipper's prefix never changes what a line gives.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allParsers, forEachRecord, parseLogText, type MetricRecord } from '../../../electron/core/metrics/parsers/index.js';
import { LinePrefixReader } from '../../../electron/core/metrics/parsers/linePrefix.js';
import { readCapturedFixture, capturedFixture } from '../../helpers/fixtures.js';
import { REPO_ROOT } from '../../helpers/tempCore.js';

interface ExpectedRecord {
  step?: number | null;
  values: Record<string, number | 'nan'>;
  absent?: string[];
}
interface FormatCase {
  name: string;
  lines: string[];
  records: ExpectedRecord[];
}
const {
  cases: CASES,
  prefixes: PREFIXES,
  silent: SILENT,
} = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures/plain-logs/formats.json'), 'utf8')) as {
  cases: FormatCase[];
  prefixes: string[];
  silent: string[];
};

/** The records without the prefix's stamp, which only a prefixed line has. */
function withoutWallTime(records: readonly MetricRecord[]): MetricRecord[] {
  return records.map(({ wallTimeMs: _wallTimeMs, ...record }) => record);
}

function recordsOfLine(line: string): MetricRecord[] {
  const records: MetricRecord[] = [];
  forEachRecord(line, allParsers(), (record) => records.push(record));
  return records;
}

function meets(record: MetricRecord, expected: ExpectedRecord): boolean {
  if (expected.step !== undefined && record.step !== expected.step) return false;
  for (const [name, value] of Object.entries(expected.values)) {
    const actual = record.values[name];
    if (actual === undefined) return false;
    if (value === 'nan' ? !Number.isNaN(actual) : Math.abs(actual - value) > 1e-9 * Math.max(1, Math.abs(value))) return false;
  }
  return (expected.absent ?? []).every((name) => record.values[name] === undefined);
}

describe('plain and prefixed formats (test/fixtures/plain-logs)', () => {
  describe.each(CASES)('$name', (format) => {
    it.each(PREFIXES)('with prefix %j', (prefix) => {
      const parsed = parseLogText(format.lines.map((line) => `${prefix}${line}\n`).join(''));
      for (const expected of format.records) {
        expect(
          parsed.records.some((record) => meets(record, expected)),
          `${JSON.stringify(expected)} in ${JSON.stringify(parsed.records)}`,
        ).toBe(true);
      }
    });
  });

  it.each(SILENT)('finds no metric in prose that names a step: %j, with any prefix', (line) => {
    for (const prefix of PREFIXES) expect(parseLogText(`${prefix}${line}\n`).records, prefix).toEqual([]);
  });

  it('keeps the stamp of a prefixed line as its wall time', () => {
    const parsed = parseLogText('2024-05-02T13:45:01.250Z step 1: loss 3\n2024-05-02T13:45:03.750Z step 2: loss 2.5\n');
    expect(parsed.records.map((record) => record.wallTimeMs)).toEqual([Date.UTC(2024, 4, 2, 13, 45, 1, 250), Date.UTC(2024, 4, 2, 13, 45, 3, 750)]);
    const zoned = parseLogText('2024-05-02T15:45:01.250+02:00 step 1: loss 3\n');
    expect(zoned.records[0]?.wallTimeMs).toBe(Date.UTC(2024, 4, 2, 13, 45, 1, 250));
  });

  it('leaves text that only looks like a prefix alone', () => {
    const reader = new LinePrefixReader();
    for (const line of [
      '[1,  2000] loss: 0.123',
      '1079/1079 - 21s - loss: 0.2431',
      '237/422 [===============>..............] - ETA: 7s',
      '| epoch 001 | loss 3.2',
      '[train] loss: 1',
      'Epoch 3:  17%|█▋        | 10/60',
      'Iteration 20, loss = 1',
      'rankings: 3',
      'INFORMATION 3',
      '12:30:45abc',
      '2024-13-45 10:00:00 not a date',
    ]) {
      expect(reader.read(line), line).toBe(0);
    }
  });
});

/** Every line of the captured real logs and of the cases above: what the prefixes go in front of. */
const LINES: string[] = [
  ...CASES.flatMap((format) => format.lines),
  ...fs
    .readdirSync(capturedFixture('training-logs'))
    .filter((name) => name.endsWith('.log'))
    .flatMap((name) => readCapturedFixture('training-logs', name).split(/\r\n|\r|\n/u))
    .filter((line) => line.trim().length > 0),
];

const digits = (count: number) => fc.integer({ min: 0, max: 10 ** count - 1 }).map((n) => String(n).padStart(count, '0'));
const date = fc
  .tuple(fc.integer({ min: 1990, max: 2099 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), fc.constantFrom('-', '/'))
  .map(([year, month, day, separator]) => `${year}${separator}${String(month).padStart(2, '0')}${separator}${String(day).padStart(2, '0')}`);
const time = fc
  .tuple(
    fc.integer({ min: 0, max: 23 }),
    fc.integer({ min: 0, max: 59 }),
    fc.integer({ min: 0, max: 59 }),
    fc.option(fc.tuple(fc.constantFrom('.', ','), fc.integer({ min: 1, max: 9 })), { nil: undefined }),
  )
  .chain(([h, m, s, fraction]) =>
    (fraction === undefined ? fc.constant('') : digits(fraction[1]).map((d) => `${fraction[0]}${d}`)).map(
      (frac) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}${frac}`,
    ),
  );
const zone = fc.constantFrom('', 'Z', '+02:00', '-0530', ' UTC');
const stamp = fc.oneof(
  fc.tuple(date, fc.constantFrom('T', ' '), time, zone).map(([d, t, clock, z]) => `${d}${t}${clock}${z}`),
  time,
  fc
    .tuple(fc.constantFrom('Jan', 'May', 'Dec'), fc.integer({ min: 1, max: 28 }), time)
    .map(([month, day, clock]) => `${month} ${String(day).padStart(2, ' ')} ${clock}`),
);
const level = fc.constantFrom('INFO', 'WARNING', 'DEBUG', 'ERROR');
const loggerName = fc.constantFrom('root', '__main__', 'train', 'transformers.trainer');
/** A head and the separator after it, as real prefixes join them. */
const head = fc.oneof(
  stamp.map((s) => `${s} `),
  stamp.map((s) => `[${s}] `),
  stamp.map((s) => `${s} - `),
  // `[rank0]:` is written glued and with a space; a space after it is read as the separator.
  fc.nat({ max: 63 }).map((rank) => `[rank${rank}]: `),
  fc.nat({ max: 63 }).map((rank) => `[rank${rank}]:[titan] `),
  fc.nat({ max: 63 }).map((rank) => `[rank ${rank}]: `),
  fc.nat({ max: 63 }).map((rank) => `rank ${rank}: `),
  fc.nat({ max: 7 }).map((rank) => `[default${rank}]: `),
  fc.nat({ max: 7 }).map((rank) => `[1,${rank}]<stdout>:`),
  fc.constant('> '),
  fc.tuple(fc.nat({ max: 99999 }), fc.constantFrom('', 'RayTrainWorker ')).map(([pid, actor]) => `(${actor}pid=${pid}) `),
  fc.tuple(level, stamp).map(([l, s]) => `[${l}|trainer.py:2048] ${s} >> `),
  fc.constant('[titan] '),
  fc.tuple(level, loggerName).map(([l, n]) => `${l}:${n}:`),
  fc.tuple(level, loggerName).map(([l, n]) => `${l} - ${n} - `),
  // `%(asctime)s - %(name)s - %(levelname)s - `: a name before the level only after a stamp.
  fc.tuple(stamp, loggerName, level).map(([s, n, l]) => `${s} - ${n} - ${l} - `),
  level.map((l) => `[${l}] `),
  fc.tuple(stamp, fc.constantFrom('gpu-node', 'host1'), fc.nat({ max: 99999 })).map(([s, host, pid]) => `${s} ${host} python3[${pid}]: `),
);
const prefix = fc.array(head, { minLength: 1, maxLength: 4 }).map((heads) => heads.join(''));

describe('a prefix never changes what a line gives', () => {
  it('when four stacked prefixes make thirteen heads (a case the random prefixes found)', () => {
    const stacked =
      '[INFO|trainer.py:2048] 1990-01-01T00:00:00 >> Jan  1 00:00:00 - root - INFO - [INFO|trainer.py:2048] 1990-01-01T00:00:00 >> [INFO|trainer.py:2048] Jan  1 00:00:00 >> ';
    expect(withoutWallTime(recordsOfLine(`${stacked}step 10: loss 3.1`))).toEqual(withoutWallTime(recordsOfLine('step 10: loss 3.1')));
  });

  it('for every real log line and every format case, with random prefixes', () => {
    fc.assert(
      fc.property(fc.constantFrom(...LINES), prefix, (line, before) => {
        expect(withoutWallTime(recordsOfLine(`${before}${line}`))).toEqual(withoutWallTime(recordsOfLine(line)));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('every shared real log, with a prefix on every line, gives what it gives bare', () => {
  const logs = fs
    .readdirSync(capturedFixture('training-logs'))
    .filter((name) => name.endsWith('.log'))
    .map((name) => [name, readCapturedFixture('training-logs', name)] as const);
  // A job runner stamps each line it receives, that is each `\n`; a bar's `\r` redraws inside it are not stamped.
  const stampEveryLine = (text: string, prefix: string): string => text.replace(/^/gmu, prefix);
  const REAL_PREFIXES = ['2024-05-02T13:45:01.123456Z ', '[rank0]: ', '2024-05-02 13:45:01,123 - INFO - train - ', 'May  2 13:45:01 gpu-node python3[4242]: '];
  it.each(logs)('%s', (_name, text) => {
    const bare = parseLogText(text);
    for (const prefix of REAL_PREFIXES) {
      const prefixed = parseLogText(stampEveryLine(text, prefix));
      expect(prefixed.framework, prefix).toBe(bare.framework);
      // Line numbers may differ: a prefix in front of a bar's `\r` is a line of its own to the splitter.
      const content = (records: typeof bare.records) => records.map(({ wallTimeMs: _wallTimeMs, line: _line, ...record }) => record);
      expect(content(prefixed.records), prefix).toEqual(content(bare.records));
    }
  });
});
