// The command line's own costs: what `tuning-bench run` adds to a command, importing a large log (rate and
// peak memory), and `npm run serve` starting when nothing changed. Each runs the built CLI as a user would.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { buildMixedLog } from '../electron/core/metrics/parsers/benchmarkSupport.js';
import { median, type BenchRow } from './stats.js';

const REPO = path.resolve(import.meta.dirname, '..');
const CLI = path.join(REPO, 'bin/tuning-bench.js');
const MIB = 1024 * 1024;
const RUN_PAIRS = Number(process.env.BENCH_RUN_PAIRS ?? 5);
/** The figure: a 181 MB log (173 MiB; the mixed log comes out a little larger than asked). */
const IMPORT_MIB = Number(process.env.BENCH_IMPORT_MIB ?? 173);
const IMPORT_ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 2);
const SERVE_ROUNDS = Number(process.env.BENCH_SERVE_ROUNDS ?? 3);
/** The command: a program that does nothing for two seconds, so all that is added is the app's. */
const SLEEPER = ['python3', '-c', 'import time; time.sleep(2)'];

/** Wall seconds and peak resident memory (KiB) of a command, from GNU time. */
function timed(command: string[], env: NodeJS.ProcessEnv = process.env): { seconds: number; maxRssKiB: number } {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %M', ...command], { cwd: REPO, env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.status !== 0) throw new Error(`${command.join(' ')} failed: ${result.stderr.slice(-2000)}`);
  const [seconds, rss] = result.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { seconds: seconds!, maxRssKiB: rss! };
}

/** Bare command and the same through `tuning-bench run`, alternated; the overhead is the difference within each pair. */
function runOverhead(dir: string): BenchRow[] {
  const db = path.join(dir, 'run.db');
  // The first run creates the database and fills the Python fingerprint cache: a one-time cost, not this row's.
  timed(['node', CLI, '--db', db, 'run', '--', ...SLEEPER]);
  const extra: number[] = [];
  for (let pair = 0; pair < RUN_PAIRS; pair++) {
    const bare = timed(SLEEPER).seconds;
    const app = timed(['node', CLI, '--db', db, 'run', '--', ...SLEEPER]).seconds;
    extra.push(app - bare);
  }
  const value = median(extra);
  return [
    {
      benchmark: 'cli',
      metric: `run overhead: \`run -- python3 -c 'sleep 2'\` minus the bare command (median of ${RUN_PAIRS} pairs; spread ${Math.min(...extra).toFixed(2)}-${Math.max(...extra).toFixed(2)} s)`,
      value,
      unit: 's',
      target: '<= 0.3',
      pass: value <= 0.3,
    },
  ];
}

/** `tuning-bench import` of a dense mixed log (a bar redraw per step, every one parsed), as its own process. */
function importRows(dir: string): BenchRow[] {
  const log = path.join(dir, 'train.log');
  fs.writeFileSync(log, buildMixedLog(IMPORT_MIB));
  const bytes = fs.statSync(log).size;
  const rates: number[] = [];
  const peaks: number[] = [];
  let stored = '';
  for (let round = 0; round < IMPORT_ROUNDS; round++) {
    const db = path.join(dir, `import-${round}.db`);
    const { seconds, maxRssKiB } = timed(['node', CLI, '--db', db, 'import', log, '--json']);
    rates.push(bytes / MIB / seconds);
    peaks.push(maxRssKiB / 1024);
    stored = storedSamples(db);
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${db}${suffix}`, { force: true });
  }
  const rate = median(rates);
  const peak = Math.max(...peaks);
  return [
    {
      benchmark: 'cli',
      metric: `import of a ${(bytes / MIB).toFixed(0)} MiB mixed log, whole process (median of ${IMPORT_ROUNDS}; samples stored: ${stored})`,
      value: rate,
      unit: 'MiB/s',
      target: '>= 50',
      pass: rate >= 50,
    },
    { benchmark: 'cli', metric: 'import: peak resident memory of the process (highest round)', value: peak, unit: 'MiB', target: '< 400', pass: peak < 400 },
  ];
}

/** What an import kept, by kind: bar redraws are thinned by the bars' own clocks, training lines all kept. */
function storedSamples(db: string): string {
  const file = new Database(db, { readonly: true });
  try {
    const rows = file.prepare<[], { kind: string; n: number }>('SELECT kind, SUM(count) AS n FROM metric_blocks GROUP BY kind ORDER BY kind').all();
    return rows.map((row) => `${row.n.toLocaleString('en')} ${row.kind}`).join(', ');
  } finally {
    file.close();
  }
}

/** `npm run serve` with nothing to build: from the command to the printed URL. */
async function serveFirstStart(dir: string): Promise<BenchRow[]> {
  // Brings the build up to date first (untimed), so the rounds time the up-to-date check, not a build.
  execFileSync('node', ['scripts/buildIfChanged.mjs'], { cwd: REPO, stdio: 'ignore' });
  const seconds: number[] = [];
  for (let round = 0; round < SERVE_ROUNDS; round++) {
    seconds.push(await untilServing({ ...process.env, TUNING_BENCH_DB: path.join(dir, `serve-${round}.db`), TUNING_BENCH_NVIDIA_SMI: '/nonexistent' }));
  }
  const value = median(seconds);
  return [{ benchmark: 'cli', metric: `\`npm run serve\`, build up to date: command to URL printed (median of ${SERVE_ROUNDS})`, value, unit: 's' }];
}

function untilServing(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('npm', ['run', 'serve', '--', '--port', '0'], { cwd: REPO, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const stop = () => {
      try {
        process.kill(-child.pid!, 'SIGINT');
      } catch {
        // already gone
      }
    };
    child.stdout.on('data', (data: Buffer) => {
      out += data.toString();
      if (out.includes('Open http')) {
        const elapsed = (performance.now() - started) / 1000;
        child.once('exit', () => resolve(elapsed));
        stop();
      }
    });
    child.stderr.on('data', (data: Buffer) => {
      out += data.toString();
    });
    child.once('exit', (code) => {
      if (!out.includes('Open http')) reject(new Error(`npm run serve exited (${code}) before serving:\n${out.slice(-2000)}`));
    });
  });
}

export async function cliBenchmark(): Promise<BenchRow[]> {
  // The built CLI, as `npm run cli` would build it.
  execFileSync('node', ['scripts/buildIfChanged.mjs', 'node'], { cwd: REPO, stdio: 'ignore' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-cli-'));
  try {
    const rows = [...runOverhead(dir), ...importRows(dir)];
    rows.push(...(await serveFirstStart(dir)));
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
