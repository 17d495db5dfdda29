// The log a long training writes (one metric line per step), as a user meets it: `tuning-bench import` of it, and a live
// `tuning-bench run -- cat` of it beside a bare pty, with rates and peak resident memory at two lengths, so growth with
// a run's length shows as a ratio.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { median, type BenchRow } from './stats.js';

const REPO = path.resolve(import.meta.dirname, '..');
const CLI = path.join(REPO, 'bin/tuning-bench.js');
const MIB = 1024 * 1024;
/** Issue 27's figures were taken at 1 M and 3.2 M lines; these two lengths show whether memory grows with the run. */
const LINE_COUNTS = (process.env.BENCH_DENSE_LINES ?? '1000000,3000000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_DENSE_ROUNDS ?? 1);
/**
 * Another checkout (built with `npm run build`), e.g. the previous version: its CLI imports the same logs in the same
 * rounds, alternated with this one's, so a before/after comparison sees the same machine and load.
 */
const BASELINE = process.env.BENCH_DENSE_BASELINE;
/** Lines written per write call: large enough that the generator costs nothing beside the import. */
const LINES_PER_WRITE = 10_000;

/** The log: `step i: loss x, 10.0 ms/step, grad_norm 0.5`, the loss falling with small deterministic noise. */
export function writeDenseLog(file: string, lines: number): void {
  const out = fs.openSync(file, 'w');
  try {
    for (let first = 1; first <= lines; first += LINES_PER_WRITE) {
      const chunk: string[] = [];
      for (let step = first; step < Math.min(first + LINES_PER_WRITE, lines + 1); step++) {
        const loss = 4 * Math.exp(-step / 200_000) + 1 + ((step * 7919) % 1000) / 100_000;
        chunk.push(`step ${step}: loss ${loss.toFixed(4)}, 10.0 ms/step, grad_norm 0.5\n`);
      }
      fs.writeSync(out, chunk.join(''));
    }
  } finally {
    fs.closeSync(out);
  }
}

/** Wall seconds and peak resident memory (KiB) of a command, from GNU time. */
function timed(command: string[]): { seconds: number; maxRssKiB: number } {
  const result = spawnSync('/usr/bin/time', ['-f', '%e %M', ...command], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.status !== 0) throw new Error(`${command.join(' ')} failed: ${result.stderr.slice(-2000)}`);
  const [seconds, rss] = result.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { seconds: seconds!, maxRssKiB: rss! };
}

/** Samples stored: in blocks (schema 18 on), or a row each (a baseline from before). */
function storedSampleCount(db: string): number {
  const file = new Database(db, { readonly: true });
  try {
    const blocks = file.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'metric_blocks'").pluck().get() === 1;
    const count = blocks ? 'SELECT COALESCE(SUM(count), 0) AS n FROM metric_blocks' : 'SELECT COUNT(*) AS n FROM metric_samples';
    return file.prepare<[], { n: number }>(count).get()!.n;
  } finally {
    file.close();
  }
}

interface Measured {
  rate: number;
  peak: number;
  samples: number;
}

export async function denseBenchmark(): Promise<BenchRow[]> {
  execFileSync('node', ['scripts/buildIfChanged.mjs', 'node'], { cwd: REPO, stdio: 'ignore' });
  const clis: Array<[string, string]> = [['this checkout', CLI]];
  if (BASELINE !== undefined) clis.unshift([`baseline ${path.basename(path.resolve(BASELINE))}`, path.join(path.resolve(BASELINE), 'bin/tuning-bench.js')]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-dense-'));
  const rows: BenchRow[] = [];
  const peaksByLength = new Map<string, number[]>(clis.map(([label]) => [label, []]));
  try {
    for (const lines of LINE_COUNTS) {
      const log = path.join(dir, `dense-${lines}.log`);
      writeDenseLog(log, lines);
      const bytes = fs.statSync(log).size;
      const measured = new Map<string, Array<{ rate: number; peak: number; samples: number }>>(clis.map(([label]) => [label, []]));
      const livePairs = new Map<string, Array<{ ratio: number; rate: number; peak: number }>>(clis.map(([label]) => [label, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const [label, cli] of clis) {
          const db = path.join(dir, `dense-${lines}-${round}.db`);
          const { seconds, maxRssKiB } = timed(['node', cli, '--db', db, 'import', log, '--json']);
          measured.get(label)!.push({ rate: bytes / MIB / seconds, peak: maxRssKiB / 1024, samples: storedSampleCount(db) });
          for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${db}${suffix}`, { force: true });
          // The same log as a live run prints it: through the pty, beside a bare pty (`script`) of the same file.
          const bare = timed(['script', '-qec', `cat ${log}`, '/dev/null']);
          const live = timed(['node', cli, '--db', db, 'run', '--', 'cat', log]);
          livePairs.get(label)!.push({ ratio: bare.seconds / live.seconds, rate: bytes / MIB / live.seconds, peak: live.maxRssKiB / 1024 });
          for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${db}${suffix}`, { force: true });
        }
      }
      fs.rmSync(log);
      const label = `${(lines / 1e6).toLocaleString('en')} M lines, ${(bytes / MIB).toFixed(0)} MiB`;
      for (const [cliLabel] of clis) {
        const rounds = measured.get(cliLabel)!;
        const result: Measured = { rate: median(rounds.map((r) => r.rate)), peak: Math.max(...rounds.map((r) => r.peak)), samples: rounds[0]!.samples };
        peaksByLength.get(cliLabel)!.push(result.peak);
        rows.push(
          {
            benchmark: 'dense',
            metric: `${cliLabel}: import of a dense log (${label}; ${result.samples.toLocaleString('en')} samples; median of ${ROUNDS})`,
            value: result.rate,
            unit: 'MiB/s',
            target: '>= 50',
            pass: result.rate >= 50,
          },
          {
            benchmark: 'dense',
            metric: `${cliLabel}: import peak RSS (${label}; highest of ${ROUNDS})`,
            value: result.peak,
            unit: 'MiB',
            target: '< 300',
            pass: result.peak < 300,
          },
        );
        const live = livePairs.get(cliLabel)!;
        rows.push(
          {
            benchmark: 'dense',
            metric: `${cliLabel}: live run (\`run -- cat\`) of it, speed over a bare pty's (\`script -qec cat\`, median of ${ROUNDS} pairs)`,
            value: median(live.map((r) => r.ratio)),
            unit: 'x',
            target: '>= 0.8',
            pass: median(live.map((r) => r.ratio)) >= 0.8,
          },
          {
            benchmark: 'dense',
            metric: `${cliLabel}: live run, stored and parsed (${label}; median of ${ROUNDS})`,
            value: median(live.map((r) => r.rate)),
            unit: 'MiB/s',
            target: '>= 50',
            pass: median(live.map((r) => r.rate)) >= 50,
          },
          {
            benchmark: 'dense',
            metric: `${cliLabel}: live run peak RSS (${label}; highest of ${ROUNDS})`,
            value: Math.max(...live.map((r) => r.peak)),
            unit: 'MiB',
            target: '< 300',
            pass: Math.max(...live.map((r) => r.peak)) < 300,
          },
        );
      }
    }
    for (const [cliLabel, peaks] of peaksByLength) {
      if (peaks.length < 2) continue;
      const growth = peaks.at(-1)! / peaks[0]!;
      rows.push({
        benchmark: 'dense',
        metric: `${cliLabel}: peak RSS, longest over shortest log (${LINE_COUNTS.join(' / ')} lines)`,
        value: growth,
        unit: 'x',
        target: '<= 1.1',
        pass: growth <= 1.1,
      });
    }
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
