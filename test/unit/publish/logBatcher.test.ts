// log-batch calls within MLflow's limits whatever comes: at most 1000 metrics, 100 params, 100 tags, 1000 entities
// and 1 MB of JSON each, in order, nothing lost.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LOG_BATCH_LIMITS, LogBatcher } from '../../../electron/core/publish/logBatcher.js';
import { logBatchBody, type KeyValue, type MetricEntry } from '../../../electron/core/publish/mlflowClient.js';

type Entry = { kind: 'metric'; value: MetricEntry } | { kind: 'param' | 'tag'; value: KeyValue };

interface Call {
  metrics: MetricEntry[];
  params: KeyValue[];
  tags: KeyValue[];
}

async function send(entries: readonly Entry[]): Promise<Call[]> {
  const calls: Call[] = [];
  const batcher = new LogBatcher('0123456789abcdef0123456789abcdef', async (metrics, params, tags) => {
    calls.push({ metrics, params, tags });
  });
  for (const entry of entries) {
    if (entry.kind === 'metric') await batcher.addMetric(entry.value);
    else if (entry.kind === 'param') await batcher.addParam(entry.value);
    else await batcher.addTag(entry.value);
  }
  await batcher.flush();
  return calls;
}

function withinLimits(call: Call): void {
  expect(call.metrics.length).toBeLessThanOrEqual(LOG_BATCH_LIMITS.metrics);
  expect(call.params.length).toBeLessThanOrEqual(LOG_BATCH_LIMITS.params);
  expect(call.tags.length).toBeLessThanOrEqual(LOG_BATCH_LIMITS.tags);
  expect(call.metrics.length + call.params.length + call.tags.length).toBeLessThanOrEqual(LOG_BATCH_LIMITS.entities);
  expect(Buffer.byteLength(logBatchBody('0123456789abcdef0123456789abcdef', call.metrics, call.params, call.tags))).toBeLessThanOrEqual(LOG_BATCH_LIMITS.bytes);
}

const metric = (i: number): Entry => ({ kind: 'metric', value: { key: 'loss', value: i / 7, timestamp: 1_700_000_000_000 + i, step: i } });

describe('log-batch calls', () => {
  it('splits 2500 metrics into calls of 1000, 1000 and 500, in order', async () => {
    const calls = await send(Array.from({ length: 2500 }, (_, i) => metric(i)));
    expect(calls.map((c) => c.metrics.length)).toEqual([1000, 1000, 500]);
    expect(calls.flatMap((c) => c.metrics.map((m) => m.step))).toEqual(Array.from({ length: 2500 }, (_, i) => i));
  });

  it('keeps params and tags to 100 a call, and the whole call under 1 MB however long the values', async () => {
    const long = 'x'.repeat(7999);
    const entries: Entry[] = [
      ...Array.from({ length: 250 }, (_, i): Entry => ({ kind: 'param', value: { key: `p${i}`, value: String(i) } })),
      ...Array.from({ length: 250 }, (_, i): Entry => ({ kind: 'tag', value: { key: `t${i}`, value: long } })),
    ];
    const calls = await send(entries);
    for (const call of calls) withinLimits(call);
    expect(calls.flatMap((c) => c.params)).toHaveLength(250);
    expect(calls.flatMap((c) => c.tags)).toHaveLength(250);
    // 250 tags of 8 KB are 2 MB: at least three calls for them.
    expect(calls.filter((c) => c.tags.length > 0).length).toBeGreaterThanOrEqual(3);
  });

  it('writes NaN and infinities as the strings MLflow reads', () => {
    const body = JSON.parse(
      logBatchBody(
        'r',
        [
          { key: 'a', value: Number.NaN, timestamp: 1, step: 0 },
          { key: 'b', value: Number.POSITIVE_INFINITY, timestamp: 1, step: 0 },
          { key: 'c', value: Number.NEGATIVE_INFINITY, timestamp: 1, step: 0 },
        ],
        [],
        [],
      ),
    ) as { metrics: Array<{ value: unknown }> };
    expect(body.metrics.map((m) => m.value)).toEqual(['NaN', 'Infinity', '-Infinity']);
  });

  it('holds every limit for any mix of entries, and loses or reorders none', async () => {
    const entry = fc.oneof(
      fc.record({
        kind: fc.constant('metric' as const),
        value: fc.record({ key: fc.string({ minLength: 1, maxLength: 250 }), value: fc.double(), timestamp: fc.nat(), step: fc.nat() }),
      }),
      fc.record({
        kind: fc.constantFrom('param' as const, 'tag' as const),
        value: fc.record({ key: fc.string({ minLength: 1, maxLength: 250 }), value: fc.string({ maxLength: 8000 }) }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 3000 }), async (entries) => {
        const calls = await send(entries);
        for (const call of calls) withinLimits(call);
        for (const kind of ['metric', 'param', 'tag'] as const) {
          const sent: unknown[] = calls.flatMap((c): unknown[] => (kind === 'metric' ? c.metrics : kind === 'param' ? c.params : c.tags));
          expect(sent).toEqual(entries.filter((e) => e.kind === kind).map((e) => e.value));
        }
      }),
      { numRuns: 25 },
    );
  });
});
