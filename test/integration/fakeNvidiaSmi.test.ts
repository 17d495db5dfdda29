// The fake nvidia-smi answers like the real one: our parsers read all its forms, its control state
// persists and is refused without root, loop mode keeps time and follows the load file, and each
// injected fault does what it says.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { parseComputeApps } from '../../electron/core/telemetry/nvidiaSmi/computeApps.js';
import { parseCsvTable, parseQueryGpuLine, type GpuSample } from '../../electron/core/telemetry/nvidiaSmi/csv.js';
import {
  INFO_FIELD_KEYS,
  fieldsFromQuery,
  parseHelpQueryGpu,
  queryArgument,
  resolveFields,
  type ResolvedFields,
} from '../../electron/core/telemetry/nvidiaSmi/fields.js';
import { NVIDIA_SMI_EXIT, classifyNvidiaSmiMessage } from '../../electron/core/telemetry/nvidiaSmi/messages.js';
import { isThrottled, throttlingReasons } from '../../electron/core/telemetry/nvidiaSmi/throttle.js';
import { parseNvidiaSmiXml } from '../../electron/core/telemetry/nvidiaSmi/xml.js';
import { readCapturedFixture } from '../helpers/fixtures.js';
import { REPO_ROOT, SYNTHETIC_TRAIN, makeTempDir } from '../helpers/tempCore.js';

const FAKE = path.join(REPO_ROOT, 'test/fixtures/fake-nvidia-smi');

interface Result {
  stdout: string;
  stderr: string;
  code: number | null;
}

let dir: string;
let env: NodeJS.ProcessEnv;
let loadFile: string;

beforeEach(() => {
  dir = makeTempDir('tb-fake-smi-');
  loadFile = path.join(dir, 'load.json');
  // The caller's own FAKE_* settings must not leak in; "root" is off unless a test turns it on.
  env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FAKE_NVIDIA_SMI') && k !== 'TUNING_BENCH_LOAD_FILE'));
  env.FAKE_NVIDIA_SMI_STATE = path.join(dir, 'state.json');
  env.FAKE_NVIDIA_SMI_ROOT = '0';
  env.TUNING_BENCH_LOAD_FILE = loadFile;
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function smi(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(FAKE, args, { env: { ...env, ...extraEnv } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, stderr, code }));
  });
}

const asRoot = { FAKE_NVIDIA_SMI_ROOT: '1' };

function writeLoad(util: number, vramMiB = 6000, t = Date.now()): void {
  fs.writeFileSync(loadFile, JSON.stringify({ t, phase: 'train', util, vramMiB, pid: process.pid }));
}

/**
 * Rewrites the load every 200 ms, as the synthetic workload does, so a slow machine never sees it
 * stale; stops by itself when the test ends.
 */
function keepLoad(util: number, vramMiB = 6000): () => void {
  writeLoad(util, vramMiB);
  const timer = setInterval(() => {
    try {
      writeLoad(util, vramMiB);
    } catch {
      // the temp dir is gone: the test has ended
    }
  }, 200);
  const stop = () => clearInterval(timer);
  onTestFinished(stop);
  return stop;
}

/** A loop-mode child whose lines are stamped as they arrive. */
function loop(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const child = spawn(FAKE, args, { env: { ...env, ...extraEnv } });
  const lines: { at: number; text: string }[] = [];
  let partial = '';
  let exit: number | null | undefined;
  child.stdout.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    for (const text of parts) lines.push({ at: Date.now(), text });
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve((exit = code))));
  return {
    lines,
    closed,
    get exited() {
      return exit !== undefined;
    },
    async waitFor(count: number, timeoutMs = 10_000): Promise<void> {
      const until = Date.now() + timeoutMs;
      while (lines.length < count && exit === undefined && Date.now() < until) await sleep(20);
    },
    stop(): Promise<number | null> {
      child.kill('SIGTERM');
      return closed;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let helpFields: ResolvedFields | null = null;
async function sampleFields(): Promise<ResolvedFields> {
  helpFields ??= resolveFields((await smi(['--help-query-gpu'])).stdout);
  return helpFields;
}

async function query(extraEnv: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<GpuSample[]> {
  const fields = await sampleFields();
  const result = await smi([`--query-gpu=${queryArgument(fields)}`, '--format=csv,noheader,nounits', ...args], extraEnv);
  expect(result.code, result.stdout).toBe(0);
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => {
      const parsed = parseQueryGpuLine(line, fields);
      if (!parsed.ok) throw new Error(parsed.error.message);
      return parsed.sample;
    });
}

async function xmlCard(extraEnv: NodeJS.ProcessEnv = {}) {
  const result = await smi(['-q', '-x'], extraEnv);
  expect(result.code).toBe(0);
  const card = parseNvidiaSmiXml(result.stdout);
  if (!card.ok) throw new Error(card.error);
  return card.card;
}

describe('fake nvidia-smi: formats', () => {
  it('prints a real help capture, the bundled 595.71.05 by default or one chosen by env', async () => {
    expect((await smi(['--help-query-gpu'])).stdout).toBe(readCapturedFixture('nvidia-smi', 'help-query-gpu.595.71.05.txt'));
    const old = await smi(['--help-query-gpu'], { FAKE_NVIDIA_SMI_HELP: 'netdata-2022' });
    expect(old.stdout).toBe(readCapturedFixture('nvidia-smi', 'help-query-gpu.netdata-2022.txt'));
    expect(resolveFields(old.stdout).nameOf.throttleReasons).toBe('clocks_throttle_reasons.active');
  });

  it('answers the resolved sample query with values our parser reads', async () => {
    const [gpu] = await query();
    expect(gpu).toMatchObject({ index: 0, utilGpu: 0, pstate: 8, smClockMHz: 210, memTotalMiB: 24564, powerLimitW: 450, persistence: false, memTempC: null });
    expect(gpu!.unavailable.memTempC).toBe('N/A');
    expect(gpu!.powerW).toBeGreaterThan(20);
    expect(gpu!.powerW).toBeLessThan(40);
    expect(throttlingReasons(gpu!.throttleReasons)).toEqual([]);
    expect(gpu!.throttleReasons! & 0x1).toBe(0x1); // idle
  });

  it('answers the info fields: an RTX 4090 on 595.71.05', async () => {
    const help = (await smi(['--help-query-gpu'])).stdout;
    const fields = resolveFields(help, INFO_FIELD_KEYS);
    const result = await smi([`--query-gpu=${queryArgument(fields)}`, '--format=csv,noheader,nounits']);
    const parsed = parseQueryGpuLine(result.stdout.trim(), fields);
    expect(parsed.ok && parsed.sample).toMatchObject({
      name: 'NVIDIA GeForce RTX 4090',
      driverVersion: '595.71.05',
      powerDefaultLimitW: 450,
      powerMinLimitW: 150,
      powerMaxLimitW: 600,
      graphicsClockMaxMHz: 3120,
      throttleReasonsSupported: 0x1ff,
    });
  });

  it('answers every field of its help, with a header like the captures', async () => {
    const names = parseHelpQueryGpu((await smi(['--help-query-gpu'])).stdout).map((f) => f.name);
    const result = await smi([`--query-gpu=${names.join(',')}`, '--format=csv']);
    const table = parseCsvTable(result.stdout);
    expect(table.columns).toEqual(names);
    expect(table.units[table.columns.indexOf('power.draw')]).toBe('W');
    expect(table.units[table.columns.indexOf('temperature.gpu')]).toBeNull();
    expect(table.lines).toHaveLength(1);
    const parsed = parseQueryGpuLine(table.lines[0]!, fieldsFromQuery(table.columns));
    expect(parsed.ok && parsed.sample.name).toBe('NVIDIA GeForce RTX 4090');
    expect(table.lines[0]).toMatch(/, \d+\.\d\d W, /u);
  });

  it('prints the header with full names for aliases', async () => {
    const result = await smi(['--query-gpu=clocks.gr,clocks_throttle_reasons.active,gpu_name', '--format=csv']);
    expect(result.stdout.split('\n')[0]).toBe('clocks.current.graphics [MHz], clocks_event_reasons.active, name');
  });

  it('fails the whole query on one unknown field, like the real tool', async () => {
    const result = await smi(['--query-gpu=index,device_minor', '--format=csv,noheader']);
    expect(result.code).toBe(NVIDIA_SMI_EXIT.invalidArgument);
    expect(result.stdout).toBe('Field "device_minor" is not a valid field to query.\n\n');
    expect(classifyNvidiaSmiMessage(result.stdout)).toMatchObject({ kind: 'invalid-field', field: 'device_minor' });
  });

  it('gives -q -x that our parser reads, and -q text with the same GPU', async () => {
    const xml = await xmlCard();
    const a = xml.gpus[0]!;
    expect(xml).toMatchObject({ driverVersion: '595.71.05', cudaVersion: '13.2', attachedGpus: 1 });
    expect(a).toMatchObject({ name: 'NVIDIA GeForce RTX 4090', busId: '00000000:01:00.0', persistenceMode: false, pstate: 8 });
    expect(a.power).toMatchObject({ limitW: 450, requestedLimitW: 450, defaultLimitW: 450, minLimitW: 150, maxLimitW: 600 });
    expect(a.supportedClocks!.map((m) => m.memMHz)).toEqual([10501, 10251, 5001, 810, 405]);
    // The engine reads only XML; `-q` is there for a person at a terminal, in the 595 capture's layout.
    const text = (await smi(['-q'])).stdout;
    expect(text).toMatch(/^Driver Version\s+: 595\.71\.05$/mu);
    expect(text).toMatch(/^GPU 00000000:01:00\.0$/mu);
    expect(text).toMatch(/^ {4}Product Name\s+: NVIDIA GeForce RTX 4090$/mu);
    expect(text).toContain(a.uuid!);
  });

  it('lists GPUs and prints its version like the captures', async () => {
    expect((await smi(['-L'])).stdout).toMatch(/^GPU 0: NVIDIA GeForce RTX 4090 \(UUID: GPU-[0-9a-f-]{36}\)\n$/u);
    const version = (await smi(['--version'])).stdout;
    expect(version.split('\n')[0]).toBe('NVIDIA-SMI version  : 595.71.05');
    expect(version).toContain('CUDA Version        : 13.2');
    const v610 = (await smi(['--version'], { FAKE_NVIDIA_SMI_DRIVER: '610.57.04' })).stdout;
    expect(v610).toContain('KMD version         : 610.57.04');
  });

  it('fakes several GPUs, selected by index, UUID or bus id', async () => {
    const two = { FAKE_NVIDIA_SMI_GPUS: '2' };
    expect((await query(two)).map((g) => g.index)).toEqual([0, 1]);
    const [second] = await query(two, ['-i', '1']);
    expect(second!.index).toBe(1);
    expect((await query(two, ['-i', second!.uuid!])).map((g) => g.index)).toEqual([1]);
    expect((await query(two, ['--id=00000000:01:00.0'])).map((g) => g.index)).toEqual([0]);
    expect((await xmlCard(two)).gpus).toHaveLength(2);
    const missing = await smi(['-i', '7', '-L'], two);
    expect(missing.code).toBe(NVIDIA_SMI_EXIT.notFound);
  });
});

describe('fake nvidia-smi: GPU control', () => {
  it('refuses every control without root, in the real wording, and changes nothing', async () => {
    const cases: [string[], RegExp][] = [
      [['-pm', '1'], /^Unable to set persistence mode for GPU 00000000:01:00\.0: Insufficient Permissions\nTerminating early due to previous errors\.\n$/u],
      [['-lgc', '1500,2000'], /^The current user does not have permission to change clocks for GPU 00000000:01:00\.0\.\n/u],
      [['-rgc'], /does not have permission to change clocks/u],
      [['-lmc', '5001,5001'], /does not have permission to change clocks/u],
      [['-rmc'], /does not have permission to change clocks/u],
      [['-i', '0', '-pl', '300'], /^Failed to set power management limit for GPU 00000000:01:00\.0: Insufficient Permissions\n/u],
    ];
    for (const [args, message] of cases) {
      const result = await smi(args);
      expect(result.code, args.join(' ')).toBe(NVIDIA_SMI_EXIT.noPermission);
      expect(result.stdout).toMatch(message);
      expect(classifyNvidiaSmiMessage(result.stdout)?.kind).toBe('insufficient-permissions');
    }
    expect(fs.existsSync(env.FAKE_NVIDIA_SMI_STATE!)).toBe(false);
    expect(await query()).toMatchObject([{ persistence: false, powerLimitW: 450 }]);
  });

  it('says "already" without root when nothing would change', async () => {
    const result = await smi(['-pm', '0']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Persistence mode is already Disabled for GPU 00000000:01:00.0.\nAll done.\n');
  });

  it('keeps persistence, clock locks and power limit across invocations, as root', async () => {
    expect((await smi(['-pm', '1'], asRoot)).stdout).toBe('Enabled Legacy persistence mode for GPU 00000000:01:00.0.\nAll done.\n');
    const lock = await smi(['-i', '0', '-lgc', '1500,2000'], asRoot);
    expect(lock.code).toBe(0);
    expect(lock.stdout).toBe('GPU clocks set to "(gpuClkMin 1500, gpuClkMax 2000)" for GPU 00000000:01:00.0\nAll done.\n');
    expect((await smi(['-lmc', '5001'], asRoot)).stdout).toMatch(/^Memory clocks set to "\(memClkMin 5001, memClkMax 5001\)" for GPU 00000000:01:00\.0\n/u);
    expect((await smi(['--power-limit=300'], asRoot)).stdout).toBe('Power limit for GPU 00000000:01:00.0 was set to 300.00 W from 450.00 W.\nAll done.\n');

    const state = JSON.parse(fs.readFileSync(env.FAKE_NVIDIA_SMI_STATE!, 'utf8')) as { gpus: Record<string, unknown> };
    expect(state.gpus['0']).toEqual({ persistence: true, gpuClockLock: [1500, 2000], memClockLock: [5001, 5001], powerLimitW: 300 });

    const [gpu] = await query();
    expect(gpu).toMatchObject({ persistence: true, powerLimitW: 300, smClockMHz: 1500, memClockMHz: 5001 });
    const card = await xmlCard();
    expect(card.gpus[0]).toMatchObject({ persistenceMode: true, power: { limitW: 300, requestedLimitW: 300, defaultLimitW: 450 } });

    expect((await smi(['-rgc'], asRoot)).stdout).toBe('All done.\n');
    expect((await smi(['-rmc'], asRoot)).stdout).toBe('All done.\n');
    expect((await smi(['-pm', 'DISABLED'], asRoot)).stdout).toBe('Disabled Legacy persistence mode for GPU 00000000:01:00.0.\nAll done.\n');
    expect(await query()).toMatchObject([{ persistence: false, smClockMHz: 210, memClockMHz: 405, powerLimitW: 300 }]);
  });

  it('uses the older persistence wording before R580', async () => {
    const result = await smi(['-pm', '1'], { ...asRoot, FAKE_NVIDIA_SMI_DRIVER: '535.86.05' });
    expect(result.stdout).toBe('Enabled persistence mode for GPU 00000000:01:00.0.\nAll done.\n');
  });

  it('rejects values the real tool rejects', async () => {
    const low = await smi(['-pl', '50'], asRoot);
    expect(low.code).toBe(NVIDIA_SMI_EXIT.invalidArgument);
    expect(low.stdout).toBe(
      'Provided power limit 50.00 W is not a valid power limit which should be between 150.00 W and 600.00 W for GPU 00000000:01:00.0\nTerminating early due to previous errors.\n',
    );
    expect(classifyNvidiaSmiMessage(low.stdout)?.kind).toBe('invalid-power-limit');
    // The range is checked before permissions.
    expect((await smi(['-pl', '9000'])).code).toBe(NVIDIA_SMI_EXIT.invalidArgument);

    for (const args of [
      ['-lgc', '2000,1500'],
      ['-lgc', '1500,4000'],
      ['-lmc', '12000'],
    ]) {
      const result = await smi(args, asRoot);
      expect(result.code, args.join(' ')).toBe(NVIDIA_SMI_EXIT.invalidArgument);
      expect(result.stdout).toMatch(/is not supported for GPU 00000000:01:00\.0/u);
      expect(classifyNvidiaSmiMessage(result.stdout)?.kind).toBe('invalid-clocks');
    }
    // Ranges inside the board's limits are taken (and clamped) like the real tool does...
    expect((await smi(['-lgc', '0,2200'], asRoot)).code).toBe(0);
    // ...unless strict mode asks for listed clocks only.
    expect((await smi(['-lgc', '1500,2200'], { ...asRoot, FAKE_NVIDIA_SMI_STRICT_CLOCKS: '1' })).code).toBe(NVIDIA_SMI_EXIT.invalidArgument);
    expect((await smi(['-lgc', '1500,2205'], { ...asRoot, FAKE_NVIDIA_SMI_STRICT_CLOCKS: '1' })).code).toBe(0);

    for (const args of [['-pm', '2'], ['-lgc', 'fast'], ['-pl', 'lots'], ['-pl']]) {
      const result = await smi(args, asRoot);
      expect(result.code, args.join(' ')).toBe(255);
      expect(classifyNvidiaSmiMessage(result.stdout)?.kind).toBe('bad-option');
    }
    const state = JSON.parse(fs.readFileSync(env.FAKE_NVIDIA_SMI_STATE!, 'utf8')) as { gpus: Record<string, { powerLimitW: number }> };
    expect(state.gpus['0']!.powerLimitW).toBe(450);
  });
});

describe('fake nvidia-smi: telemetry', () => {
  it('follows the load file: busy at boost clock, VRAM, process list; idle when the file is stale', async () => {
    const stopLoad = keepLoad(0.9, 6000);
    const [busy] = await query();
    expect(busy).toMatchObject({ utilGpu: 90, pstate: 2, smClockMHz: 2790, memClockMHz: 10501, memUsedMiB: 6002, pcieGen: 4 });
    expect(busy!.powerW).toBeGreaterThan(380);
    expect(busy!.powerW).toBeLessThanOrEqual(450);
    expect(isThrottled(busy!.throttleReasons)).toBe(false);

    const apps = await smi(['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits']);
    expect(parseComputeApps(apps.stdout).apps).toEqual([{ pid: process.pid, usedMemoryMiB: 6000, name: null, gpuUuid: null, gpuBusId: null }]);
    const card = await xmlCard();
    expect(card.gpus[0]!.processes).toEqual([expect.objectContaining({ pid: process.pid, type: 'C', usedMemoryMiB: 6000 })]);

    stopLoad();
    writeLoad(0.9, 6000, Date.now() - 2500);
    expect(await query()).toMatchObject([{ utilGpu: 0, pstate: 8, memUsedMiB: 2 }]);
    expect(parseComputeApps((await smi(['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits'])).stdout).apps).toEqual([]);
  });

  it('follows the load file the synthetic workload writes', async () => {
    const train = spawn(process.execPath, [SYNTHETIC_TRAIN, '--steps', '2000', '--batch-size', '8', '--log-every', '1000'], {
      env: { ...env },
      stdio: 'ignore',
    });
    try {
      const until = Date.now() + 10_000;
      while (Date.now() < until && !(fs.existsSync(loadFile) && fs.readFileSync(loadFile, 'utf8').includes('"train"'))) await sleep(50);
      const [busy] = await query();
      // train.js: util = 0.95 x compute_ms / step_ms, vramMiB = 500 + 8 x 180 (see its header comment).
      expect(busy!.utilGpu).toBeGreaterThan(30);
      expect(busy!.memUsedMiB).toBe(2 + 500 + 8 * 180);
      expect(busy!.pstate).toBe(2);
    } finally {
      train.kill('SIGKILL');
    }
  });

  it('caps the SM clock at a locked range and holds power under the limit', async () => {
    keepLoad(1);
    await smi(['-lgc', '1200,1800'], asRoot);
    const [locked] = await query();
    expect(locked!.smClockMHz).toBe(1800);
    expect(isThrottled(locked!.throttleReasons)).toBe(false);

    await smi(['-rgc'], asRoot);
    await smi(['-pl', '200'], asRoot);
    const [capped] = await query();
    expect(capped!.smClockMHz).toBeLessThan(2790);
    expect(capped!.powerW).toBeLessThanOrEqual(200.5);
    expect(capped!.powerW).toBeGreaterThan(190);
    expect(throttlingReasons(capped!.throttleReasons)).toEqual(['sw_power_cap']);
  });

  it('loop mode prints one line per interval until killed, following the load file', async () => {
    const fields = await sampleFields();
    const loopEnv = { FAKE_NVIDIA_SMI_ENERGY_FIELD: '1' };
    const query = `--query-gpu=${queryArgument(fields)},total_energy_consumption`;
    const withEnergy = fieldsFromQuery([...fields.query, 'total_energy_consumption']);
    const child = loop([query, '--format=csv,noheader,nounits', '-lms', '100', '-i', '0'], loopEnv);
    await child.waitFor(5);
    const stopLoad = keepLoad(0.95, 8000);
    await child.waitFor(25);
    stopLoad();
    expect(await child.stop()).toBeNull(); // ended by the signal, like the real tool
    expect(child.lines.length).toBeGreaterThanOrEqual(25);

    const gaps = child.lines.slice(1).map((l, i) => l.at - child.lines[i]!.at);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    expect(mean).toBeGreaterThan(70);
    expect(mean).toBeLessThan(160);

    const samples = child.lines.map((l) => {
      const parsed = parseQueryGpuLine(l.text, withEnergy);
      if (!parsed.ok) throw new Error(parsed.error.message);
      return parsed.sample;
    });
    expect(samples[0]!.utilGpu).toBe(0);
    const last = samples.at(-1)!;
    expect(last.utilGpu).toBe(95);
    expect(last.memUsedMiB).toBe(8002);
    expect(last.tempC!).toBeGreaterThan(samples[0]!.tempC!); // warming up under load
    const energy = samples.map((s) => s.energyMJ!);
    for (let i = 1; i < energy.length; i += 1) expect(energy[i]!).toBeGreaterThanOrEqual(energy[i - 1]!);
    // ~0.1 s at ~400 W is ~40 J per busy interval.
    expect(energy.at(-1)! - energy.at(-2)!).toBeGreaterThan(20_000);
  });

  it('loop mode with a header prints it once', async () => {
    const child = loop(['--query-gpu=index,power.draw', '--format=csv', '-lms', '50']);
    await child.waitFor(6);
    await child.stop();
    expect(child.lines[0]!.text).toBe('index, power.draw [W]');
    expect(child.lines.slice(1).every((l) => /^0, \d+\.\d\d W$/u.test(l.text))).toBe(true);
  });

  it('keeps temperature and energy between invocations', async () => {
    keepLoad(1);
    const fields = fieldsFromQuery(['index', 'temperature.gpu', 'total_energy_consumption']);
    const read = async () => {
      const out = await smi(['--query-gpu=index,temperature.gpu,total_energy_consumption', '--format=csv,noheader,nounits'], {
        FAKE_NVIDIA_SMI_ENERGY_FIELD: '1',
      });
      const parsed = parseQueryGpuLine(out.stdout.trim(), fields);
      if (!parsed.ok) throw new Error(parsed.error.message);
      return parsed.sample;
    };
    const first = await read();
    // Under load the counter climbs by over 100 J within a second: each call goes on from the last one's total.
    let second = first;
    await expect
      .poll(
        async () => {
          second = await read();
          return second.energyMJ! - first.energyMJ!;
        },
        { timeout: 10_000 },
      )
      .toBeGreaterThan(100_000);
    expect(second.tempC!).toBeGreaterThanOrEqual(first.tempC!);
  });
});

describe('fake nvidia-smi: faults', () => {
  const q = ['--query-gpu=index,utilization.gpu,power.draw', '--format=csv,noheader,nounits'];
  const fields = fieldsFromQuery(['index', 'utilization.gpu', 'power.draw']);

  it('no-driver: exit 9 with the real message', async () => {
    for (const args of [q, ['-q', '-x'], ['-L'], ['-pm', '1']]) {
      const result = await smi(args, { FAKE_NVIDIA_SMI_FAULT: 'no-driver' });
      expect(result.code).toBe(NVIDIA_SMI_EXIT.driverNotLoaded);
      expect(classifyNvidiaSmiMessage(result.stdout)?.kind).toBe('no-driver');
      const asRow = parseQueryGpuLine(result.stdout.trim(), fields);
      expect(!asRow.ok && asRow.error.nvidiaSmi?.kind).toBe('no-driver');
    }
    // The help text needs no driver.
    expect((await smi(['--help-query-gpu'], { FAKE_NVIDIA_SMI_FAULT: 'no-driver' })).code).toBe(0);
  });

  it('gpu-lost=N: rows of [GPU is lost] after N lines; gpu-lost-exit=N: the real message and exit 15', async () => {
    const child = loop([...q, '-lms', '50'], { FAKE_NVIDIA_SMI_FAULT: 'gpu-lost=2' });
    await child.waitFor(4);
    await child.stop();
    const samples = child.lines.map((l) => parseQueryGpuLine(l.text, fields));
    expect(samples.slice(0, 2).every((s) => s.ok && !s.sample.gpuLost)).toBe(true);
    expect(samples.slice(2).every((s) => s.ok && s.sample.gpuLost && s.sample.powerW === null)).toBe(true);

    const exiting = await smi([...q, '-lms', '50'], { FAKE_NVIDIA_SMI_FAULT: 'gpu-lost-exit=2' });
    expect(exiting.code).toBe(NVIDIA_SMI_EXIT.gpuLost);
    const lines = exiting.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('Unable to determine the device handle for GPU 0000:01:00.0: GPU is lost. Reboot the system to recover this GPU');
    const last = parseQueryGpuLine(lines[2]!, fields);
    expect(!last.ok && last.error.nvidiaSmi?.kind).toBe('gpu-lost');

    const oneShot = await smi(['-q', '-x'], { FAKE_NVIDIA_SMI_FAULT: 'gpu-lost' });
    expect(oneShot.code).toBe(NVIDIA_SMI_EXIT.gpuLost);
  });

  it('unsupported-field: that field answers [Not Supported], read as null', async () => {
    const [byDefault] = await query({ FAKE_NVIDIA_SMI_FAULT: 'unsupported-field' });
    expect(byDefault!.powerW).toBeNull();
    expect(byDefault!.unavailable.powerW).toBe('Not Supported');
    const [named] = await query({ FAKE_NVIDIA_SMI_FAULT: 'unsupported-field=fan.speed' });
    expect(named!.fanPercent).toBeNull();
    expect(named!.powerW).not.toBeNull();
  });

  it('invalid-field=NAME: a query naming it fails with the real message', async () => {
    const result = await smi(q, { FAKE_NVIDIA_SMI_FAULT: 'invalid-field=power.draw' });
    expect(result.code).toBe(NVIDIA_SMI_EXIT.invalidArgument);
    expect(classifyNvidiaSmiMessage(result.stdout)).toMatchObject({ kind: 'invalid-field', field: 'power.draw' });
  });

  it('garbage: junk lines between rows come back as typed errors, rows still parse', async () => {
    const child = loop([...q, '-lms', '30'], { FAKE_NVIDIA_SMI_FAULT: 'garbage' });
    await child.waitFor(15);
    await child.stop();
    const results = child.lines.map((l) => parseQueryGpuLine(l.text, fields));
    const good = results.filter((r) => r.ok);
    const bad = results.filter((r) => !r.ok);
    expect(good.length).toBeGreaterThanOrEqual(8);
    expect(bad.length).toBeGreaterThanOrEqual(3);
    expect(good.every((r) => r.ok && r.sample.index === 0)).toBe(true);
  });

  it('die-after=N: exits after N lines', async () => {
    const result = await smi([...q, '-lms', '30'], { FAKE_NVIDIA_SMI_FAULT: 'die-after=3' });
    expect(result.code).toBe(255);
    expect(result.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('hang-after=N: stops printing but stays alive', async () => {
    const child = loop([...q, '-lms', '30'], { FAKE_NVIDIA_SMI_FAULT: 'hang-after=2' });
    await child.waitFor(2);
    // The clock is a healthy twin on the same interval: once it has printed ten lines more, the hung one had as many
    // chances to print and took none.
    const twin = loop([...q, '-lms', '30']);
    await twin.waitFor(10);
    await twin.stop();
    expect(twin.lines.length).toBeGreaterThanOrEqual(10);
    expect(child.lines).toHaveLength(2);
    expect(child.exited).toBe(false);
    await child.stop();
  });

  it('slow-start=MS: the first line comes late', async () => {
    const started = Date.now();
    const result = await smi(q, { FAKE_NVIDIA_SMI_FAULT: 'slow-start=400' });
    expect(result.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });
});
