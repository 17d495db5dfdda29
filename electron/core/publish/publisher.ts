// Publishing to an MLflow tracking server: a run becomes one MLflow run, a sweep a parent run with a child per run
// and its comparison as artifacts and verdict tags, a comparison a run of its own. Publishing again finds the same
// MLflow runs by their tags and sends nothing when nothing changed; nothing local changes unless the server took it.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import {
  ApiFailure,
  compareRequest,
  DEFAULT_MLFLOW_EXPERIMENT,
  type CompareRequest,
  type Comparison,
  type ComparisonRow,
  type ImportReport,
  type MlflowSettings,
  type Publication,
  type PublishOutcome,
  type PublishReport,
  type Run,
} from '../../shared/api.js';
import type { CompareService } from '../compare/compareService.js';
import type { Clock } from '../clock.js';
import type { EventHub } from '../events.js';
import type { MlflowStore, PublicationSubject, PublicationTarget, StoredPublication } from '../store/mlflowStore.js';
import type { Store } from '../store/store.js';
import type { SweepRecord } from '../store/sweepStore.js';
import { importFromMlflow } from './importer.js';
import { LogBatcher } from './logBatcher.js';
import {
  MlflowClient,
  MlflowError,
  proxiesArtifacts,
  DEFAULT_RETRY,
  type KeyValue,
  type MetricEntry,
  type MlflowExperiment,
  type MlflowRun,
  type MlflowRunStatus,
  type RetryPolicy,
} from './mlflowClient.js';
import {
  LOG_ARTIFACT,
  machineOf,
  metricKey,
  mlflowStatus,
  RUN_RECORD_ARTIFACT,
  runName,
  runParams,
  runTags,
  summaryMetrics,
  TAG_COMPARISON,
  TAG_DATABASE_ID,
  TAG_KIND,
  TAG_MACHINE,
  TAG_MACHINE_ID,
  TAG_RUN_ID,
  TAG_SWEEP_ID,
} from './runPayload.js';
import { outputStream, seriesEntries, systemEntries } from './runStreams.js';
import { experimentUrl, hasCredentials, runUrl, trackingServer, TrackingUriError, credentialsFromEnv, type TrackingServer } from './trackingServer.js';

export interface PublisherOptions {
  store: Store;
  /** Commits everything queued, terminal output included: what is published is read back from the file. */
  flush: () => Promise<void>;
  mlflow: MlflowStore;
  compare: CompareService;
  events: EventHub;
  clock: Clock;
  env: NodeJS.ProcessEnv;
  /** This engine's process: only it publishes, on their end, the runs and sweeps it recorded. */
  ownerPid: number;
  /** A run's final record once it has ended and its summary is made. */
  waitForRun: (id: number) => Promise<Run>;
  retry?: RetryPolicy;
}

/** What a run record artifact holds: the run as the app knows it, so another box can pull it back whole. */
export interface RunRecordArtifact {
  format: 'tuning-bench-run';
  version: 1;
  run: Run;
  /** Each metric's kind (train, eval, ...) and the name it was published under. */
  metrics: Record<string, { kind: string; key: string }>;
  databaseId: string;
  machine: { id: string; label: string; hostname: string };
}

interface Target extends PublicationTarget {
  server: TrackingServer;
}

const ENDED_SWEEP = new Set(['succeeded', 'failed', 'cancelled', 'interrupted']);

/** The digest of what is sent: equal digests, nothing to send again. */
function digestOf(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

function hashEntries(entries: Iterable<MetricEntry>): string {
  const hash = createHash('sha256');
  let count = 0;
  for (const entry of entries) {
    hash.update(`${entry.key}\u0000${entry.step}\u0000${entry.timestamp}\u0000${entry.value}\n`);
    count += 1;
  }
  return `${count}:${hash.digest('hex')}`;
}

function failure(error: unknown): unknown {
  if (error instanceof MlflowError) return new ApiFailure(error.kind === 'not_found' ? 'not_found' : 'unavailable', error.message);
  if (error instanceof TrackingUriError) return new ApiFailure('invalid_input', error.message);
  return error;
}

export class Publisher {
  /** One publication at a time: an automatic one and a person's click never race for the same MLflow run. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly background = new Set<Promise<void>>();
  private readonly handledRuns = new Set<number>();
  private readonly handledSweeps = new Set<number>();
  private readonly startedAt: Date;

  constructor(private readonly options: PublisherOptions) {
    this.startedAt = options.clock.now();
  }

  settings(): MlflowSettings {
    const stored = this.options.mlflow.settings();
    const fromEnv = this.options.env.TUNING_BENCH_MLFLOW_URI?.trim() || null;
    return {
      trackingUri: fromEnv !== null ? trackingServer(fromEnv, {}).uri : stored.trackingUri,
      experiment: this.options.env.TUNING_BENCH_MLFLOW_EXPERIMENT?.trim() || stored.experimentName || DEFAULT_MLFLOW_EXPERIMENT,
      autoPublish: fromEnv !== null || (stored.autoPublish && stored.trackingUri !== null),
      uriFrom: fromEnv !== null ? 'environment' : stored.trackingUri !== null ? 'setting' : null,
      credentials: credentialsFromEnv(this.options.env).credentials,
    };
  }

  configure(input: { trackingUri: string | null; experiment: string; autoPublish: boolean }): MlflowSettings {
    if (input.trackingUri !== null && hasCredentials(input.trackingUri)) {
      throw new ApiFailure(
        'invalid_input',
        'a saved tracking address keeps no password: remove it from the address and set MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD (or MLFLOW_TRACKING_TOKEN) where the app starts',
      );
    }
    if (input.autoPublish && input.trackingUri === null) throw new ApiFailure('invalid_input', 'publishing on its own needs a tracking server address');
    let uri: string | null;
    try {
      uri = input.trackingUri === null ? null : trackingServer(input.trackingUri, {}).uri;
    } catch (error) {
      throw failure(error);
    }
    this.options.mlflow.saveSettings({ trackingUri: uri, experimentName: input.experiment, autoPublish: input.autoPublish });
    return this.settings();
  }

  /** The record of what went where, each with its link into MLflow's UI. */
  publications(subject: PublicationSubject | null): Publication[] {
    return this.options.mlflow.publications(subject).map((p) => this.withUrl(p));
  }

  /** Origins of MLflow UIs this database publishes to: the desktop app opens links to them in the browser. */
  uiOrigins(): string[] {
    const uris = new Set(this.options.mlflow.publications(null).map((p) => p.trackingUri));
    const configured = this.settings().trackingUri;
    if (configured) uris.add(configured);
    return [...uris].flatMap((uri) => {
      try {
        return [new URL(uri).origin];
      } catch {
        return [];
      }
    });
  }

  /** The comparison's key: the same runs, sweeps, baseline and gate are the same comparison, published to the same MLflow run. */
  comparisonKey(request: CompareRequest): string {
    const canonical = {
      ...request,
      runIds: [...request.runIds].sort((a, b) => a - b),
      sweepIds: [...request.sweepIds].sort((a, b) => a - b),
      acrossMachines: request.acrossMachines === true,
    };
    return digestOf(canonical).slice(0, 20);
  }

  publish(request: {
    runIds: number[];
    sweepIds: number[];
    comparison?: CompareRequest | undefined;
    trackingUri?: string | undefined;
    experiment?: string | undefined;
  }): Promise<PublishReport> {
    if (request.runIds.length + request.sweepIds.length === 0 && request.comparison === undefined) {
      return Promise.reject(new ApiFailure('invalid_input', 'publish what? name runs, sweeps (s3) or a comparison'));
    }
    return this.enqueue(async () => {
      const target = this.target(request.trackingUri, request.experiment);
      const session = await this.open(target);
      for (const id of request.sweepIds) await session.sweep(this.requireSweep(id));
      for (const id of request.runIds) await session.standaloneRun(this.requireRun(id));
      if (request.comparison) await session.comparison(request.comparison);
      return session.report();
    });
  }

  /** Runs another box published, pulled back into this database (the whole experiment's when no MLflow run is named). */
  importRuns(request: { mlflowRunIds: string[]; trackingUri?: string | undefined; experiment?: string | undefined }): Promise<ImportReport> {
    return this.enqueue(async () => {
      const target = this.target(request.trackingUri, request.experiment);
      const client = new MlflowClient(target.server, this.options.retry ?? DEFAULT_RETRY);
      return importFromMlflow(this.options, client, target.experimentName, request.mlflowRunIds);
    });
  }

  /** Hears the engine's events: a run or sweep this engine recorded that ended is published where it was asked to be, or on its own. */
  onEvent(event: string, payload: unknown): void {
    if (event === 'runs.onDidChange') {
      const run = payload as Run;
      if (run.status !== 'running' && run.origin === null) this.afterRun(run);
    } else if (event === 'sweeps.onDidChange') {
      const sweep = payload as { id: number; status: string; endedAt: string | null };
      if (ENDED_SWEEP.has(sweep.status)) this.afterSweep(sweep.id, sweep.endedAt);
    }
  }

  /** Waits for publications under way (the CLI's process ends only after them). */
  async close(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
    await this.queue.catch(() => undefined);
  }

  private afterRun(run: Run): void {
    if (this.handledRuns.has(run.id) || !this.endedHere(this.options.mlflow.runEnginePid(run.id), run.endedAt)) return;
    this.handledRuns.add(run.id);
    this.inBackground(async () => {
      const final = await this.options.waitForRun(run.id);
      const targets = this.options.mlflow.pending('run', run.id);
      const auto = this.autoTarget();
      // A sweep's run is published with its sweep, when the sweep ends.
      if (auto && final.sweepId === null && !targets.some((t) => t.trackingUri === auto.trackingUri && t.experimentName === auto.experimentName)) {
        this.options.mlflow.markPending({ kind: 'run', runId: run.id }, auto, this.options.clock.now());
        targets.push(this.options.mlflow.publication({ kind: 'run', runId: run.id }, auto)!);
      }
      for (const target of targets) await this.publishPending({ kind: 'run', runId: run.id }, target);
    });
  }

  private afterSweep(id: number, endedAt: string | null): void {
    if (this.handledSweeps.has(id) || !this.endedHere(this.options.mlflow.sweepOwnerPid(id), endedAt)) return;
    this.handledSweeps.add(id);
    this.inBackground(async () => {
      const targets = this.options.mlflow.pending('sweep', id);
      const auto = this.autoTarget();
      if (auto && !targets.some((t) => t.trackingUri === auto.trackingUri && t.experimentName === auto.experimentName)) {
        this.options.mlflow.markPending({ kind: 'sweep', sweepId: id }, auto, this.options.clock.now());
        targets.push(this.options.mlflow.publication({ kind: 'sweep', sweepId: id }, auto)!);
      }
      for (const target of targets) await this.publishPending({ kind: 'sweep', sweepId: id }, target);
    });
  }

  /** Recorded by this engine and ended since it started: another process publishes its own, and old runs are not published on their own. */
  private endedHere(ownerPid: number | null, endedAt: string | null): boolean {
    return ownerPid === this.options.ownerPid && endedAt !== null && Date.parse(endedAt) >= this.startedAt.getTime() - 1000;
  }

  private autoTarget(): PublicationTarget | null {
    const settings = this.settings();
    return settings.autoPublish && settings.trackingUri !== null ? { trackingUri: settings.trackingUri, experimentName: settings.experiment } : null;
  }

  /** A publication asked for earlier (or on its own): made now, its failure said on its record rather than thrown. */
  private async publishPending(subject: Exclude<PublicationSubject, { kind: 'comparison' }>, stored: PublicationTarget): Promise<void> {
    try {
      const ids = subject.kind === 'run' ? { runIds: [subject.runId], sweepIds: [] } : { runIds: [], sweepIds: [subject.sweepId] };
      // Credentials come from this process's environment; the stored address has none.
      await this.publish({ ...ids, trackingUri: stored.trackingUri, experiment: stored.experimentName });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const record = this.options.mlflow.recordPendingFailed(subject, stored, message);
      if (record) this.options.events.emit('mlflow.onDidPublish', this.withUrl(record));
    }
  }

  private inBackground(work: () => Promise<void>): void {
    const task = work().catch((error: unknown) =>
      console.error(`tuning-bench: publishing to MLflow failed: ${error instanceof Error ? error.message : String(error)}`),
    );
    this.background.add(task);
    void task.finally(() => this.background.delete(task));
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next.catch((error: unknown) => {
      throw failure(error);
    });
  }

  private target(uri: string | undefined, experiment: string | undefined): Target {
    const settings = this.settings();
    // A URI given with the call keeps any credentials written in it; the setting's and the environment's have none stored.
    const address = uri || this.options.env.TUNING_BENCH_MLFLOW_URI?.trim() || settings.trackingUri;
    if (!address) {
      throw new ApiFailure(
        'invalid_input',
        'no MLflow tracking server: give one (--mlflow http://HOST:5000), or set TUNING_BENCH_MLFLOW_URI, or save one in the app (Publish to MLflow)',
      );
    }
    const server = trackingServer(address, this.options.env);
    return { server, trackingUri: server.uri, experimentName: experiment ?? settings.experiment };
  }

  private async open(target: Target): Promise<PublishSession> {
    const client = new MlflowClient(target.server, this.options.retry ?? DEFAULT_RETRY);
    await client.version();
    let experiment = await client.getExperimentByName(target.experimentName);
    if (experiment === null) {
      // MLflow 3's UI opens an experiment of this kind on its training view (runs, metrics, system metrics), not its GenAI one.
      const id = await client.createExperiment(target.experimentName, [{ key: 'mlflow.experimentKind', value: 'custom_model_development' }]);
      experiment = { experiment_id: id, name: target.experimentName, lifecycle_stage: 'active' };
    }
    if (experiment.lifecycle_stage !== 'active') {
      throw new ApiFailure(
        'conflict',
        `the experiment "${target.experimentName}" on ${target.trackingUri} is deleted: restore it in MLflow's UI (or \`mlflow experiments restore\`), or publish to another experiment`,
      );
    }
    return new PublishSession(this, this.options, client, target, experiment);
  }

  requireRun(id: number): Run {
    const run = this.options.store.runs.get(id);
    if (!run) throw new ApiFailure('not_found', `no run ${id}`);
    return run;
  }

  private requireSweep(id: number): SweepRecord {
    const sweep = this.options.store.sweeps.get(id);
    if (!sweep) throw new ApiFailure('not_found', `no sweep ${id}`);
    return sweep;
  }

  withUrl(publication: StoredPublication): Publication {
    const { digest: _digest, ...rest } = publication;
    return {
      ...rest,
      url:
        publication.experimentId !== null && publication.mlflowRunId !== null
          ? runUrl(publication.trackingUri, publication.experimentId, publication.mlflowRunId)
          : null,
    };
  }
}

/** What one MLflow run of ours is to be: its identity, name, times and content. */
interface Payload {
  identity: KeyValue[];
  name: string;
  startMs: number;
  endMs: number | null;
  status: MlflowRunStatus;
  params: KeyValue[];
  tags: KeyValue[];
  /** Metrics, read again when sent (a run's series are never held whole). */
  metrics: () => Iterable<MetricEntry>;
  artifacts: Array<{ path: string; contentType: string; body: () => string | Uint8Array | ReadableStream<Uint8Array> }>;
  digest: string;
  warnings: string[];
}

/** One publish call: one server and experiment, the outcomes so far. */
class PublishSession {
  private readonly outcomes: PublishOutcome[] = [];
  private readonly databaseId: string;

  constructor(
    private readonly publisher: Publisher,
    private readonly options: PublisherOptions,
    private readonly client: MlflowClient,
    private readonly target: Target,
    private readonly experiment: MlflowExperiment,
  ) {
    this.databaseId = options.mlflow.databaseId();
  }

  report(): PublishReport {
    return {
      trackingUri: this.target.trackingUri,
      experimentName: this.target.experimentName,
      experimentId: this.experiment.experiment_id,
      experimentUrl: experimentUrl(this.target.trackingUri, this.experiment.experiment_id),
      results: this.outcomes,
    };
  }

  /** A run on its own: under its sweep's MLflow run when that sweep was published here. */
  async standaloneRun(run: Run): Promise<PublishOutcome> {
    const sweepPublication = run.sweepId === null ? null : this.options.mlflow.publication({ kind: 'sweep', sweepId: run.sweepId }, this.target);
    return this.run(run, sweepPublication?.state === 'published' ? sweepPublication.mlflowRunId : null, null, null);
  }

  async sweep(sweep: SweepRecord): Promise<void> {
    const subject = { kind: 'sweep' as const, sweepId: sweep.id };
    if (!ENDED_SWEEP.has(sweep.status)) {
      this.options.mlflow.markPending(subject, this.target, this.options.clock.now());
      this.pending(subject);
      return;
    }
    const runs = this.options.store.runs.forSweep(sweep.id).filter((run) => run.status !== 'running');
    const request = compareRequest.parse({ sweepIds: [sweep.id] });
    const comparison = runs.length > 0 ? this.tryCompare(request) : null;
    const warnings: string[] = [];
    if (comparison === null) warnings.push('no comparison: the sweep has no finished runs to compare');
    const params: KeyValue[] = [
      { key: 'tuning_bench.plan', value: sweep.plan },
      { key: 'tuning_bench.repeats', value: String((sweep.request as { repeats?: unknown }).repeats ?? '') },
      { key: 'tuning_bench.workload', value: sweep.workloadName },
      ...Object.entries((sweep.request as { values?: Record<string, string> }).values ?? {}).map(([key, value]) => ({ key: metricKey(key), value })),
      ...((sweep.request as { vary?: Array<{ name: string; values: string[] }> }).vary ?? []).map((v) => ({
        key: metricKey(`vary.${v.name}`),
        value: v.values.join(','),
      })),
    ].filter((p) => p.value !== '');
    const best = comparison?.rows.find((row) => row.best);
    const machine = runs[0] ? machineOf(runs[0]) : null;
    const identity = [
      { key: TAG_KIND, value: 'sweep' },
      { key: TAG_SWEEP_ID, value: String(sweep.id) },
      { key: TAG_DATABASE_ID, value: this.databaseId },
    ];
    const tags: KeyValue[] = [
      ...identity,
      { key: 'mlflow.runName', value: sweep.name },
      { key: 'tuning_bench.status', value: sweep.status },
      ...(sweep.error ? [{ key: 'tuning_bench.error', value: sweep.error }] : []),
      ...(machine
        ? [
            { key: TAG_MACHINE, value: machine.label },
            { key: TAG_MACHINE_ID, value: machine.id },
          ]
        : []),
      ...(comparison ? [{ key: 'tuning_bench.baseline', value: comparison.rows.find((r) => r.isBaseline)?.name ?? '' }] : []),
      ...(best
        ? [
            { key: 'tuning_bench.best', value: best.name },
            { key: 'tuning_bench.best_speedup', value: best.speedup.ratio?.toFixed(4) ?? '' },
          ]
        : []),
      ...(comparison ? [{ key: 'tuning_bench.quality_gate', value: comparison.gateText }] : []),
    ].filter((t) => t.value !== '');
    const artifacts = this.comparisonArtifacts(request, comparison);
    const sweepJson = JSON.stringify(sweep, null, 2);
    artifacts.push({ path: 'tuning-bench/sweep.json', contentType: 'application/json', body: () => sweepJson });
    const startMs = Date.parse(sweep.createdAt);
    const status: MlflowRunStatus = sweep.status === 'succeeded' ? 'FINISHED' : sweep.status === 'cancelled' ? 'KILLED' : 'FAILED';
    const endMs = sweep.endedAt === null ? null : Date.parse(sweep.endedAt);
    const payload: Payload = {
      identity,
      name: sweep.name,
      startMs,
      endMs,
      status,
      params,
      tags,
      metrics: () => [],
      artifacts,
      digest: digestOf({ v: 1, params, tags, status, endMs, sweepJson, comparison: comparison ? stable(comparison) : null }),
      warnings,
    };
    const parent = await this.send(subject, payload, null);
    for (const run of runs) {
      const row = comparison?.rows.find((r) => r.runIds.includes(run.id)) ?? null;
      const configName = run.configIndex === null ? null : (sweep.configs[run.configIndex]?.name ?? null);
      await this.run(run, parent.mlflowRunId, row, configName);
    }
  }

  async comparison(request: CompareRequest): Promise<void> {
    const key = this.publisher.comparisonKey(request);
    for (const id of request.sweepIds) {
      const sweep = this.options.store.sweeps.get(id);
      if (!sweep) throw new ApiFailure('not_found', `no sweep ${id}`);
      await this.sweep(sweep);
    }
    const ids = new Set<string>();
    for (const id of request.runIds) {
      const run = this.publisher.requireRun(id);
      // A run pulled back from MLflow is there already, under its own box's name.
      if (run.origin !== null) ids.add(run.origin.mlflowRunId);
      else if (!this.outcomes.some((o) => o.runId === id)) await this.standaloneRun(run);
    }
    const comparison = this.tryCompare(request);
    if (comparison === null) throw new ApiFailure('invalid_input', 'nothing to compare: name runs or sweeps that have finished runs');
    for (const outcome of this.outcomes) if (outcome.kind === 'run' && outcome.mlflowRunId) ids.add(outcome.mlflowRunId);
    const identity = [
      { key: TAG_KIND, value: 'comparison' },
      { key: TAG_COMPARISON, value: key },
      { key: TAG_DATABASE_ID, value: this.databaseId },
    ];
    const verdicts = comparison.rows
      .map(
        (row) =>
          `${row.name}: ${row.isBaseline ? 'baseline' : `${row.speedup.verdict}${row.speedup.ratio === null ? '' : ` ${row.speedup.ratio.toFixed(3)}x`}`}, gate ${row.gate}`,
      )
      .join('; ');
    const warnings: string[] = [];
    const name = `comparison of ${[...request.sweepIds.map((id) => `sweep ${id}`), ...request.runIds.map((id) => `#${id}`)].join(', ')}`.slice(0, 250);
    const tags: KeyValue[] = [
      ...identity,
      { key: 'mlflow.runName', value: name },
      { key: 'tuning_bench.runs', value: [...ids].join(',').slice(0, 8000) },
      { key: 'tuning_bench.verdicts', value: verdicts.slice(0, 8000) },
      { key: 'tuning_bench.quality_gate', value: comparison.gateText },
    ];
    const params: KeyValue[] = [
      { key: 'tuning_bench.group_by', value: request.groupBy },
      { key: 'tuning_bench.across_machines', value: String(request.acrossMachines === true) },
      ...(request.baselineRunId !== undefined ? [{ key: 'tuning_bench.baseline_run_id', value: String(request.baselineRunId) }] : []),
    ];
    const now = this.options.clock.now().getTime();
    await this.send(
      { kind: 'comparison', key, request },
      {
        identity,
        name,
        startMs: now,
        endMs: now,
        status: 'FINISHED',
        params,
        tags,
        metrics: () => [],
        artifacts: this.comparisonArtifacts(request, comparison),
        digest: digestOf({ v: 1, params, tags, comparison: stable(comparison) }),
        warnings,
      },
      null,
    );
  }

  private tryCompare(request: CompareRequest): Comparison | null {
    try {
      return this.options.compare.compare(request);
    } catch (error) {
      if (error instanceof ApiFailure && error.code === 'invalid_input') return null;
      throw error;
    }
  }

  private comparisonArtifacts(request: CompareRequest, comparison: Comparison | null): Payload['artifacts'] {
    if (comparison === null) return [];
    return (['md', 'html', 'json'] as const).map((format) => ({
      path: `comparison/comparison.${format}`,
      contentType: { md: 'text/markdown; charset=utf-8', html: 'text/html; charset=utf-8', json: 'application/json' }[format],
      body: () => this.options.compare.export(request, format).content,
    }));
  }

  private async run(run: Run, parentMlflowRunId: string | null, row: ComparisonRow | null, configName: string | null): Promise<PublishOutcome> {
    const subject = { kind: 'run' as const, runId: run.id };
    if (run.origin !== null) {
      throw new ApiFailure(
        'conflict',
        `run ${run.id} was pulled back from MLflow (recorded on ${run.origin.machine.label}): it is published already, at ${run.origin.url}`,
      );
    }
    if (run.status === 'running') {
      this.options.mlflow.markPending(subject, this.target, this.options.clock.now());
      return this.pending(subject);
    }
    await this.options.flush();
    const warnings: string[] = [];
    const name = runName(run, configName);
    const params = runParams(run, warnings);
    const tags = runTags(run, { databaseId: this.databaseId, parentMlflowRunId, row, runName: name }, warnings);
    const identity = tags.filter((t) => t.key === TAG_KIND || t.key === TAG_RUN_ID || t.key === TAG_DATABASE_ID);
    const startMs = Date.parse(run.startedAt);
    const summaryAt = summaryTime(run, this.options.store);
    const summary = summaryMetrics(run).map((m): MetricEntry => ({ ...m, timestamp: summaryAt, step: 0 }));
    const mlflow = this.options.mlflow;
    const metrics = function* (): Generator<MetricEntry> {
      yield* summary;
      yield* seriesEntries(mlflow, run.id, startMs);
      yield* systemEntries(mlflow, run.id, startMs);
    };
    const kinds = mlflow.metricKinds(run.id);
    const record: RunRecordArtifact = {
      format: 'tuning-bench-run',
      version: 1,
      run,
      metrics: Object.fromEntries(Object.entries(kinds).map(([metric, kind]) => [metric, { kind, key: metricKey(metric) }])),
      databaseId: this.databaseId,
      machine: machineOf(run),
    };
    const recordJson = JSON.stringify(record, null, 2);
    const artifacts: Payload['artifacts'] = [
      { path: RUN_RECORD_ARTIFACT, contentType: 'application/json', body: () => recordJson },
      { path: LOG_ARTIFACT, contentType: 'text/plain; charset=utf-8', body: () => outputStream(mlflow, run.id) },
    ];
    const profile = this.options.store.profiles.forRun(run.id);
    let traceBytes: number | null = null;
    if (profile !== null && profile.runId === run.id) {
      const profileJson = JSON.stringify(profile, null, 2);
      artifacts.push({ path: 'tuning-bench/profile/summary.json', contentType: 'application/json', body: () => profileJson });
      const trace = profile.tracePath;
      if (trace !== null && fs.existsSync(trace)) {
        traceBytes = fs.statSync(trace).size;
        artifacts.push({
          path: 'tuning-bench/profile/trace.json',
          contentType: 'application/json',
          body: () => Readable.toWeb(fs.createReadStream(trace)) as ReadableStream<Uint8Array>,
        });
      }
    }
    const digest = digestOf({
      v: 1,
      params,
      tags,
      summary,
      series: hashEntries(seriesEntries(mlflow, run.id, startMs)),
      system: hashEntries(systemEntries(mlflow, run.id, startMs)),
      record: digestOf(recordJson),
      log: [run.outputBytes, run.outputDroppedBytes],
      traceBytes,
    });
    const endMs = run.endedAt === null ? null : Date.parse(run.endedAt);
    return this.send(
      subject,
      { identity, name, startMs, endMs, status: mlflowStatus(run), params, tags, metrics, artifacts, digest, warnings },
      parentMlflowRunId,
    );
  }

  private pending(subject: Exclude<PublicationSubject, { kind: 'comparison' }>): PublishOutcome {
    const outcome: PublishOutcome = {
      kind: subject.kind,
      runId: subject.kind === 'run' ? subject.runId : null,
      sweepId: subject.kind === 'sweep' ? subject.sweepId : null,
      comparisonKey: null,
      result: 'pending',
      mlflowRunId: null,
      url: null,
      parentMlflowRunId: null,
      warnings: [`still running: published to ${this.target.trackingUri} when it ends (by the process recording it)`],
    };
    this.outcomes.push(outcome);
    const record = this.options.mlflow.publication(subject, this.target);
    if (record) this.options.events.emit('mlflow.onDidPublish', this.publisher.withUrl(record));
    return outcome;
  }

  /** Finds the MLflow run (or makes it), sends what changed, and only then records it here. */
  private async send(subject: PublicationSubject, payload: Payload, parentMlflowRunId: string | null): Promise<PublishOutcome> {
    const { mlflow, clock, events } = this.options;
    const experimentId = this.experiment.experiment_id;
    const stored = mlflow.publication(subject, this.target);
    const outcome = (result: PublishOutcome['result'], mlflowRunId: string): PublishOutcome => {
      const made: PublishOutcome = {
        kind: subject.kind,
        runId: subject.kind === 'run' ? subject.runId : null,
        sweepId: subject.kind === 'sweep' ? subject.sweepId : null,
        comparisonKey: subject.kind === 'comparison' ? subject.key : null,
        result,
        mlflowRunId,
        url: runUrl(this.target.trackingUri, experimentId, mlflowRunId),
        parentMlflowRunId,
        warnings: payload.warnings,
      };
      this.outcomes.push(made);
      return made;
    };
    let remote = stored?.mlflowRunId ? await this.client.getRun(stored.mlflowRunId) : null;
    if (remote !== null && (remote.info.lifecycle_stage !== 'active' || remote.info.experiment_id !== experimentId)) remote = null;
    if (remote !== null && stored?.state === 'published' && stored.digest === payload.digest) return outcome('unchanged', remote.info.run_id);
    remote ??= await this.find(payload.identity);
    const created = remote === null;
    remote ??= await this.create(payload);
    const runId = remote.info.run_id;
    const batcher = new LogBatcher(runId, (metrics, params, tags) => this.client.logBatch(runId, metrics, params, tags));
    for (const param of payload.params) await batcher.addParam(param);
    for (const tag of payload.tags) await batcher.addTag(tag);
    for (const metric of payload.metrics()) await batcher.addMetric(metric);
    await batcher.flush();
    if (proxiesArtifacts(remote.info.artifact_uri)) {
      for (const artifact of payload.artifacts) await this.client.uploadArtifact(remote.info.artifact_uri!, artifact.path, artifact.body, artifact.contentType);
    } else if (payload.artifacts.length > 0) {
      payload.warnings.push(
        `artifacts not uploaded: the server keeps this run's artifacts at ${remote.info.artifact_uri ?? 'no location'}, which only its own machine can write (start it with --serve-artifacts, the default since MLflow 2.0); runs without ${RUN_RECORD_ARTIFACT} cannot be pulled back`,
      );
    }
    await this.client.updateRun(runId, { status: payload.status, endTime: payload.endMs });
    const record = mlflow.recordPublished(subject, this.target, { experimentId, mlflowRunId: runId, digest: payload.digest }, clock.now());
    events.emit('mlflow.onDidPublish', this.publisher.withUrl(record));
    return outcome(created ? 'created' : 'updated', runId);
  }

  /** The MLflow run that has these identifying tags, in this experiment. */
  private async find(identity: readonly KeyValue[]): Promise<MlflowRun | null> {
    const filter = identity.map((t) => `tags.\`${t.key}\` = '${t.value.replace(/'/gu, "\\'")}'`).join(' and ');
    const { runs } = await this.client.searchRuns([this.experiment.experiment_id], filter, undefined, 2);
    return runs[0] ?? null;
  }

  /** Makes the MLflow run, its identifying tags set at once; a call lost on the way is looked for before another is made. */
  private async create(payload: Payload): Promise<MlflowRun> {
    try {
      return await this.client.createRun({
        experimentId: this.experiment.experiment_id,
        runName: payload.name,
        startTime: payload.startMs,
        tags: payload.identity,
      });
    } catch (error) {
      if (error instanceof MlflowError && error.kind === 'unreachable') {
        const found = await this.find(payload.identity).catch(() => null);
        if (found) return found;
      }
      throw error;
    }
  }
}

/** When the summary was made: its last re-parse, else the run's end. A changed summary is logged later, so MLflow shows it as the latest. */
function summaryTime(run: Run, store: Store): number {
  const history = store.runs.summaryHistory(run.id);
  const last = history.at(-1);
  return Date.parse(last?.replacedAt ?? run.endedAt ?? run.startedAt);
}

/** A comparison without its time of making: the same comparison made twice is the same. */
function stable(comparison: Comparison): unknown {
  return { ...comparison, generatedAt: '' };
}
