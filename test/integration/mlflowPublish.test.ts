// Publishing to a real MLflow tracking server (started by this file), read back through MLflow's REST API: a run's
// params, tags, series with their steps, system metrics and artifacts; a sweep's parent/child tree, comparison and
// verdict tags; publishing twice; a run published when it ends; a server that is down, not MLflow, or refuses.
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EngineCore } from '../../electron/core/createCore.js';
import { createClient, dispatch, sweepRequest, type ApiClient, type Run } from '../../electron/shared/api.js';
import { runCli } from '../helpers/cli.js';
import { coreWithFakeGpu } from '../helpers/fakeGpu.js';
import { allRuns, artifact, freePort, history, mlflowApi, paramsOf, skipMlflowTests, startMlflowServer, tagsOf, type MlflowServer } from '../helpers/mlflow.js';
import type { TempCore } from '../helpers/tempCore.js';

const skip = skipMlflowTests('mlflowPublish.test.ts');
let server: MlflowServer;
beforeAll(async () => {
  if (!skip) server = await startMlflowServer();
}, 240_000);
afterAll(async () => server?.stop(), 60_000);

const temps: TempCore[] = [];
afterEach(async () => {
  for (const temp of temps.splice(0)) await temp.cleanup();
});

function box(env: NodeJS.ProcessEnv = {}): { core: EngineCore; api: ApiClient; temp: TempCore } {
  const temp = coreWithFakeGpu(undefined, env);
  temps.push(temp);
  const core = temp.core;
  return { core, api: createClient((method, input) => dispatch(core.handlers, method, input)), temp };
}

async function synthetic(core: EngineCore, values: Record<string, string> = {}): Promise<Run> {
  const workload = core.store.workloads.getByName('synthetic')!;
  // As the faces start runs: the GPU settings in force are recorded with it.
  const run = await core.startRun({ workload, values: { steps: '120', batch: '8', ...values } });
  return core.runner.waitForExit(run.id);
}

async function rawLog(core: EngineCore, id: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  await core.writeRunLog(id, 'raw', new Writable({ write: (chunk: Buffer, _encoding, done) => (parts.push(chunk), done()) }));
  return Buffer.concat(parts);
}

describe.skipIf(skip)('publishing to a real MLflow tracking server', () => {
  it("gives a run's params, tags, series with their steps, system metrics at most 1 Hz, summary and artifacts", async () => {
    const { core, api } = box();
    const local = await synthetic(core);
    core.store.runs.annotate(local.id, { notes: 'the baseline' });
    const report = await api['mlflow.publish']({ runIds: [local.id], trackingUri: server.uri, experiment: 'one run' });
    expect(report.results).toEqual([expect.objectContaining({ kind: 'run', runId: local.id, result: 'created' })]);

    const [remote, ...others] = await allRuns(server, 'one run');
    expect(others).toEqual([]);
    const tags = tagsOf(remote!);
    const run = core.store.runs.get(local.id)!;
    expect(tags).toMatchObject({
      'tuning_bench.run_id': String(run.id),
      'tuning_bench.database_id': expect.stringMatching(/^[0-9a-f]{32}$/u),
      'mlflow.note.content': 'the baseline',
      'tuning_bench.exit_class': 'ok',
      'tuning_bench.gpu': 'NVIDIA GeForce RTX 4090',
      'tuning_bench.driver': '595.71.05',
      'tuning_bench.fairness': 'ok',
      'tuning_bench.throughput_unit': run.summary.throughput.unit,
    });
    expect(tags['tuning_bench.machine']).toContain('NVIDIA GeForce RTX 4090');
    expect(tags['mlflow.runName']).toMatch(new RegExp(`^#${run.id} synthetic batch=8 .*steps=120`, 'u'));
    expect(JSON.parse(tags['tuning_bench.gpu_settings']!)).toEqual(run.gpuSettings);
    if (run.git) expect(tags).toMatchObject({ 'mlflow.source.git.commit': run.git.commit, 'mlflow.source.git.dirty': String(run.git.dirty) });
    const params = paramsOf(remote!);
    expect(params).toMatchObject({ batch: '8', steps: '120', 'tuning_bench.cwd': run.cwd, 'tuning_bench.workload': 'synthetic' });
    expect(params['tuning_bench.command']).toContain('train.js');
    expect(remote!.info).toMatchObject({ status: 'FINISHED', start_time: Date.parse(run.startedAt), end_time: Date.parse(run.endedAt!) });

    // The loss series: every step the run logged, at its step, timestamped by when it was logged.
    const localLoss = core.store.metrics.forRun(run.id).filter((s) => s.name === 'loss' && s.step !== null);
    const remoteLoss = await history(server, remote!.info.run_id, 'loss');
    expect(remoteLoss.map((p) => p.step).sort((a, b) => a - b)).toEqual([...new Set(localLoss.map((s) => s.step!))].sort((a, b) => a - b));
    const first = localLoss[0]!;
    expect(remoteLoss.find((p) => p.step === first.step)).toMatchObject({ value: first.value, timestamp: Math.round(Date.parse(run.startedAt) + first.tMs) });

    // Summary metrics with the unit in the name.
    const metrics = Object.fromEntries((remote!.data.metrics ?? []).map((m) => [m.key, m.value]));
    expect(metrics['summary/throughput_tokens_per_s']).toBeCloseTo(run.summary.throughput.median!, 6);
    expect(metrics['summary/step_time_ms_median']).toBeCloseTo(run.summary.stepTimeMs.median!, 6);
    expect(metrics['summary/vram_peak_mib']).toBe(run.summary.gpu!.vramPeakMiB);
    expect(metrics['summary/energy_per_1k_tokens_joules']).toBeCloseTo((run.summary.gpu!.powerMeanW! / run.summary.throughput.median!) * 1000, 6);

    // Telemetry as MLflow's system metrics, one value a second at most (the store keeps four).
    const gpuSamples = core.store.telemetry.gpuSamples(run.id);
    const utilization = await history(server, remote!.info.run_id, 'system/gpu_0_utilization_percentage');
    expect(utilization.length).toBeGreaterThan(0);
    expect(utilization.length).toBeLessThan(gpuSamples.length);
    const seconds = utilization.map((p) => p.step).sort((a, b) => a - b);
    expect(new Set(seconds).size).toBe(seconds.length);
    const second = seconds[0]!;
    const inSecond = gpuSamples.filter((s) => Math.floor(s.tMs / 1000) === second && s.utilGpu !== null);
    const mean = inSecond.reduce((sum, s) => sum + s.utilGpu!, 0) / inSecond.length;
    expect(Number(utilization.find((p) => p.step === second)!.value)).toBeCloseTo(Math.round(mean * 10) / 10, 6);
    for (const key of [
      'system/gpu_0_power_usage_watts',
      'system/gpu_0_memory_usage_megabytes',
      'system/cpu_utilization_percentage',
      'system/system_memory_usage_megabytes',
    ]) {
      expect((await history(server, remote!.info.run_id, key)).length, key).toBeGreaterThan(0);
    }

    // Artifacts: the raw log byte for byte, and the run's record.
    expect((await artifact(server, remote!, 'tuning-bench/output.log'))!.equals(await rawLog(core, run.id))).toBe(true);
    const record = JSON.parse((await artifact(server, remote!, 'tuning-bench/run.json'))!.toString('utf8'));
    expect(record).toMatchObject({ format: 'tuning-bench-run', run: { id: run.id, summary: { throughput: { median: run.summary.throughput.median } } } });

    // The local record of where it went, with the link into MLflow's UI.
    const [publication] = await api['mlflow.publications']({ runId: run.id });
    expect(publication).toMatchObject({
      state: 'published',
      trackingUri: server.uri,
      experimentName: 'one run',
      mlflowRunId: remote!.info.run_id,
      url: `${server.uri}/#/experiments/${remote!.info.experiment_id}/runs/${remote!.info.run_id}`,
    });
  }, 120_000);

  it('publishing twice changes nothing, and a lost local record finds the same MLflow run by its tags', async () => {
    const { core, api } = box();
    const run = await synthetic(core, { steps: '60' });
    const first = await api['mlflow.publish']({ runIds: [run.id], trackingUri: server.uri, experiment: 'twice' });
    const [remote] = await allRuns(server, 'twice');
    const loss = await history(server, remote!.info.run_id, 'loss');
    const power = await history(server, remote!.info.run_id, 'system/gpu_0_power_usage_watts');

    const again = await api['mlflow.publish']({ runIds: [run.id], trackingUri: server.uri, experiment: 'twice' });
    expect(again.results[0]).toMatchObject({ result: 'unchanged', mlflowRunId: first.results[0]!.mlflowRunId });

    // This database's record of it is gone (a restored backup, say): the run is found by tuning_bench.run_id and the database's id.
    core.store.db.prepare('DELETE FROM mlflow_publications').run();
    const third = await api['mlflow.publish']({ runIds: [run.id], trackingUri: server.uri, experiment: 'twice' });
    expect(third.results[0]).toMatchObject({ result: 'updated', mlflowRunId: first.results[0]!.mlflowRunId });
    expect(await allRuns(server, 'twice')).toHaveLength(1);
    expect(await history(server, remote!.info.run_id, 'loss')).toHaveLength(loss.length);
    expect(await history(server, remote!.info.run_id, 'system/gpu_0_power_usage_watts')).toHaveLength(power.length);
  }, 120_000);

  it("gives a sweep a parent run with a child per run, its comparison as artifacts and each child's verdict as tags", async () => {
    const { core, api, temp } = box();
    const synthetic = core.store.workloads.getByName('synthetic')!;
    const started = await core.sweeps.start(
      sweepRequest.parse({ workloadId: synthetic.id, values: { steps: '60' }, vary: [{ name: 'batch', values: ['8', '16'] }], repeats: 2, waitForIdle: false }),
    );
    const sweep = await core.sweeps.waitForEnd(started.id);
    expect(sweep.status).toBe('succeeded');
    const comparison = await api['compare.runs']({ sweepIds: [sweep.id] });

    // As a person would, from the command line on the same database.
    const cli = runCli(['--db', temp.dbPath, 'publish', `s${sweep.id}`, '--mlflow', server.uri, '--experiment', 'sweeps'], { timeoutMs: 120_000 });
    expect(cli.stderr).toBe('');
    expect(cli.status).toBe(0);
    expect(cli.stdout).toContain(`sweep ${sweep.id}: created`);
    expect(cli.stdout).toContain('5 created');

    const runs = await allRuns(server, 'sweeps');
    const parent = runs.find((r) => tagsOf(r)['tuning_bench.kind'] === 'sweep')!;
    expect(tagsOf(parent)).toMatchObject({
      'mlflow.runName': sweep.name,
      'tuning_bench.sweep_id': String(sweep.id),
      'tuning_bench.best': comparison.rows.find((r) => r.best)!.name,
    });
    expect(paramsOf(parent)).toMatchObject({ 'tuning_bench.plan': 'ladder', 'vary.batch': '8,16', steps: '60' });
    const children = runs.filter((r) => tagsOf(r)['mlflow.parentRunId'] === parent.info.run_id);
    expect(children.map((r) => Number(tagsOf(r)['tuning_bench.run_id'])).sort()).toEqual(sweep.configs.flatMap((c) => c.runIds).sort());
    for (const child of children) {
      const row = comparison.rows.find((r) => r.runIds.includes(Number(tagsOf(child)['tuning_bench.run_id'])))!;
      expect(tagsOf(child)).toMatchObject({
        'tuning_bench.verdict': row.speedup.verdict,
        'tuning_bench.config': row.name,
        'tuning_bench.quality_gate': row.gate,
      });
      if (!row.isBaseline) {
        expect(Number(tagsOf(child)['tuning_bench.speedup'])).toBeCloseTo(row.speedup.ratio!, 4);
        expect(tagsOf(child)['tuning_bench.speedup_ci95']).toBe(`${row.speedup.ci95!.low.toFixed(4)}-${row.speedup.ci95!.high.toFixed(4)}`);
      }
    }
    const markdown = (await artifact(server, parent, 'comparison/comparison.md'))!.toString('utf8');
    expect(markdown).toContain(comparison.rows[1]!.name);
    const json = JSON.parse((await artifact(server, parent, 'comparison/comparison.json'))!.toString('utf8'));
    expect(JSON.stringify(json)).toContain(comparison.rows[1]!.speedup.verdict);
    expect((await artifact(server, parent, 'comparison/comparison.html'))!.toString('utf8')).toContain('<html');

    // Again: nothing changes on the server.
    const again = runCli(['--db', temp.dbPath, 'publish', `s${sweep.id}`, '--mlflow', server.uri, '--experiment', 'sweeps', '--json'], { timeoutMs: 120_000 });
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout).results.map((r: { result: string }) => r.result)).toEqual(Array(5).fill('unchanged'));
    expect(await allRuns(server, 'sweeps')).toHaveLength(5);
  }, 240_000);

  it('publishes a run still running when it ends, and every finished run by itself with TUNING_BENCH_MLFLOW_URI', async () => {
    const { core, api } = box({ TUNING_BENCH_MLFLOW_URI: server.uri, TUNING_BENCH_MLFLOW_EXPERIMENT: 'automatic' });
    expect(await api['mlflow.settings']({})).toMatchObject({ trackingUri: server.uri, experiment: 'automatic', autoPublish: true, uriFrom: 'environment' });
    const workload = core.store.workloads.getByName('synthetic')!;
    const live = core.runner.start({ workload, values: { steps: '400', batch: '8' } });
    const asked = await api['mlflow.publish']({ runIds: [live.id], experiment: 'asked while running' });
    expect(asked.results[0]).toMatchObject({ result: 'pending' });
    expect((await api['mlflow.publications']({ runId: live.id }))[0]).toMatchObject({ state: 'pending', experimentName: 'asked while running' });
    await core.runner.waitForExit(live.id);
    await expect
      .poll(() => core.publisher.publications({ kind: 'run', runId: live.id }).filter((p) => p.state === 'published').length, {
        timeout: 60_000,
        interval: 100,
      })
      .toBe(2);
    for (const experiment of ['asked while running', 'automatic']) {
      const [remote] = await allRuns(server, experiment);
      expect(tagsOf(remote!)['tuning_bench.run_id']).toBe(String(live.id));
      expect(remote!.info.status).toBe('FINISHED');
    }
  }, 120_000);

  it('says why when the server is down, is not MLflow, or holds the experiment deleted; nothing local changes', async () => {
    const { core, api } = box();
    const run = await synthetic(core, { steps: '40' });
    const before = JSON.stringify(core.store.runs.get(run.id));
    const down = `http://127.0.0.1:${await freePort()}`;
    await expect(api['mlflow.publish']({ runIds: [run.id], trackingUri: down })).rejects.toThrow(
      /cannot reach the MLflow server at .*connection refused; 5 tries over 7\.5 s/u,
    );
    await expect(api['mlflow.publish']({ runIds: [run.id], trackingUri: `${server.uri}/not-here` })).rejects.toThrow(
      /answered 404 Not Found: is .* an MLflow tracking server/u,
    );
    const { experiment_id: id } = await mlflowApi<{ experiment_id: string }>(server, 'POST', 'experiments/create', { name: 'gone' });
    await mlflowApi(server, 'POST', 'experiments/delete', { experiment_id: id });
    await expect(api['mlflow.publish']({ runIds: [run.id], trackingUri: server.uri, experiment: 'gone' })).rejects.toThrow(
      /experiment "gone" .* is deleted: restore it/u,
    );
    expect(await api['mlflow.publications']({})).toEqual([]);
    expect(JSON.stringify(core.store.runs.get(run.id))).toBe(before);
  }, 120_000);

  it('pulls back runs another box published, read-only and marked with their machine; compare gives no verdict across machines unless asked', async () => {
    // The other box: an H100, and a host name of its own, as its database records them.
    const other = box({ FAKE_NVIDIA_SMI_GPU_NAME: 'NVIDIA H100 80GB HBM3' });
    const remoteRun = await synthetic(other.core, { batch: '16' });
    other.core.store.runs.addFingerprint(remoteRun.id, { hostname: 'gpu-box-2' });
    await other.api['mlflow.publish']({ runIds: [remoteRun.id], trackingUri: server.uri, experiment: 'lab' });

    const here = box();
    const localRun = await synthetic(here.core, { batch: '8' });
    const pulled = await here.api['mlflow.import']({ trackingUri: server.uri, experiment: 'lab' });
    expect(pulled.skipped).toEqual([]);
    const [imported] = pulled.imported;
    expect(imported).toMatchObject({
      config: remoteRun.config,
      summary: { throughput: { median: remoteRun.summary.throughput.median } },
      origin: { source: 'mlflow', runId: remoteRun.id, trackingUri: server.uri, machine: { label: 'gpu-box-2 (NVIDIA H100 80GB HBM3)' } },
    });
    const loss = (id: number, core: EngineCore) => core.store.metrics.forRun(id).filter((s) => s.name === 'loss' && s.step !== null).length;
    expect(loss(imported!.id, here.core)).toBe(
      new Set(
        other.core.store.metrics
          .forRun(remoteRun.id)
          .filter((s) => s.name === 'loss' && s.step !== null)
          .map((s) => s.step),
      ).size,
    );
    expect(here.core.store.telemetry.gpuSamples(imported!.id).length).toBeGreaterThan(0);

    // Again: already here. From its own database: it is that database's run.
    expect((await here.api['mlflow.import']({ trackingUri: server.uri, experiment: 'lab' })).skipped).toEqual([
      expect.objectContaining({ reason: `already pulled back, as run ${imported!.id}`, localRunId: imported!.id }),
    ]);
    expect((await other.api['mlflow.import']({ trackingUri: server.uri, experiment: 'lab' })).skipped[0]!.reason).toBe(
      `published from this database: it is run ${remoteRun.id} here`,
    );

    // Read-only: not parsed again, not profiled, not published again from here.
    await expect(here.api['runs.reparse']({ ids: [imported!.id] })).rejects.toThrow(/pulled back from MLflow .* read-only/u);
    await expect(here.api['mlflow.publish']({ runIds: [imported!.id], trackingUri: server.uri })).rejects.toThrow(/published already/u);

    const compared = await here.api['compare.runs']({ runIds: [localRun.id, imported!.id], groupBy: 'run' });
    const row = compared.rows[1]!;
    expect(row).toMatchObject({ machine: 'gpu-box-2 (NVIDIA H100 80GB HBM3)', speedup: { ratio: null, verdict: 'unknown' }, best: false });
    expect(row.speedup.reason).toMatch(/no speedup across machines/u);
    expect(row.differences[0]).toBe('machine: gpu-box-2 (NVIDIA H100 80GB HBM3) vs this machine');
    const across = await here.api['compare.runs']({ runIds: [localRun.id, imported!.id], groupBy: 'run', acrossMachines: true });
    expect(across.rows[1]!.speedup.ratio).toBeCloseTo(imported!.summary.throughput.median! / localRun.summary.throughput.median!, 6);
    expect(across.rows[1]!.differences[0]).toMatch(/^machine: /u);
  }, 180_000);
});
