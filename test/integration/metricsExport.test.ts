// A run's metric values streamed as the CLI's `metrics` prints them: the same text as the whole array printed at once,
// across pages of samples, to a sink that takes its time.
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { importLogText } from '../../electron/core/ingest/importLog.js';
import { MAX_METRICS_ANSWER } from '../../electron/shared/api.js';
import { SampleColumns } from '../../electron/core/store/sampleColumns.js';
import { tempCore } from '../helpers/tempCore.js';

const harness = tempCore();
afterAll(() => harness.cleanup());

/** A sink that takes each write after a tick and asks the writer to wait past 16 KiB: backpressure as a slow pipe gives it. */
function slowSink(): { sink: Writable; text: () => string } {
  const parts: string[] = [];
  const sink = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _encoding, done) {
      parts.push(chunk.toString('utf8'));
      setImmediate(done);
    },
  });
  return { sink, text: () => parts.join('') };
}

describe("a run's metric values, streamed", () => {
  it('are the table and the JSON the whole array gave, over pages of 20,000, NaN and lines without a step included', async () => {
    const lines: string[] = [];
    for (let step = 1; step <= 8000; step++)
      lines.push(`step ${step}: loss ${step === 4321 ? 'nan' : (4 - step / 4000).toFixed(4)}, 10.0 ms/step, grad_norm 0.5`);
    lines.push('eval loss 1.25');
    const run = await importLogText(harness.core, `${lines.join('\n')}\n`, { name: 'export', now: new Date('2026-11-28T12:00:00Z') });

    // What `metrics` printed before: the contract's every sample, as one array.
    const points = (await harness.core.handlers['runs.metrics']({ id: run.id }, { subscriberId: null })).map((point) => ({
      step: point.step,
      t: point.tMs / 1000,
      name: point.name,
      value: point.value,
      kind: point.kind,
      source: point.source,
    }));
    expect(points.length).toBeGreaterThan(20_000);
    expect(points).toContainEqual(expect.objectContaining({ step: 4321, name: 'loss', value: 'nan' }));

    const json = slowSink();
    expect(await harness.core.writeRunMetrics(run.id, 'json', json.sink)).toBe(points.length);
    expect(json.text()).toBe(`${JSON.stringify(points, null, 2)}\n`);

    const table = slowSink();
    expect(await harness.core.writeRunMetrics(run.id, 'table', table.sink)).toBe(points.length);
    const expected = ['STEP\tT_S\tNAME\tVALUE', ...points.map((p) => `${p.step ?? '-'}\t${p.t.toFixed(3)}\t${p.name}\t${p.value}`)].join('\n');
    expect(table.text()).toBe(`${expected}\n`);
  });

  it('writes nothing for a run without values, and stops when the reader goes away', async () => {
    const empty = await importLogText(harness.core, 'starting\nall done\n', { name: 'words', now: new Date('2026-11-28T12:00:00Z') });
    const sink = slowSink();
    expect(await harness.core.writeRunMetrics(empty.id, 'json', sink.sink)).toBe(0);
    expect(sink.text()).toBe('');

    const lines = Array.from({ length: 30_000 }, (_, i) => `step ${i + 1}: loss 1.5, 10.0 ms/step`);
    const long = await importLogText(harness.core, `${lines.join('\n')}\n`, { name: 'long', now: new Date('2026-11-28T12:00:00Z') });
    const closing = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, done) {
        // The reader leaves after the first page (a pipe to `head` closing).
        done();
        closing.destroy();
      },
    });
    // 60,000 values in pages of 20,000: the first page is written, no other.
    expect(await harness.core.writeRunMetrics(long.id, 'table', closing)).toBe(20_000);
  });
});

describe('a run too long for one answer', () => {
  it('is refused by runs.metrics with what to use instead, and still streamed whole', async () => {
    const store = harness.core.store;
    const run = store.runs.insert({
      workloadId: null,
      workloadName: 'long',
      command: ['train'],
      cwd: harness.dir,
      config: {},
      env: {},
      startedAt: new Date(0),
      enginePid: process.pid,
    });
    const columns = new SampleColumns(MAX_METRICS_ANSWER + 1);
    for (let step = 1; step <= MAX_METRICS_ANSWER + 1; step++) columns.push(step, step, 'loss', 1 + 1 / step, 'text', 'train');
    store.metrics.writeNow(run.id, columns);
    await expect(harness.core.handlers['runs.metrics']({ id: run.id }, { subscriberId: null })).rejects.toThrow(
      new RegExp(
        `run ${run.id} has 1,000,001 metric values, more than one answer carries \\(1,000,000\\): its charts read runs.chartMetrics, and \`tuning-bench metrics ${run.id}\` streams every value`,
        'u',
      ),
    );
    let lines = 0;
    const counting = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const byte of chunk) if (byte === 0x0a) lines++;
        done();
      },
    });
    expect(await harness.core.writeRunMetrics(run.id, 'table', counting)).toBe(MAX_METRICS_ANSWER + 1);
    expect(lines).toBe(MAX_METRICS_ANSWER + 2);
  });
});
