// Pulling runs back from MLflow: runs another box published become read-only runs here, marked with the machine
// they ran on, with their summary, metric series and telemetry, so they can be looked at and compared.
import { z } from 'zod';
import { ApiFailure, run as runSchema, type ImportReport, type Run, type RunOrigin } from '../../shared/api.js';
import type { EventHub } from '../events.js';
import type { Clock } from '../clock.js';
import type { ImportedSample, MlflowStore } from '../store/mlflowStore.js';
import type { GpuSampleRecord, HostSample, MetricKind } from '../store/records.js';
import type { Store } from '../store/store.js';
import { proxiesArtifacts, type MlflowClient, type MlflowRun } from './mlflowClient.js';
import { RUN_RECORD_ARTIFACT, TAG_DATABASE_ID, TAG_KIND, TAG_MACHINE, TAG_MACHINE_ID, TAG_RUN_ID } from './runPayload.js';
import { runUrl } from './trackingServer.js';

export interface ImportDeps {
  store: Store;
  mlflow: MlflowStore;
  events: EventHub;
  clock: Clock;
}

/** The run record artifact as publishing writes it (publisher.ts RunRecordArtifact), checked before anything is stored. */
const runRecordArtifact = z.object({
  format: z.literal('tuning-bench-run'),
  version: z.literal(1),
  run: runSchema,
  metrics: z.record(z.string(), z.object({ kind: z.string(), key: z.string() })).default({}),
  machine: z.object({ id: z.string(), label: z.string() }),
});

const KINDS: readonly MetricKind[] = ['train', 'eval', 'progress', 'summary'];

/** MB (MLflow's system metrics: bytes / 1e6) back to the MiB the store keeps. */
const MIB_PER_MB = 1 / 1.048576;

/** Samples stored per transaction while a history is read page by page. */
const WRITE_BATCH = 5000;

type GpuField =
  | 'utilization_percentage'
  | 'memory_usage_megabytes'
  | 'memory_usage_percentage'
  | 'power_usage_watts'
  | 'power_usage_percentage'
  | 'temperature_celsius'
  | 'sm_clock_megahertz'
  | 'memory_clock_megahertz';

export async function importFromMlflow(deps: ImportDeps, client: MlflowClient, experimentName: string, mlflowRunIds: readonly string[]): Promise<ImportReport> {
  await client.version();
  const report: ImportReport = { imported: [], skipped: [] };
  const candidates: MlflowRun[] = [];
  if (mlflowRunIds.length > 0) {
    for (const id of mlflowRunIds) {
      const found = await client.getRun(id);
      if (found) candidates.push(found);
      else report.skipped.push({ mlflowRunId: id, reason: `no such run on ${client.server.uri}`, localRunId: null });
    }
  } else {
    const experiment = await client.getExperimentByName(experimentName);
    if (experiment === null)
      throw new ApiFailure(
        'not_found',
        `no experiment "${experimentName}" on ${client.server.uri}: name the one the runs were published to (--experiment NAME)`,
      );
    let page: string | undefined;
    do {
      const answer = await client.searchRuns([experiment.experiment_id], `tags.\`${TAG_KIND}\` = 'run'`, page);
      candidates.push(...answer.runs);
      page = answer.nextPageToken ?? undefined;
    } while (page);
  }
  const localDatabase = deps.mlflow.databaseId();
  for (const candidate of candidates) {
    const outcome = await importOne(deps, client, candidate, localDatabase);
    if ('run' in outcome) report.imported.push(outcome.run);
    else report.skipped.push(outcome);
  }
  return report;
}

type Skip = { mlflowRunId: string; reason: string; localRunId: number | null };

async function importOne(deps: ImportDeps, client: MlflowClient, remote: MlflowRun, localDatabase: string): Promise<{ run: Run } | Skip> {
  const mlflowRunId = remote.info.run_id;
  const tags = new Map(remote.data.tags.map((t) => [t.key, t.value]));
  const skip = (reason: string, localRunId: number | null = null): Skip => ({ mlflowRunId, reason, localRunId });
  const databaseId = tags.get(TAG_DATABASE_ID);
  const sourceRunId = Number(tags.get(TAG_RUN_ID));
  if (!databaseId || !Number.isInteger(sourceRunId))
    return skip('not published by Tuning Bench (it has no tuning_bench.run_id and tuning_bench.database_id tags)');
  if (tags.get(TAG_KIND) !== 'run') return skip(`a ${tags.get(TAG_KIND) ?? 'parent'}'s own MLflow run: pull back the runs under it`);
  if (databaseId === localDatabase)
    return skip(`published from this database: it is run ${sourceRunId} here`, deps.store.runs.get(sourceRunId) ? sourceRunId : null);
  const already = deps.mlflow.importedRunId({ mlflowRunId, databaseId, runId: sourceRunId });
  if (already !== null) return skip(`already pulled back, as run ${already}`, already);
  if (!proxiesArtifacts(remote.info.artifact_uri))
    return skip(`its artifacts (${remote.info.artifact_uri ?? 'none'}) are not served by the tracking server, so its ${RUN_RECORD_ARTIFACT} cannot be read`);
  const response = await client.downloadArtifact(remote.info.artifact_uri!, RUN_RECORD_ARTIFACT);
  if (response === null) return skip(`it has no ${RUN_RECORD_ARTIFACT} artifact (published without artifacts?)`);
  const parsed = runRecordArtifact.safeParse(await response.json().catch(() => null));
  if (!parsed.success)
    return skip(`its ${RUN_RECORD_ARTIFACT} is not one this version of Tuning Bench reads (${parsed.error.issues[0]?.message ?? 'unreadable'})`);
  const record = parsed.data;
  const origin: RunOrigin = {
    source: 'mlflow',
    trackingUri: client.server.uri,
    experimentId: remote.info.experiment_id,
    mlflowRunId,
    url: runUrl(client.server.uri, remote.info.experiment_id, mlflowRunId),
    databaseId,
    runId: record.run.id,
    machine: { id: tags.get(TAG_MACHINE_ID) ?? record.machine.id, label: tags.get(TAG_MACHINE) ?? record.machine.label },
    importedAt: deps.clock.now().toISOString(),
  };
  const id = deps.mlflow.insertImportedRun(record.run, origin);
  try {
    await importSamples(deps, client, remote, record.metrics, id, Date.parse(record.run.startedAt), record.run.summary.metricsSource ?? 'text');
  } catch (error) {
    // Either the whole run is here or none of it.
    deps.store.runs.remove(id);
    throw error;
  }
  const imported = deps.store.runs.get(id)!;
  deps.events.emit('runs.onDidChange', imported);
  return { run: imported };
}

/** Each metric's history page by page: series stored as they come, telemetry (one value a second) gathered into samples. */
async function importSamples(
  deps: ImportDeps,
  client: MlflowClient,
  remote: MlflowRun,
  published: Record<string, { kind: string; key: string }>,
  runId: number,
  startMs: number,
  /** Where the run's metrics came from on its own box, as its summary says (MLflow keeps no such thing). */
  source: 'text' | 'channel',
): Promise<void> {
  const byKey = new Map(
    Object.entries(published).map(([name, { kind, key }]) => [
      key,
      { name, kind: (KINDS as readonly string[]).includes(kind) ? (kind as MetricKind) : 'train' },
    ]),
  );
  const gpus = new Map<number, Map<number, Partial<Record<GpuField, number>>>>();
  const host = new Map<number, Partial<Record<string, number>>>();
  const keys = [...new Set(remote.data.metrics.map((m) => m.key))];
  for (const key of keys) {
    if (key.startsWith('summary/')) continue;
    const gpu = /^system\/gpu_(\d+)_(.+)$/u.exec(key);
    const hostField = gpu === null && key.startsWith('system/') ? key.slice('system/'.length) : null;
    const metric = byKey.get(key) ?? { name: key, kind: 'train' as const };
    let batch: ImportedSample[] = [];
    let page: string | undefined;
    do {
      const answer = await client.metricHistory(remote.info.run_id, key, page);
      for (const point of answer.metrics) {
        if (gpu !== null) {
          const index = Number(gpu[1]);
          const seconds = gpus.get(index) ?? new Map<number, Partial<Record<GpuField, number>>>();
          gpus.set(index, seconds);
          seconds.set(point.step, { ...seconds.get(point.step), [gpu[2] as GpuField]: point.value });
        } else if (hostField !== null) {
          host.set(point.step, { ...host.get(point.step), [hostField]: point.value });
        } else {
          batch.push({ step: point.step, tMs: Math.max(0, point.timestamp - startMs), name: metric.name, value: point.value, kind: metric.kind, source });
          if (batch.length >= WRITE_BATCH) {
            deps.mlflow.appendImportedMetrics(runId, batch);
            batch = [];
          }
        }
      }
      page = answer.nextPageToken ?? undefined;
    } while (page);
    if (batch.length > 0) deps.mlflow.appendImportedMetrics(runId, batch);
  }
  for (const [index, seconds] of gpus) {
    const samples = [...seconds].sort(([a], [b]) => a - b).map(([second, f]) => gpuSample(index, second, f));
    for (let i = 0; i < samples.length; i += WRITE_BATCH) deps.mlflow.appendImportedGpu(runId, samples.slice(i, i + WRITE_BATCH));
  }
  const hostSamples = [...host].sort(([a], [b]) => a - b).map(([second, f]) => hostSample(second, f));
  for (let i = 0; i < hostSamples.length; i += WRITE_BATCH) deps.mlflow.appendImportedHost(runId, hostSamples.slice(i, i + WRITE_BATCH));
}

function gpuSample(index: number, second: number, f: Partial<Record<GpuField, number>>): GpuSampleRecord & { powerLimitW: number | null } {
  const memUsedMiB = f.memory_usage_megabytes === undefined ? null : f.memory_usage_megabytes * MIB_PER_MB;
  const powerW = f.power_usage_watts ?? null;
  return {
    tMs: second * 1000,
    index,
    utilGpu: f.utilization_percentage ?? null,
    utilMem: null,
    memUsedMiB,
    memTotalMiB: memUsedMiB !== null && f.memory_usage_percentage ? (memUsedMiB * 100) / f.memory_usage_percentage : null,
    powerW,
    powerLimitW: powerW !== null && f.power_usage_percentage ? (powerW * 100) / f.power_usage_percentage : null,
    tempC: f.temperature_celsius ?? null,
    smClockMHz: f.sm_clock_megahertz ?? null,
    memClockMHz: f.memory_clock_megahertz ?? null,
    throttleReasons: null,
  };
}

function hostSample(second: number, f: Partial<Record<string, number>>): HostSample {
  const mib = (mb: number | undefined) => (mb === undefined ? 0 : mb * MIB_PER_MB);
  return {
    tMs: second * 1000,
    cpuTotal: f.cpu_utilization_percentage ?? 0,
    cpuPerCore: [],
    iowait: f.cpu_iowait_percentage ?? 0,
    memUsedMiB: mib(f.system_memory_usage_megabytes),
    swapUsedMiB: mib(f.swap_usage_megabytes),
    procCpu: f.training_process_cpu_percentage ?? 0,
    procRssMiB: mib(f.training_process_memory_megabytes),
    threads: 0,
    readBytesPerSec: 0,
    writeBytesPerSec: 0,
    busiestThreadCpu: 0,
  };
}
