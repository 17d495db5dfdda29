// Ingest benchmark: pty output into the store (the whole runner pipeline) against a bare node-pty read
// of the same producer, alternated in one process so both see the same machine.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as pty from 'node-pty';
import { createCore } from '../electron/core/createCore.js';
import { median, type BenchRow } from './stats.js';

const MIB = 1024 * 1024;
const SIZE_MIB = Number(process.env.BENCH_INGEST_MIB ?? 200);
const ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 5);
const REPO_ROOT = path.resolve(import.meta.dirname, '..');

/** A training-like log: coloured tqdm redraws with \r, step lines, the odd warning. */
function makeLog(file: string, bytes: number): void {
  const random = crypto.createHash('sha256');
  const out = fs.openSync(file, 'w');
  let written = 0;
  let step = 0;
  while (written < bytes) {
    const lines: string[] = [];
    for (let i = 0; i < 1000; i++) {
      step++;
      random.update(String(step));
      const noise = random.copy().digest()[0]! / 255;
      const loss = (4 * Math.exp(-step / 5000) + 1 + noise * 0.01).toFixed(4);
      lines.push(
        `\r\x1b[32mtrain\x1b[0m ${String(step % 100).padStart(3)}%|\x1b[32m${'█'.repeat(step % 20)}${' '.repeat(20 - (step % 20))}\x1b[0m| ${step}/1000000 [01:23<45:06, 12.3it/s, loss=${loss}]`,
      );
      if (step % 10 === 0) lines.push(`\r\x1b[2Kstep ${step}: loss ${loss}, ${(41250 + noise * 100).toFixed(0)} tok/s, 24.8 ms/step\n`);
      if (step % 997 === 0) lines.push(`UserWarning: something to ignore at step ${step}\n`);
    }
    const block = Buffer.from(lines.join(''));
    const slice = block.subarray(0, Math.min(block.length, bytes - written));
    fs.writeSync(out, slice);
    written += slice.length;
  }
  fs.closeSync(out);
}

/** The same producer under a bare pty, read as fast as node-pty delivers; the clock stops at the last byte. */
function rawRead(file: string, expected: number): Promise<{ seconds: number; bytes: number }> {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint();
    // The trailing sleep keeps the pty open so the last bytes are not lost to the EIO race at exit.
    const term = pty.spawn('/bin/sh', ['-c', 'stty -onlcr; cat "$0"; exec sleep 30', file], { encoding: null, cols: 120, rows: 32 });
    let bytes = 0;
    term.onData((data) => {
      bytes += (data as unknown as Buffer).length;
      if (bytes >= expected) {
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        term.kill('SIGKILL');
        resolve({ seconds, bytes });
      }
    });
  });
}

async function pipelineRead(file: string, dir: string, round: number): Promise<{ seconds: number; bytes: number }> {
  const core = createCore({ face: 'headless', dbPath: path.join(dir, `ingest-${round}.db`), resourcesDir: path.join(REPO_ROOT, 'resources') });
  try {
    // The writer's worker starts with the engine, long before a run in real use; let it finish starting.
    await core.recording.flush();
    const start = process.hrtime.bigint();
    const run = core.startCommand({ adHoc: { command: ['cat', file], cwd: dir } });
    const finished = await core.runner.waitForExit(run.id);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return { seconds, bytes: finished.outputBytes };
  } finally {
    await core.close();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(path.join(dir, `ingest-${round}.db${suffix}`), { force: true });
  }
}

export async function ingestBenchmark(): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-bench-ingest-'));
  try {
    const file = path.join(dir, 'train.log');
    makeLog(file, SIZE_MIB * MIB);
    const expected = fs.statSync(file).size;
    const raw: number[] = [];
    const stored: number[] = [];
    let bytesEqual = true;
    for (let round = 0; round < ROUNDS; round++) {
      const a = await rawRead(file, expected);
      const b = await pipelineRead(file, dir, round);
      bytesEqual &&= a.bytes === expected && b.bytes === expected;
      raw.push(expected / MIB / a.seconds);
      stored.push(expected / MIB / b.seconds);
    }
    const ratio = median(stored.map((s, i) => s / raw[i]!));
    return [
      { benchmark: 'ingest', metric: `raw node-pty read (${SIZE_MIB} MiB, median of ${ROUNDS})`, value: median(raw), unit: 'MiB/s' },
      { benchmark: 'ingest', metric: 'runner into SQLite', value: median(stored), unit: 'MiB/s', target: '>= 50', pass: median(stored) >= 50 },
      { benchmark: 'ingest', metric: 'ratio stored/raw (median of pairs)', value: ratio, unit: 'x', target: '>= 0.8', pass: ratio >= 0.8 },
      { benchmark: 'ingest', metric: 'byte counts equal', value: bytesEqual ? 1 : 0, unit: 'bool', target: '1', pass: bytesEqual },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
