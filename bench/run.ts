// `npm run bench`: runs every benchmark of the project and prints one table (figures go to docs/performance.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliBenchmark } from './cli.js';
import { compareBenchmark } from './compare.js';
import { denseBenchmark } from './dense.js';
import { ingestBenchmark } from './ingest.js';
import { parserBenchmark } from './parsers.js';
import { telemetryBenchmark } from './telemetry.js';
import { formatTable, type BenchRow } from './stats.js';

const BENCHMARKS: Record<string, () => Promise<BenchRow[]>> = {
  ingest: ingestBenchmark,
  parsers: parserBenchmark,
  telemetry: telemetryBenchmark,
  compare: compareBenchmark,
  cli: cliBenchmark,
  dense: denseBenchmark,
};

const only = process.argv.slice(2);
const rows: BenchRow[] = [];
for (const [name, benchmark] of Object.entries(BENCHMARKS)) {
  if (only.length > 0 && !only.includes(name)) continue;
  process.stderr.write(`running ${name}...\n`);
  rows.push(...(await benchmark()));
}
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const machine = `${os.cpus().length} x ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
process.stdout.write(`${formatTable(rows)}\n\nmachine: ${machine}\n`);
const resultsDir = path.join(import.meta.dirname, 'results');
fs.mkdirSync(resultsDir, { recursive: true });
fs.writeFileSync(path.join(resultsDir, 'latest.json'), `${JSON.stringify({ machine, date: new Date().toISOString(), rows }, null, 2)}\n`);
if (rows.some((row) => row.pass === false)) process.exitCode = 1;
