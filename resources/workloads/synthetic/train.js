#!/usr/bin/env node
// Synthetic training workload: behaves like a PyTorch training script (flags, tqdm bar, step
// logs, OOM, NaN, DataLoader workers, signals) so Tuning Bench can be run and checked on any
// machine, with throughput that follows a known formula of the flags.
/*
 * THROUGHPUT MODEL (noise-free; times in milliseconds; amp/compile are 1 when on, 0 when off)
 *
 *   compute_ms = (2.0 + 0.75 * batch) * (amp ? 0.55 : 1) * (compile ? 0.7 : 1)
 *   data_ms    = 0.5 * batch
 *   step_ms    = workers == 0 ? compute_ms + data_ms
 *                             : max(compute_ms, data_ms / workers) + 0.2
 *   tokens     = batch * seq_len                       (per step)
 *   tok/s      = tokens / step_ms * 1000
 *
 *   Each step's time is step_ms * phase_factor * exp(0.02 * z), z ~ N(0,1) from a PRNG seeded
 *   with --seed (mulberry32 + Box-Muller), so its median is the formula value.
 *   phase_factor: compile off: steps 1-5 are "warmup", 3x;  compile on: steps 1-10 are
 *   "compile", 12x (they replace the warm-up); every later step is "train", 1x.
 *
 *   loss(step) = 1.2 + 3.0 * exp(-tokens_seen / 200000) + (amp ? 0.005 : 0) + 0.01 * z'
 *                (tokens_seen = step * tokens, z' from a second seeded stream; nan from --nan-at)
 *   eval loss  = final train loss + 0.03
 *
 *   A `step N:` line reports the interval since the previous line: tok/s = interval tokens /
 *   interval time, ms/step = interval time / interval steps, loss = the loss at step N. So with
 *   --log-every 1 every line is one step; lines overlapping the warm-up/compile steps are slow.
 *   `done: N steps in S s` reports the modelled training time (sum of all step times).
 *
 *   Load file (TUNING_BENCH_LOAD_FILE), read by the fake nvidia-smi:
 *   util = 0.95 * compute_ms / step_ms in "train", half that in "warmup", 0.1 in "compile",
 *   0.7 in "eval", 0 in "done";  vramMiB = 500 + batch * 180 * (amp ? 0.6 : 1), 0 in "done".
 *
 * Printed numbers are the model's (reproducible for a seed), but the script really sleeps that
 * long, so wall time and telemetry agree with them.
 */
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';

const USAGE = `usage: train.js [options]

Synthetic training workload for Tuning Bench (no GPU needed).

options:
  --batch-size N     samples per step (default 8)
  --workers N        data-loader worker processes, 0 = load in the main process (default 0)
  --amp [on|off]     mixed precision; also 1/0/true/false/yes/no/bf16/fp16 (default off)
  --compile [on|off] torch.compile-like: faster steps after a slow compile phase (default off)
  --steps N          training steps (default 200)
  --seed N           seed of the timing and loss noise (default 0)
  --seq-len N        tokens per sample (default 256)
  --log-every N      print a step line every N steps (default 10)
  --max-batch N      simulated GPU memory limit: a larger batch dies with CUDA OOM
                     (default: env SYNTHETIC_MAX_BATCH, else no limit)
  --nan-at STEP      the loss becomes nan from this step on (training continues)
  --help             show this help

env: TUNING_BENCH_LOAD_FILE  write load JSON for the fake nvidia-smi there
     FORCE_COLOR / NO_COLOR  colour control

Formula and output format: README.md next to this file.`;

const NOISE_SD = 0.02;
const LOSS_SD = 0.01;
const LOAD_WRITE_MS = 200;
const BAR_REDRAW_MS = 100;
const BAR_WIDTH = 20;
const MAX_WORKERS = 64;
// A worker left behind by a SIGKILLed parent exits after this long, so a leak is visible to a
// process-tree-kill test (which checks within seconds) but does not linger for ever.
const ORPHAN_GRACE_MS = 60_000;

const SWITCH_WORDS = new Map([
  ['on', true],
  ['1', true],
  ['true', true],
  ['yes', true],
  ['bf16', true],
  ['fp16', true],
  ['off', false],
  ['0', false],
  ['false', false],
  ['no', false],
]);

class UsageError extends Error {}

// ---------------------------------------------------------------------------------------------
// Command line

/** Turns a bare `--amp` / `--compile` into `--amp=on`, since parseArgs string options need a value. */
function expandBareSwitches(argv) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    const takesNext = next !== undefined && SWITCH_WORDS.has(next.toLowerCase());
    out.push((arg === '--amp' || arg === '--compile') && !takesNext ? `${arg}=on` : arg);
  }
  return out;
}

function parseSwitch(name, value) {
  const on = SWITCH_WORDS.get(value.toLowerCase());
  if (on === undefined) {
    throw new UsageError(`--${name} expects on|off (or 1/0/true/false/yes/no/bf16/fp16), got '${value}'`);
  }
  return on;
}

function parseInteger(name, value, min, max) {
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`${name} expects an integer, got '${value}'`);
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${name} must be between ${min} and ${max}, got ${value}`);
  }
  return n;
}

/** Returns the run's config, or null when --help was asked; throws UsageError on bad input. */
function parseCli(argv, env) {
  let parsed;
  try {
    parsed = parseArgs({
      args: expandBareSwitches(argv),
      strict: true,
      allowPositionals: false,
      options: {
        'batch-size': { type: 'string', default: '8' },
        workers: { type: 'string', default: '0' },
        amp: { type: 'string', default: 'off' },
        compile: { type: 'string', default: 'off' },
        steps: { type: 'string', default: '200' },
        seed: { type: 'string', default: '0' },
        'seq-len': { type: 'string', default: '256' },
        'log-every': { type: 'string', default: '10' },
        'max-batch': { type: 'string' },
        'nan-at': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    throw new UsageError(err.message.split('\n')[0]);
  }
  const v = parsed.values;
  if (v.help) return null;

  const maxBatchText = v['max-batch'] ?? env.SYNTHETIC_MAX_BATCH;
  const maxBatchName = v['max-batch'] !== undefined ? '--max-batch' : 'SYNTHETIC_MAX_BATCH';
  return {
    batch: parseInteger('--batch-size', v['batch-size'], 1, 1_000_000),
    workers: parseInteger('--workers', v.workers, 0, MAX_WORKERS),
    amp: parseSwitch('amp', v.amp),
    compile: parseSwitch('compile', v.compile),
    steps: parseInteger('--steps', v.steps, 1, 100_000_000),
    seed: parseInteger('--seed', v.seed, -(2 ** 31), 2 ** 32 - 1),
    seqLen: parseInteger('--seq-len', v['seq-len'], 1, 1_000_000),
    logEvery: parseInteger('--log-every', v['log-every'], 1, 100_000_000),
    maxBatch: maxBatchText === undefined || maxBatchText === '' ? Infinity : parseInteger(maxBatchName, maxBatchText, 1, 1_000_000),
    nanAt: v['nan-at'] === undefined ? null : parseInteger('--nan-at', v['nan-at'], 1, 100_000_000),
  };
}

// ---------------------------------------------------------------------------------------------
// Model (see the formula at the top; README.md repeats it)

function throughputModel(cfg) {
  const computeMs = (2.0 + 0.75 * cfg.batch) * (cfg.amp ? 0.55 : 1) * (cfg.compile ? 0.7 : 1);
  const dataMs = 0.5 * cfg.batch;
  const stepMs = cfg.workers === 0 ? computeMs + dataMs : Math.max(computeMs, dataMs / cfg.workers) + 0.2;
  const tokensPerStep = cfg.batch * cfg.seqLen;
  return {
    computeMs,
    dataMs,
    stepMs,
    tokensPerStep,
    tokPerSec: (tokensPerStep / stepMs) * 1000,
    trainUtil: (0.95 * computeMs) / stepMs,
    vramMiB: Math.round(500 + cfg.batch * 180 * (cfg.amp ? 0.6 : 1)),
  };
}

function phaseOf(step, cfg) {
  if (cfg.compile && step <= 10) return { phase: 'compile', factor: 12 };
  if (!cfg.compile && step <= 5) return { phase: 'warmup', factor: 3 };
  return { phase: 'train', factor: 1 };
}

function utilOf(phase, model) {
  switch (phase) {
    case 'train':
      return model.trainUtil;
    case 'warmup':
      return model.trainUtil / 2;
    case 'compile':
      return 0.1;
    case 'eval':
      return 0.7;
    default:
      return 0;
  }
}

/** mulberry32: tiny, fast and good enough for noise; same seed gives the same stream everywhere. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal draws by Box-Muller (one per call keeps the streams simple to reason about). */
function gaussian(rand) {
  const u1 = 1 - rand(); // (0, 1], so the log is finite
  const u2 = rand();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

// ---------------------------------------------------------------------------------------------
// Output

function colourWanted(env, isTTY) {
  if (env.NO_COLOR) return false; // no-color.org: present and non-empty disables colour
  if (env.FORCE_COLOR !== undefined) return !['0', 'false'].includes(env.FORCE_COLOR.toLowerCase());
  return isTTY;
}

function paint(colour, code, text) {
  return colour ? `\x1b[${code}m${text}\x1b[0m` : text;
}

const fmtLoss = (loss) => (Number.isFinite(loss) ? loss.toFixed(3) : 'nan');

function fmtClock(seconds) {
  const s = Math.max(0, Math.floor(seconds)); // tqdm truncates
  const hh = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** tqdm's look: `train  45%|█████▍    | 90/200 [00:01<00:01, 85.31it/s, loss=2.314]`. */
function renderBar({ n, total, elapsedMs, msPerStep, loss, colour }) {
  const frac = Math.min(1, n / total);
  const eighths = Math.floor(frac * BAR_WIDTH * 8);
  const partial = eighths % 8 === 0 ? '' : ' ▏▎▍▌▋▊▉'[eighths % 8];
  const bar = ('█'.repeat(Math.floor(eighths / 8)) + partial).padEnd(BAR_WIDTH, ' ');
  const rate = 1000 / msPerStep;
  // Before the first step tqdm has no rate yet and says so.
  const rateText = n === 0 ? '?it/s' : rate >= 1 ? `${rate.toFixed(2)}it/s` : `${(1 / rate).toFixed(2)}s/it`;
  const remaining = n === 0 ? '?' : fmtClock(((total - n) * msPerStep) / 1000);
  const pct = `${String(Math.floor(frac * 100)).padStart(3)}%`;
  const cyan = (t) => paint(colour, '36', t);
  return (
    `train ${pct}|${paint(colour, '32', bar)}| ${cyan(`${n}/${total}`)} ` +
    `[${cyan(fmtClock(elapsedMs / 1000))}<${cyan(remaining)}, ${cyan(rateText)}` +
    `${n === 0 ? '' : `, loss=${cyan(fmtLoss(loss))}`}]`
  );
}

// ---------------------------------------------------------------------------------------------
// Load file for the fake nvidia-smi

class LoadFileWriter {
  constructor(path, model) {
    this.path = path;
    this.tmp = `${path}.${process.pid}.tmp`;
    this.model = model;
    this.phase = 'warmup';
    this.warned = false;
    this.timer = null;
  }

  start(phase) {
    this.setPhase(phase);
    // A timer rather than a check in the step loop: the loop only schedules, never pays for I/O.
    this.timer = setInterval(() => this.write(), LOAD_WRITE_MS);
    this.timer.unref();
  }

  setPhase(phase) {
    if (phase === this.phase && this.timer) return;
    this.phase = phase;
    this.write(); // phase changes are written at once so short phases (eval) are not missed
  }

  /** Called from the process 'exit' handler, so it must stay synchronous. */
  finish() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.phase = 'done';
    this.write();
  }

  write() {
    const done = this.phase === 'done';
    const record = {
      t: Date.now(),
      phase: this.phase,
      util: done ? 0 : Number(utilOf(this.phase, this.model).toFixed(3)),
      vramMiB: done ? 0 : this.model.vramMiB,
      pid: process.pid,
      bytesWritten,
    };
    try {
      // Temp + rename: a reader never sees half a file.
      writeFileSync(this.tmp, `${JSON.stringify(record)}\n`);
      renameSync(this.tmp, this.path);
    } catch (err) {
      if (!this.warned) process.stderr.write(`synthetic: cannot write load file ${this.path}: ${err.message}\n`);
      this.warned = true;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Byte count of everything this process writes, reported in the load file, so a harness can check
// that whatever recorded the output lost nothing and added nothing.

let bytesWritten = 0;
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream);
  stream.write = (chunk, ...rest) => {
    bytesWritten += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    return write(chunk, ...rest);
  };
}

// ---------------------------------------------------------------------------------------------
// Data-loader workers: real processes, so process-tree kill has something to find.

function workerSource(parentPid) {
  // Idle like a worker waiting for work; gives up only after being orphaned for a while.
  return (
    `let since=0;setInterval(()=>{try{process.kill(${parentPid},0);since=0}` +
    `catch{since||=Date.now();if(Date.now()-since>${ORPHAN_GRACE_MS})process.exit(0)}},1000)`
  );
}

function spawnWorkers(count) {
  const workers = [];
  for (let i = 0; i < count; i++) {
    // stdio ignored: an orphaned worker must not hold the parent's pipes open.
    const child = spawn(process.execPath, ['-e', workerSource(process.pid), 'synthetic-dataloader-worker', `parent=${process.pid}`, `index=${i}`], {
      stdio: 'ignore',
    });
    child.on('error', (err) => process.stderr.write(`synthetic: worker ${i} failed: ${err.message}\n`));
    child.unref(); // the 'exit' handler stops them; they must not keep this process alive
    workers.push(child);
  }
  return workers;
}

// ---------------------------------------------------------------------------------------------
// OOM

function oomTraceback() {
  return `Traceback (most recent call last):
  File "/home/user/synthetic/train.py", line 214, in <module>
    main()
  File "/home/user/synthetic/train.py", line 187, in main
    loss = model(x, y)
           ^^^^^^^^^^^
  File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1751, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1762, in _call_impl
    return forward_call(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/user/synthetic/model.py", line 96, in forward
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
           ~~^~~~~~~~~~~~~~~~~~~~~~
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 7.63 GiB of which 1.12 GiB is free.
`;
}

// ---------------------------------------------------------------------------------------------
// Main

async function sleepUntil(targetMs) {
  const wait = targetMs - performance.now();
  // Always give the event loop a turn, even when behind schedule, so signals and the load-file
  // timer run; sleeping to an absolute target keeps timer overshoot from accumulating.
  if (wait >= 1) await sleep(Math.floor(wait));
  else await yieldToLoop();
}

async function main() {
  let cfg;
  try {
    cfg = parseCli(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`train.js: error: ${err.message}\n(see train.js --help)\n`);
    process.exit(2);
  }
  if (cfg === null) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }

  const out = process.stdout;
  const tty = Boolean(out.isTTY);
  const colour = colourWanted(process.env, tty);
  const model = throughputModel(cfg);
  const state = { step: 0 };

  const loadPath = process.env.TUNING_BENCH_LOAD_FILE;
  const load = loadPath ? new LoadFileWriter(loadPath, model) : null;
  const workers = spawnWorkers(cfg.workers);

  // Cleanup lives in 'exit' so every way out (normal end, OOM, signals) does it.
  process.on('exit', () => {
    for (const w of workers) {
      try {
        w.kill('SIGTERM');
      } catch {
        /* already gone */
      }
    }
    load?.finish();
  });
  process.on('SIGINT', () => {
    out.write(`\ninterrupted at step ${state.step}\n`);
    process.exit(130);
  });
  process.on('SIGTERM', () => {
    process.stderr.write(`\nterminated at step ${state.step}\n`);
    process.exit(143);
  });
  out.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(141); // reader went away, like SIGPIPE would
    throw err;
  });

  const tag = paint(colour, '1;35', 'synthetic:');
  const onOff = (b) => (b ? 'on' : 'off');
  out.write(`${tag} batch=${cfg.batch} workers=${cfg.workers} amp=${onOff(cfg.amp)} ` + `compile=${onOff(cfg.compile)} steps=${cfg.steps} seed=${cfg.seed}\n`);
  out.write(`${tag} expected steady ${model.tokPerSec.toFixed(1)} tok/s, ${model.stepMs.toFixed(2)} ms/step\n`);
  load?.start(phaseOf(1, cfg).phase);

  if (cfg.batch > cfg.maxBatch) {
    // Real OOMs come a moment in: after the model is built, at the first big allocation.
    await sleep(300);
    process.stderr.write(oomTraceback());
    process.exit(1);
  }

  const timeRand = mulberry32(cfg.seed);
  const lossRand = mulberry32(cfg.seed ^ 0x9e3779b9); // separate stream: loss noise never shifts timing
  const t0 = performance.now();
  let elapsedMs = 0; // modelled time; also the schedule we sleep to
  let tokensSeen = 0;
  let loss = NaN;
  let emaMs = model.stepMs; // tqdm smooths its rate; so does the bar
  let interval = { steps: 0, ms: 0 };
  let lastDraw = -Infinity;

  const bar = () =>
    renderBar({
      n: state.step,
      total: cfg.steps,
      elapsedMs,
      msPerStep: emaMs,
      loss,
      colour,
    });

  if (tty) {
    out.write(`\r${bar()}`);
    lastDraw = performance.now();
  }
  for (let step = 1; step <= cfg.steps; step++) {
    const { phase, factor } = phaseOf(step, cfg);
    load?.setPhase(phase);
    // Both draws happen every step so the streams stay aligned whatever the flags.
    const stepMs = model.stepMs * factor * Math.exp(NOISE_SD * gaussian(timeRand));
    const lossNoise = LOSS_SD * gaussian(lossRand);

    elapsedMs += stepMs;
    await sleepUntil(t0 + elapsedMs);

    state.step = step;
    tokensSeen += model.tokensPerStep;
    loss = cfg.nanAt !== null && step >= cfg.nanAt ? NaN : 1.2 + 3.0 * Math.exp(-tokensSeen / 200000) + (cfg.amp ? 0.005 : 0) + lossNoise;
    emaMs = 0.3 * stepMs + 0.7 * emaMs;
    interval.steps += 1;
    interval.ms += stepMs;

    const last = step === cfg.steps;
    if (step % cfg.logEvery === 0 || last) {
      const tokPerSec = ((interval.steps * model.tokensPerStep) / interval.ms) * 1000;
      const line = `step ${step}: loss ${fmtLoss(loss)}, ${Math.round(tokPerSec)} tok/s, ` + `${(interval.ms / interval.steps).toFixed(1)} ms/step`;
      out.write(tty ? `\r\x1b[2K${line}\n${bar()}` : `${line}\n`);
      interval = { steps: 0, ms: 0 };
      lastDraw = performance.now();
    } else if (tty && performance.now() - lastDraw >= BAR_REDRAW_MS) {
      out.write(`\r${bar()}`);
      lastDraw = performance.now();
    }
  }
  if (tty) out.write('\n'); // leave the finished bar on screen, like tqdm

  // Eval: a few forward-only passes (about a third of a training step each).
  load?.setPhase('eval');
  await sleep(Math.max(1, Math.round((10 * model.computeMs) / 3)));
  out.write(`eval: loss ${fmtLoss(loss + 0.03)}\n`);
  out.write(`done: ${cfg.steps} steps in ${(elapsedMs / 1000).toFixed(1)} s\n`);
}

await main();
