// Parser benchmark: a 100 MiB mixed training log through the engine's metrics collector on one core.
import { MetricsCollector } from '../electron/core/metrics/collector.js';
import { buildMixedLog } from '../electron/core/metrics/parsers/benchmarkSupport.js';
import { median, type BenchRow } from './stats.js';

const SIZE_MIB = Number(process.env.BENCH_PARSER_MIB ?? 100);
const ROUNDS = Number(process.env.BENCH_PARSER_ROUNDS ?? 3);
/** The writer thread hands the collector pty chunks of about this size. */
const CHUNK_CHARS = 64 * 1024;

export async function parserBenchmark(): Promise<BenchRow[]> {
  const rows = [...collectorRows('mixed log', buildMixedLog(SIZE_MIB))];
  // Issue 13: the same log with a job runner's, logger's or launcher's prefix on every line.
  rows.push(...collectorRows('mixed log, a prefix on every line', buildMixedLog(SIZE_MIB, { prefixed: true })));
  // Issue 27: the log a long training writes, one metric line per step (bench/dense.ts's line), read by line templates.
  rows.push(...collectorRows('dense log (one metric line a step)', denseLogText(DENSE_LINES)));
  return rows;
}

const DENSE_LINES = Number(process.env.BENCH_PARSER_DENSE_LINES ?? 1_000_000);

/** bench/dense.ts's log, in memory: `step i: loss x, 10.0 ms/step, grad_norm 0.5`. */
function denseLogText(lines: number): string {
  const parts: string[] = [];
  for (let step = 1; step <= lines; step++) {
    const loss = 4 * Math.exp(-step / 200_000) + 1 + ((step * 7919) % 1000) / 100_000;
    parts.push(`step ${step}: loss ${loss.toFixed(4)}, 10.0 ms/step, grad_norm 0.5\n`);
  }
  return parts.join('');
}

/** A first pass over this much lets the JIT compile the parsers before the clock starts. */
const WARM_UP_CHARS = 2 ** 20;

function collectorRows(what: string, text: string): BenchRow[] {
  const mib = Buffer.byteLength(text) / 2 ** 20;
  // Without it the first of three rounds ran cold and often was the median's low end; a long run is warm after its first MiB.
  const warm = new MetricsCollector({ metricRegex: '' });
  for (let offset = 0; offset < WARM_UP_CHARS; offset += CHUNK_CHARS) warm.push(text.slice(offset, offset + CHUNK_CHARS), offset);
  const rates: number[] = [];
  let samples = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const collector = new MetricsCollector({ metricRegex: '' });
    const started = performance.now();
    samples = 0;
    for (let offset = 0; offset < text.length; offset += CHUNK_CHARS) {
      samples += collector.push(text.slice(offset, offset + CHUNK_CHARS), offset).length;
    }
    samples += collector.end(text.length).length;
    rates.push(mib / ((performance.now() - started) / 1000));
  }
  const rate = median(rates);
  return [
    {
      benchmark: 'parsers',
      metric: `${what} through the collector (${mib.toFixed(0)} MiB, median of ${ROUNDS})`,
      value: rate,
      unit: 'MiB/s',
      target: '>= 50',
      pass: rate >= 50,
    },
    { benchmark: 'parsers', metric: `${what}: metric samples found`, value: samples, unit: 'samples' },
  ];
}
