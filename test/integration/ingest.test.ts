// Imports stream through the live ingest path with bounded memory; stored runs parse again; workloads change.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import type { MethodName, MethodOutput } from '../../electron/shared/api.js';
import { CLI_ENTRY, TSX_LOADER, runCli } from '../helpers/cli.js';
import { importLogPieces, importLogText } from '../../electron/core/ingest/importLog.js';
import { makeTempDir, tempCore, callApi } from '../helpers/tempCore.js';
import { SUMMARY_IN_PLACE_SAMPLES } from '../../electron/core/ingest/storedRunSummary.js';

const harness = tempCore();
afterAll(() => harness.cleanup());

const call = <M extends MethodName>(method: M, input: unknown): Promise<MethodOutput<M>> => callApi(harness.core, method, input);

/** About a MiB of a chatty training log: a step line every 40 lines among filler, from step `first` on. */
function chattyBlock(first: number): { text: string; steps: number } {
  const lines: string[] = [];
  let steps = 0;
  for (let line = 0; line < 10_000; line++) {
    if (line % 40 === 0) lines.push(`myrun it=${first + steps++} L=${(3 - (first + steps) * 1e-7).toFixed(5)}`);
    else lines.push(`INFO data shard ${line} prefetched, cache warm, nothing to see here ${'.'.repeat(30)}`);
  }
  return { text: `${lines.join('\n')}\n`, steps };
}

describe('import streams a log of any size', () => {
  it('keeps peak memory bounded on a log piped in that is never held whole', async () => {
    const dir = makeTempDir();
    const db = path.join(dir, 'runs.db');
    // More than the bound asserted below: a log held whole could not pass.
    const total = 512 * 1024 * 1024;
    const child = spawn(process.execPath, ['--import', TSX_LOADER, CLI_ENTRY, '--db', db, 'import', '-', '--name', 'piped', '--json'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    let peakKiB = 0;
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    // The child's own high-water mark of resident memory, read while it works and just before it exits.
    const watch = setInterval(() => {
      try {
        const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
        peakKiB = Math.max(peakKiB, Number(/VmHWM:\s+(\d+)/u.exec(status)?.[1] ?? 0));
      } catch {
        // Gone already: the last reading stands.
      }
    }, 20);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stdin.on('error', () => undefined);
    let sent = 0;
    let steps = 0;
    while (sent < total && child.exitCode === null) {
      const block = chattyBlock(steps);
      steps += block.steps;
      sent += Buffer.byteLength(block.text);
      // A child that died stops the writing (its exit is then the failure to report), never hangs it.
      if (!child.stdin.write(block.text)) await Promise.race([new Promise((resolve) => child.stdin.once('drain', resolve)), exited]);
    }
    child.stdin.end();
    const code = await exited;
    clearInterval(watch);
    expect(code, stderr).toBe(0);
    const run = JSON.parse(stdout) as { outputBytes: number; summary: { steps: number | null } };
    expect(run.outputBytes).toBe(sent);
    // The log is 512 MiB: a process that held it whole would be far above this.
    expect(peakKiB / 1024).toBeLessThan(400);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it('stores and summarizes an import without sending its samples back to the engine thread, where nothing listens', async () => {
    // The output path's threads' messages, heard beside the engine's own listeners: the writer stores an import's
    // samples; the parser, a thread started with the first live run, parses a live run's.
    const output = harness.core.recording.output as unknown as { worker: Worker; parser: Worker | null };
    const announced = new Set<number>();
    const hear = (message: { type: string; runId?: number }) => {
      if (message.type === 'metrics' && message.runId !== undefined) announced.add(message.runId);
    };
    output.worker.on('message', hear);
    try {
      const log = Array.from({ length: 50 }, (_, i) => `iter ${i + 1}: loss ${(3 - i / 50).toFixed(3)}, time 10.0ms\n`).join('');
      const imported = await importLogText(harness.core, log, { name: 'quiet import', now: new Date() });
      expect(harness.core.store.metrics.count(imported.id)).toBeGreaterThanOrEqual(100);
      expect(imported.summary).toMatchObject({ steps: 50, metricsSource: 'text' });
      // An import parses on the engine's thread: no parser thread was started for it.
      expect(output.parser).toBeNull();

      // A live run's samples still come back: its view and its summary hear them this way.
      const live = harness.core.startCommand({ adHoc: { command: ['sh', '-c', 'echo "iter 1: loss 2.5, time 10.0ms"'], cwd: harness.dir } });
      output.parser!.on('message', hear);
      await harness.core.runner.waitForExit(live.id);
      await harness.core.recording.flush();
      expect([...announced]).toEqual([live.id]);
    } finally {
      output.worker.off('message', hear);
      output.parser?.off('message', hear);
    }
  });

  it('starts the thread that makes its summary as the import starts, so that start overlaps the parse', async () => {
    // Its own engine: the shared one's task thread may have been started by an earlier test.
    const own = tempCore();
    try {
      const tasks = own.core.tasks as unknown as { worker: Worker | null };
      expect(tasks.worker).toBeNull();
      let upWhileParsing: boolean | null = null;
      async function* pieces(): AsyncGenerator<Buffer> {
        yield Buffer.from('iter 1: loss 3.000, time 10.0ms\n');
        // The first piece is in: the summary is still a whole parse away.
        upWhileParsing = tasks.worker !== null;
        yield Buffer.from('iter 2: loss 2.900, time 10.0ms\n');
      }
      const imported = await importLogPieces(own.core, { name: 'prewarmed', now: new Date() }, null, pieces());
      expect(upWhileParsing).toBe(true);
      expect(imported.summary.steps).toBe(2);
    } finally {
      await own.cleanup();
    }
  });

  it("summarises a short run on the engine's thread, never starting the task thread for it, and a long one there", async () => {
    const own = tempCore();
    try {
      const tasks = own.core.tasks as unknown as { worker: Worker | null };
      const lines = (count: number) => ['awk', `BEGIN { for (i = 1; i <= ${count}; i++) printf "iter %d: loss %.5f, time 10.0ms\\n", i, 3 - i / 100000 }`];
      const short = own.core.startCommand({ adHoc: { command: lines(30), cwd: own.dir } });
      expect((await own.core.runner.waitForExit(short.id)).summary).toMatchObject({ steps: 30, finalLoss: 2.9997 });
      expect(tasks.worker).toBeNull();
      // Two samples a line: past SUMMARY_IN_PLACE_SAMPLES, the summary is long work for the task thread.
      const long = own.core.startCommand({ adHoc: { command: lines(12_000), cwd: own.dir } });
      expect((await own.core.runner.waitForExit(long.id)).summary).toMatchObject({ steps: 12_000, finalLoss: 2.88 });
      expect(own.core.store.metrics.count(long.id)).toBeGreaterThan(SUMMARY_IN_PLACE_SAMPLES);
      expect(tasks.worker).not.toBeNull();
    } finally {
      await own.cleanup();
    }
  });

  it("keeps a bar's last redraw at each step, on import and when the import is parsed again", async () => {
    // A step every 2 s of the bar's clock, so each is kept (an import thins a bar by its clock).
    const bar = (step: number, loss: number) =>
      `\rEpoch 0:  ${step}%|█▋        | ${step}/100 [0${Math.floor((2 * step) / 60)}:${String((2 * step) % 60).padStart(2, '0')}<01:13,  0.50it/s, loss=${loss.toFixed(3)}, v_num=0]`;
    // Three redraws a step (Lightning redraws when the postfix changes), then the bar's last line.
    const log = Array.from({ length: 40 }, (_, i) => bar(i + 1, 3) + bar(i + 1, 2.5) + bar(i + 1, 2 - i / 100)).join('') + '\n';
    const imported = await importLogText(harness.core, log, { name: 'bar redraws', now: new Date() });
    const losses = () => harness.core.store.metrics.forRun(imported.id).filter((s) => s.name === 'loss');
    expect(losses().map((s) => s.step)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(losses()[9]!.value).toBeCloseTo(1.91, 9);
    expect(imported.summary).toMatchObject({ steps: 40, finalLoss: 1.61 });
    const [again] = await call('runs.reparse', { ids: [imported.id] });
    expect(again!.after.samples).toBe(again!.before.samples);
    expect(losses()).toHaveLength(40);
  });

  it('refuses a stream past --max-bytes and keeps nothing of it', () => {
    const dir = makeTempDir();
    const db = path.join(dir, 'runs.db');
    // An endless log through a pipe (its size unknown up front): a file of zero bytes would be refused as not text.
    const fifo = path.join(dir, 'endless.log');
    execFileSync('mkfifo', [fifo]);
    const writer = spawn('sh', ['-c', 'yes "step 1 loss 0.5" > "$0"', fifo], { stdio: 'ignore' });
    const result = runCli(['--db', db, 'import', fifo, '--max-bytes', '4M']);
    writer.kill();
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${fifo}: the log is larger than 4 MiB; nothing was imported`);
    const runs = runCli(['--db', db, 'runs', '--json']);
    expect(JSON.parse(runs.stdout)).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a file larger than --max-bytes before storing anything', () => {
    const dir = makeTempDir();
    const log = path.join(dir, 'train.log');
    fs.writeFileSync(log, 'step 1: loss 3.1\n'.repeat(10_000));
    const result = runCli(['--db', path.join(dir, 'runs.db'), 'import', log, '--max-bytes', '1K']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/larger than 1024 bytes; nothing was imported. Give a larger --max-bytes/u);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('a stored run parsed again', () => {
  it("uses the workload's edited regex, replaces the text metrics at once and keeps the old summary", async () => {
    const workload = await call('workloads.create', {
      name: 'own format',
      cwd: harness.dir,
      command: ['sh', '-c', 'for i in 1 2 3 4 5 6; do echo "myrun it=$i L=3.$((9 - i))"; sleep 0.02; done'],
      env: {},
      variables: [],
      metricRegex: 'myrun it=(?<step>\\d+) LOSS=(?<loss>[\\d.]+)',
    });
    const started = harness.core.runner.start({ workload, values: {} });
    const first = await harness.core.runner.waitForExit(started.id);
    expect(first.summary.metricsSource).toBeNull();

    await call('workloads.update', { id: workload.id, workload: { ...workload, metricRegex: 'myrun it=(?<step>\\d+) L=(?<loss>[\\d.]+)' } });
    const [result] = await call('runs.reparse', { ids: [started.id] });
    expect(result!.before.samples).toBe(0);
    expect(result!.after).toMatchObject({ samples: 6, steps: 6 });
    expect(result!.run.summary).toMatchObject({ steps: 6, finalLoss: 3.3, metricsSource: 'text' });
    const history = await call('runs.summaryHistory', { id: started.id });
    expect(history).toHaveLength(1);
    expect(history[0]!.summary.metricsSource).toBeNull();

    // Again: the same samples, not twice as many.
    await call('runs.reparse', { ids: [started.id] });
    expect(harness.core.store.metrics.count(started.id)).toBe(6);
    expect(await call('runs.summaryHistory', { id: started.id })).toHaveLength(2);
  });

  it('files an import under a workload so its regex applies, and says so when nothing parsed', async () => {
    const imported = await call('runs.import', { name: 'elsewhere', text: 'epoch one: val_nll=2.50\nepoch two: val_nll=2.25\n' });
    expect(imported.summary.metricsSource).toBeNull();
    const numeric = await call('runs.numericLines', { id: imported.id });
    expect(numeric.lines).toEqual(['epoch one: val_nll=2.50', 'epoch two: val_nll=2.25']);
    const regex = await call('workloads.create', {
      name: 'val nll',
      cwd: harness.dir,
      command: ['true'],
      env: {},
      variables: [],
      metricRegex: 'val_nll=(?<eval_loss>[\\d.]+)',
    });
    const [result] = await call('runs.reparse', { ids: [imported.id], workloadId: regex.id });
    expect(result!.run).toMatchObject({ workloadId: regex.id, workloadName: 'val nll' });
    expect(result!.run.summary.evalLoss).toBe(2.25);
  });

  it('parses a dense log of many blocks again into the same samples, summary and series, the old parse gone', async () => {
    // Three metrics a step over 30,000 steps: blocks of every metric, several transactions of the new parse.
    const log = Array.from({ length: 30_000 }, (_, i) => `step ${i + 1}: loss ${(4 - i / 10_000).toFixed(4)}, 10.0 ms/step, grad_norm 0.5\n`).join('');
    const imported = await importLogText(harness.core, log, { name: 'dense', now: new Date() });
    const before = harness.core.store.metrics.forRun(imported.id);
    const series = harness.core.store.runs.series(imported.id);
    expect(series?.metrics.loss?.length).toBeGreaterThan(100);
    const blocks = () => harness.core.store.db.prepare('SELECT COUNT(*) FROM metric_blocks WHERE run_id = ?').pluck().get(imported.id);
    const blocksBefore = blocks();
    const [again] = await call('runs.reparse', { ids: [imported.id] });
    expect(again!.before.samples).toBe(90_000);
    expect(again!.after.samples).toBe(90_000);
    expect(harness.core.store.metrics.forRun(imported.id)).toEqual(before);
    const { notes: _notes, ...summary } = again!.run.summary;
    const { notes: _before, ...summaryBefore } = imported.summary;
    expect(summary).toEqual(summaryBefore);
    expect(harness.core.store.runs.series(imported.id)).toEqual(series);
    expect(blocks()).toBe(blocksBefore);
  });

  it('refuses a running run and an unknown one, changing nothing', async () => {
    const workload = harness.core.store.workloads.getByName('synthetic')!;
    const running = harness.core.runner.start({ workload, values: { steps: '100000' } });
    await expect(call('runs.reparse', { ids: [running.id] })).rejects.toThrow(/conflict: run \d+ is still running/u);
    await expect(call('runs.reparse', { ids: [987654] })).rejects.toThrow(/not_found: no run 987654/u);
    harness.core.runner.stop(running.id);
    await harness.core.runner.waitForExit(running.id);
  });
});

describe('workloads are edited and removed', () => {
  it('keeps the runs of a removed workload and refuses to touch a built-in one', async () => {
    const workload = await call('workloads.create', { name: 'short lived', cwd: harness.dir, command: ['true'], env: {}, variables: [] });
    const run = harness.core.runner.start({ workload, values: {} });
    await harness.core.runner.waitForExit(run.id);
    await call('workloads.remove', { id: workload.id });
    expect((await call('workloads.list', {})).map((w) => w.name)).not.toContain('short lived');
    expect(await call('runs.get', { id: run.id })).toMatchObject({ workloadId: null, workloadName: 'short lived' });

    const synthetic = harness.core.store.workloads.getByName('synthetic')!;
    await expect(call('workloads.remove', { id: synthetic.id })).rejects.toThrow(/conflict: "synthetic" is built into Tuning Bench/u);
    await expect(call('workloads.update', { id: synthetic.id, workload: { ...synthetic, metricRegex: 'x' } })).rejects.toThrow(/cannot be changed/u);
  });
});

describe('work per step stated with a run', () => {
  it('gives an ad-hoc command that prints only steps a throughput in tokens/s, and samples/s likewise', async () => {
    const script = 'for i in $(seq 1 30); do echo "myrun it=$i L=3.0"; sleep 0.01; done';
    const regex = await call('workloads.create', {
      name: 'per step',
      cwd: harness.dir,
      command: ['sh', '-c', script],
      env: {},
      variables: [],
      metricRegex: 'myrun it=(?<step>\\d+) L=(?<loss>[\\d.]+)',
    });
    const tokens = harness.core.runner.start({ workload: regex, values: {}, unitsPerStep: { tokens: 4096, samples: null } });
    const samples = harness.core.runner.start({ workload: regex, values: {}, unitsPerStep: { tokens: null, samples: 16 } });
    const [withTokens, withSamples] = await Promise.all([harness.core.runner.waitForExit(tokens.id), harness.core.runner.waitForExit(samples.id)]);
    expect(withTokens.unitsPerStep).toEqual({ tokens: 4096, samples: null });
    expect(withTokens.summary.throughput.unit).toBe('tokens/s');
    // Throughput is the stated work over the measured step time (medians of each, so within a step's noise).
    expect((withTokens.summary.throughput.median! * withTokens.summary.stepTimeMs.median!) / (4096 * 1000)).toBeCloseTo(1, 1);
    expect(withSamples.summary.throughput.unit).toBe('samples/s');
  });
});

describe('the CLI faces of these', () => {
  it('adds, edits and removes a workload, and runs with --tokens-per-step', () => {
    const dir = makeTempDir();
    const db = path.join(dir, 'runs.db');
    const added = runCli(['--db', db, 'workloads', 'add', 'mine', '--var', 'n=3', '--', 'sh', '-c', 'echo {n}']);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/registered mine[\s\S]*variables: n=3/u);
    const edited = runCli(['--db', db, 'workloads', 'edit', 'mine', '--regex', 'x=(?<x>\\d+)', '--rename', 'mine2']);
    expect(edited.status, edited.stderr).toBe(0);
    const list = JSON.parse(runCli(['--db', db, 'workloads', '--json']).stdout) as Array<{ name: string; metricRegex: string }>;
    expect(list.find((w) => w.name === 'mine2')?.metricRegex).toBe('x=(?<x>\\d+)');
    expect(runCli(['--db', db, 'workloads', 'rm', 'synthetic']).status).toBe(1);
    expect(runCli(['--db', db, 'workloads', 'rm', 'nosuch']).status).toBe(2);
    expect(runCli(['--db', db, 'workloads', 'rm', 'mine2']).status).toBe(0);

    const both = runCli(['--db', db, 'run', '--tokens-per-step', '8', '--samples-per-step', '2', '--', 'true']);
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/not both/u);
    const run = runCli(['--db', db, 'run', '--json', '--tokens-per-step', '8192', '--', 'true']);
    expect(JSON.parse(run.stdout).unitsPerStep).toEqual({ tokens: 8192, samples: null });
    const reparse = runCli(['--db', db, 'reparse', String(JSON.parse(run.stdout).id)]);
    expect(reparse.status, reparse.stderr).toBe(0);
    expect(reparse.stdout).toMatch(/the old summary is kept/u);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
