// The mixed log the parser and import benchmarks time (benchmarkSupport.ts): checked here, since `npm run bench` is not
// part of the tests, that it is as large as asked and that the collector finds metrics in both of its variants.
import { describe, expect, it } from 'vitest';
import { MetricsCollector } from '../../../electron/core/metrics/collector.js';
import { buildMixedLog } from '../../../electron/core/metrics/parsers/benchmarkSupport.js';

/** The steps the collector finds metrics for, feeding it the text in pieces and then its end, as the output writer does. */
function stepsWithMetrics(text: string): number[] {
  const collector = new MetricsCollector({ metricRegex: '' });
  const pieceChars = 64 * 1024;
  const samples = [];
  for (let offset = 0; offset < text.length; offset += pieceChars) samples.push(...collector.push(text.slice(offset, offset + pieceChars), offset));
  samples.push(...collector.end(text.length));
  return [...new Set(samples.map((sample) => sample.step).filter((step): step is number => step !== null))].sort((a, b) => a - b);
}

describe('buildMixedLog', () => {
  it('makes about as many MiB as asked, and the collector finds metrics in it, with or without line prefixes', () => {
    const plain = buildMixedLog(1);
    expect(plain.length).toBeGreaterThanOrEqual(2 ** 20);
    expect(plain.length).toBeLessThan(1.2 * 2 ** 20);
    const plainSteps = stepsWithMetrics(plain);
    expect(plainSteps.length).toBeGreaterThan(100);
    // The prefixed variant (issue 13) is the benchmark's second row: it must give the collector metrics to find too.
    expect(stepsWithMetrics(buildMixedLog(1, { prefixed: true })).length).toBeGreaterThan(100);
  });
});
