// Samples held as columns give back what was put in: steps (or none), times, names, values (non-finite too), sources and kinds.
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { MetricSample } from '../../../electron/core/metrics/samples.js';
import { SampleColumns } from '../../../electron/core/store/sampleColumns.js';

describe('SampleColumns', () => {
  it('round-trips samples past its first capacity, in order', () => {
    const kinds: Array<MetricSample['kind']> = ['train', 'eval', 'progress', 'summary'];
    const sources: Array<MetricSample['source']> = ['text', 'channel', 'derived'];
    const values = [1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0.25];
    const samples: MetricSample[] = Array.from({ length: 5000 }, (_, i) => ({
      step: i % 7 === 0 ? null : i,
      tMs: i * 3,
      name: `metric_${i % 40}`,
      value: values[i % values.length]!,
      source: sources[i % sources.length]!,
      kind: kinds[i % kinds.length]!,
    }));
    const columns = SampleColumns.from(samples);
    expect(columns.length).toBe(5000);
    expect(Array.from({ length: columns.length }, (_, i) => columns.sample(i))).toEqual(samples);
    expect(columns.names).toHaveLength(40);
    expect(columns.nameCode('metric_3')).toBe(3);
    expect(columns.nameCode('absent')).toBe(-1);
  });

  it('moves to another thread as columns: the same samples arrive, and the sender keeps no copy', () => {
    const samples: MetricSample[] = Array.from({ length: 1500 }, (_, i) => ({
      step: i % 5 === 0 ? null : i,
      tMs: i,
      name: ['loss', 'lr', 'grad_norm'][i % 3]!,
      value: i === 7 ? Number.NaN : i / 3,
      source: 'text',
      kind: i % 11 === 0 ? 'eval' : 'train',
    }));
    const columns = SampleColumns.from(samples);
    const { port1, port2 } = new MessageChannel();
    const { packed, transfer } = columns.pack();
    port1.postMessage(packed, transfer);
    expect(packed.step.byteLength).toBe(0);
    const arrived = SampleColumns.unpack(receiveMessageOnPort(port2)!.message as typeof packed);
    expect(Array.from({ length: arrived.length }, (_, i) => arrived.sample(i))).toEqual(samples);
    expect(arrived.nameCode('grad_norm')).toBe(2);
    port1.close();
  });

  it('picks indexes in order, of all or of a list', () => {
    const columns = SampleColumns.from([0, 1, 2, 3, 4, 5].map((i) => ({ step: i, tMs: 0, name: 'loss', value: i, source: 'text', kind: 'train' })));
    const even = columns.where((i) => columns.value[i]! % 2 === 0);
    expect([...even]).toEqual([0, 2, 4]);
    expect([...columns.where((i) => i > 1, even)]).toEqual([2, 4]);
  });
});
