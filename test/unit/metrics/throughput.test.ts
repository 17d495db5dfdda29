// Parsing speed on 20 MB of the real fixture logs, mixed; the figure is reported, not asserted (machines differ).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLogText, parserThroughput } from '../../../electron/core/metrics/parsers/index.js';
import { readSharedFixture, sharedFixture } from '../../helpers/fixtures.js';

const TARGET_MIB = 20;
const ROUNDS = 3;
const BYTES_PER_MIB = 1024 * 1024;

/** The fixture logs, repeated in turn until the text reaches the target size. */
function mixedFixtureText(mebibytes: number): string {
  const logs = fs
    .readdirSync(sharedFixture('training-logs'))
    .filter((name) => name.endsWith('.log'))
    .sort()
    .map((name) => readSharedFixture('training-logs', name));
  const parts: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < mebibytes * BYTES_PER_MIB; i++) {
    const log = logs[i % logs.length] ?? '';
    const text = log.endsWith('\n') ? log : `${log}\n`;
    parts.push(text);
    bytes += Buffer.byteLength(text);
  }
  return parts.join('');
}

describe('throughput', () => {
  it(`parses ${TARGET_MIB} MiB of mixed fixture logs and reports MiB/s`, (context) => {
    const text = mixedFixtureText(TARGET_MIB);
    const size = Buffer.byteLength(text) / BYTES_PER_MIB;
    // Best of three: test files run side by side, and the wall clock also counts time spent waiting for a core.
    let seconds = Number.POSITIVE_INFINITY;
    let records = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      records = parseLogText(text).records.length;
      seconds = Math.min(seconds, (performance.now() - started) / 1000);
    }
    const message = `parseLogText: ${size.toFixed(1)} MiB of mixed fixture logs in ${seconds.toFixed(2)} s = ${(size / seconds).toFixed(1)} MiB/s (best of ${ROUNDS}), ${records} records`;
    context.annotate(message);
    process.stdout.write(`${message}\n`);
    expect(records).toBeGreaterThan(0);
  });

  it('runs the benchmark helper bench/ will call', (context) => {
    const result = parserThroughput(5);
    const message = `parserThroughput(5): ${result.mbPerSec.toFixed(1)} MiB/s over ${result.megabytes.toFixed(1)} MiB, ${result.records} records`;
    context.annotate(message);
    process.stdout.write(`${message}\n`);
    expect(result.records).toBeGreaterThan(0);
    expect(result.mbPerSec).toBeGreaterThan(0);
  });
});
