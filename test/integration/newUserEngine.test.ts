// The engine's side of what a new user needed in the UI (issue 28): a file imported in pieces with progress, a run run again, charts told to refetch after a reparse.
import { afterAll, describe, expect, it } from 'vitest';
import type { EventArgs, MethodName, MethodOutput } from '../../electron/shared/api.js';
import { SYNTHETIC_TRAIN, tempCore, callApi } from '../helpers/tempCore.js';

const harness = tempCore();
afterAll(() => harness.cleanup());

const call = <M extends MethodName>(method: M, input: unknown): Promise<MethodOutput<M>> => callApi(harness.core, method, input);

const LOG = Array.from({ length: 300 }, (_, i) => `step ${i + 1}: loss ${(3 - i * 0.001).toFixed(4)}, 45 ms\n`).join('');

describe('a file imported in pieces (item 17)', () => {
  it('answers the bytes received after each piece, and ends as the same run a whole import makes', async () => {
    const { importId } = await call('runs.importBegin', { name: 'pieces', totalBytes: Buffer.byteLength(LOG) });
    const pieces = [LOG.slice(0, 1000), LOG.slice(1000, 5000), LOG.slice(5000)];
    const received: number[] = [];
    for (const text of pieces) received.push((await call('runs.importAppend', { importId, text })).receivedBytes);
    expect(received).toEqual([1000, 5000, Buffer.byteLength(LOG)]);
    const run = await call('runs.importFinish', { importId });
    const whole = await call('runs.import', { name: 'whole', text: LOG });
    expect(run.summary.steps).toBe(300);
    expect(run.summary.stepTimeMs.median).toBe(45);
    expect(run.summary).toEqual(whole.summary);
    expect(run.outputBytes).toBe(whole.outputBytes);
  });

  it('refuses an empty file, one too large before anything is sent, and keeps nothing of a cancelled one', async () => {
    const before = (await call('runs.list', {})).length;
    const empty = await call('runs.importBegin', { name: 'empty', totalBytes: 0 });
    await expect(call('runs.importFinish', { importId: empty.importId })).rejects.toThrow(/invalid_input: .*is empty \(0 bytes\)/u);
    await expect(call('runs.importBegin', { name: 'huge', totalBytes: 3 * 1024 ** 3 })).rejects.toThrow(/invalid_input: the log is larger than 2 GiB/u);
    const cancelled = await call('runs.importBegin', { name: 'cancelled', totalBytes: null });
    await call('runs.importAppend', { importId: cancelled.importId, text: LOG });
    await call('runs.importCancel', { importId: cancelled.importId });
    await expect(call('runs.importAppend', { importId: cancelled.importId, text: LOG })).rejects.toThrow(/not_found: no such import/u);
    expect((await call('runs.list', {})).length).toBe(before);
  });
});

describe('a run run again (item 12)', () => {
  it('runs the same typed command with the same values and work per step', async () => {
    const first = await call('runs.start', {
      command: { template: [`node ${SYNTHETIC_TRAIN} --steps {steps}`], mode: 'shell', cwd: harness.dir },
      values: { steps: '12' },
      unitsPerStep: { tokens: 512, samples: null },
    });
    await harness.core.waitForExit(first.id);
    const again = await call('runs.rerun', { id: first.id });
    const ended = await harness.core.waitForExit(again.id);
    expect(ended.command).toEqual(first.command);
    expect(ended.cwd).toBe(first.cwd);
    expect(ended.config).toEqual({ steps: '12' });
    expect(ended.unitsPerStep).toEqual({ tokens: 512, samples: null });
    expect(ended.status).toBe('succeeded');
  });

  it('keeps a typed command as typed, {variables} and their values, and runs it again with the same values', async () => {
    const template = `node ${SYNTHETIC_TRAIN} --steps {steps} --batch-size {batch}`;
    const first = await call('runs.start', { command: { template: [template], mode: 'shell', cwd: harness.dir }, values: { steps: '8', batch: '16' } });
    const typed = { template: [template], mode: 'shell', cwd: harness.dir, values: { steps: '8', batch: '16' } };
    expect(first.typedCommand).toEqual(typed);
    expect((await call('runs.get', { id: first.id })).typedCommand).toEqual(typed);
    await harness.core.waitForExit(first.id);
    const again = await harness.core.waitForExit((await call('runs.rerun', { id: first.id })).id);
    expect(again.command).toEqual(first.command);
    expect(again.typedCommand).toEqual(typed);
    // A run stored before typed commands were kept runs its command as it ran, as before.
    harness.core.store.db.prepare('UPDATE runs SET typed_command_json = NULL WHERE id = ?').run(first.id);
    const older = await harness.core.waitForExit((await call('runs.rerun', { id: first.id })).id);
    expect(older.command).toEqual(first.command);
    expect(older.config).toEqual({ steps: '8', batch: '16' });
    expect(older.typedCommand).toBeNull();
    // A workload's run is made from the workload, not typed: nothing to keep.
    const synthetic = (await call('workloads.list', {})).find((workload) => workload.name === 'synthetic')!;
    const ofWorkload = await call('runs.start', { workloadId: synthetic.id, values: { steps: '5' } });
    expect(ofWorkload.typedCommand).toBeNull();
    await harness.core.waitForExit(ofWorkload.id);
  });

  it('a typed run taught a regex runs again in the workload that holds the regex, and parses with it', async () => {
    const script = 'for i in $(seq 1 {steps}); do echo "[it $i] l=2.$((90 - i)) tm=45"; done';
    const first = await call('runs.start', { command: { template: [script], mode: 'shell', cwd: harness.dir }, values: { steps: '5' } });
    const ended = await harness.core.waitForExit(first.id);
    // What the UI's "Save regex and parse again" does: a workload of the run's command and the regex, then a reparse in it.
    const taught = await call('workloads.create', {
      name: `run ${first.id} regex`,
      description: '',
      cwd: ended.cwd,
      command: ended.command,
      mode: 'argv',
      env: {},
      variables: [],
      tokensPerStep: '',
      metricRegex: 'it (?<step>\\d+)\\] l=(?<loss>[\\d.]+) tm=(?<step_time_ms>[\\d.]+)',
    });
    await call('runs.reparse', { ids: [first.id], workloadId: taught.id });
    const again = await harness.core.waitForExit((await call('runs.rerun', { id: first.id })).id);
    expect(again.workloadId).toBe(taught.id);
    expect(again.command).toEqual(ended.command);
    expect(again.config).toEqual({ steps: '5' });
    expect(again.summary.steps).toBe(5);
    expect(again.summary.stepTimeMs.median).toBe(45);
  });

  it('refuses an imported log: it has no command', async () => {
    const imported = await call('runs.import', { name: 'log', text: LOG });
    await expect(call('runs.rerun', { id: imported.id })).rejects.toThrow(/invalid_input: .*imported log/u);
  });
});

describe('charts hear that a run was parsed again (item 4)', () => {
  it("a reparse says the run's metrics were replaced", async () => {
    const imported = await call('runs.import', { name: 'to parse again', text: LOG });
    const heard: EventArgs[] = [];
    const subscription = harness.core.subscribe((...args) => heard.push(args));
    await call('runs.reparse', { ids: [imported.id] });
    subscription.unsubscribe();
    expect(heard).toContainEqual(['runs.onMetricsReplaced', { runId: imported.id }]);
  });
});

describe('where a typed command runs unless told (item 11)', () => {
  it('app.info says where the engine was started', async () => {
    const info = await call('app.info', {});
    expect(info.cwd).toBe(process.env.INIT_CWD || process.cwd());
  });
});
