// What a run recorded, read back: its output, metrics, telemetry, numeric lines and code.
import { ApiFailure, MAX_METRICS_ANSWER } from '../../../shared/api.js';
import { CodeDiffError, codeDiffBetween } from '../../experiments/codeDiff.js';
import { toPoint } from '../../metrics/runMetrics.js';
import { testUserRegexSafely } from '../../metrics/userRegex.js';
import { gpuPoint, hostPoint } from '../../telemetry/points.js';
import { storedGpuSamples } from '../../telemetry/summary.js';
import { requireRun } from '../lookups.js';
import type { EngineServices, HandlersOf } from '../services.js';

type RecordMethod =
  | 'runs.output'
  | 'runs.ackOutput'
  | 'runs.saveLog'
  | 'runs.metrics'
  | 'runs.chartMetrics'
  | 'runs.telemetry'
  | 'runs.numericLines'
  | 'runs.codeDiff'
  | 'runs.codeDiffBetween'
  | 'metrics.testRegex';

export function runRecordHandlers({ store, recording, tasks, events, runner, config }: EngineServices): HandlersOf<RecordMethod> {
  /** The run, once everything this thread still queues for it is stored, so a reader sees all it has written so far. */
  const storedRun = async (id: number) => {
    requireRun(store, id);
    await recording.flush();
  };
  return {
    'runs.output': async ({ id, afterSeq, maxBytes, fromEnd }) => {
      await storedRun(id);
      const page = store.runs.outputPage(id, { afterSeq, maxBytes, fromEnd });
      return { chunks: page.chunks, complete: page.reachedEnd && !runner.isActive(id), skippedBytes: page.skippedBytes, lastSeq: page.lastSeq };
    },
    'runs.ackOutput': ({ id, chars }, context) => {
      events.ack(context.subscriberId, id, chars);
      return { ok: true as const };
    },
    'runs.saveLog': () => {
      // Saving needs a face: Electron's dialog or the server's download; each face overrides this.
      throw new ApiFailure('unavailable', 'this face cannot save files; use `tuning-bench log RUN_ID > file`');
    },
    'runs.metrics': async ({ id }) => {
      await storedRun(id);
      const count = store.metrics.count(id);
      if (count > MAX_METRICS_ANSWER) {
        throw new ApiFailure(
          'invalid_input',
          `run ${id} has ${count.toLocaleString('en-US')} metric values, more than one answer carries (${MAX_METRICS_ANSWER.toLocaleString('en-US')}): ` +
            `its charts read runs.chartMetrics, and \`tuning-bench metrics ${id}\` streams every value`,
        );
      }
      return store.metrics.forRun(id).map(toPoint);
    },
    'runs.chartMetrics': async ({ id, maxPointsPerMetric }) => {
      await storedRun(id);
      const { samples, stored } = store.metrics.chartSamples(id, maxPointsPerMetric);
      return { points: samples.map(toPoint), stored };
    },
    'runs.telemetry': async ({ id }) => {
      await storedRun(id);
      return { gpu: storedGpuSamples(store.telemetry, id).map(gpuPoint), host: store.telemetry.hostSamples(id).map(hostPoint) };
    },
    'runs.numericLines': async ({ id, limit }) => {
      await storedRun(id);
      return tasks.numericLines(id, limit);
    },
    'metrics.testRegex': ({ pattern, text }) => testUserRegexSafely(pattern, text),
    'runs.codeDiff': ({ id }) => {
      const { git, origin } = requireRun(store, id);
      if (origin && git?.dirty)
        return { diff: null, reason: `the diff stayed on ${origin.machine.label}, where the run was recorded (sha256 ${git.diffSha256 ?? 'unknown'})` };
      if (!git) return { diff: null, reason: 'the run did not start in a git repository' };
      if (!git.dirty || git.diffSha256 === null)
        return { diff: null, reason: `the code was committed as it ran (${git.commit?.slice(0, 12) ?? 'no commit'}), with no uncommitted changes` };
      const diff = store.runs.codeDiff(git.diffSha256);
      if (!diff) return { diff: null, reason: `the diff was ${git.diffBytes} bytes, too large to keep; its sha256 is ${git.diffSha256}` };
      return { diff: diff.toString('utf8'), reason: null };
    },
    'runs.codeDiffBetween': async ({ fromId, toId }) => {
      try {
        return await codeDiffBetween(requireRun(store, fromId), requireRun(store, toId), (sha) => store.runs.codeDiff(sha), config.childEnv);
      } catch (error) {
        if (error instanceof CodeDiffError) throw new ApiFailure('invalid_input', error.message);
        throw error;
      }
    },
  };
}
