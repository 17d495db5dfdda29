// One run's summary is the same however it was made: at its normal end, at recovery after the engine died, by an
// import of its log, and by parsing it again (issue 32: one recipe, units from one place).
import { afterAll, describe, expect, it } from 'vitest';
import type { MethodName, MethodOutput, RunSummary } from '../../electron/shared/api.js';
import { importLogText } from '../../electron/core/ingest/importLog.js';
import { summarizeInterrupted } from '../../electron/core/runner/recovery.js';
import { tempCore, callApi } from '../helpers/tempCore.js';

const harness = tempCore();
afterAll(() => harness.cleanup());

const call = <M extends MethodName>(method: M, input: unknown): Promise<MethodOutput<M>> => callApi(harness.core, method, input);

/**
 * A training's output whose every fact is printed (step times included), so no way of reading it depends on
 * when its lines arrived: five slow warm-up steps, then 300 steady ones, one an outlier. Its tokens per step are
 * not printed: they are the user's (`--tokens-per-step 1000`), kept with the run.
 */
const SCRIPT = [
  'i=1',
  'while [ $i -le 305 ]; do',
  '  if [ $i -le 5 ]; then t=250.0; elif [ $i -eq 200 ]; then t=90.0; else t=$((20 + i % 3)).0; fi',
  '  echo "step $i: loss 3.$((999 - i)), $t ms/step"',
  '  i=$((i + 1))',
  'done',
].join('\n');

/** What a summary says of the training, leaving out what only a live run can know (arrival times, telemetry). */
function facts(summary: RunSummary): Record<string, unknown> {
  return {
    steps: summary.steps,
    throughput: { median: summary.throughput.median, unit: summary.throughput.unit },
    steadySteps: summary.steadySteps,
    stepTimeMs: summary.stepTimeMs.median,
    withOutliers: summary.stepTimeMs.medianWithOutliers,
    finalLoss: summary.finalLoss,
    bestLoss: summary.bestLoss,
    lossFell: summary.lossFell,
    nanDetected: summary.nanDetected,
    warmup: summary.warmup,
    outlierSteps: summary.outlierSteps,
  };
}

describe('a run summarized four ways', () => {
  it('gets the same summary at its end, at recovery, imported and parsed again, in the units the user gave', async () => {
    const started = harness.core.startCommand({ adHoc: { command: ['sh', '-c', SCRIPT], cwd: harness.dir }, unitsPerStep: { tokens: 1000, samples: null } });
    const ended = await harness.core.runner.waitForExit(started.id);
    expect(ended.status).toBe('succeeded');
    const atEnd = facts(ended.summary);
    // The run as it was meant: 305 steps, warm-up 5, steady 21 ms a step, 1,000 tokens each.
    expect(atEnd).toMatchObject({ steps: 305, stepTimeMs: 21, throughput: { unit: 'tokens/s', median: expect.closeTo(1000 / 0.021, -1) } });
    expect(ended.summary.warmup?.steps).toBe(5);

    // Recovery summarizes a run the engine left running from what it stored (the path a killed engine's runs take).
    const recovered = summarizeInterrupted(harness.core.store, ended);
    expect(recovered).not.toBeNull();
    expect(facts(recovered!)).toEqual(atEnd);

    const text = Buffer.concat(harness.core.store.runs.outputAfter(ended.id, -1).map((chunk) => chunk.data)).toString();
    const imported = await importLogText(harness.core, text, { name: 'the same log', now: new Date() });
    // An import has no user's units (the log states none): the same steps, in steps/s.
    const importedFacts = facts(imported.summary);
    expect(importedFacts).toEqual({
      ...atEnd,
      throughput: { unit: 'steps/s', median: expect.closeTo((atEnd.throughput as { median: number }).median / 1000, 6) },
    });

    const [reparsed] = await call('runs.reparse', { ids: [ended.id] });
    expect(reparsed).toBeDefined();
    expect(facts(harness.core.store.runs.get(ended.id)!.summary)).toEqual(atEnd);
  }, 60_000);
});
