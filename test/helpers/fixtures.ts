// Real captures shared by the team: `../shared/fixtures` beside the checkout (CI puts shared/ there too).
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './tempCore.js';

export const SHARED_FIXTURES = process.env.TUNING_BENCH_FIXTURES ?? path.resolve(REPO_ROOT, '../shared/fixtures');

export function sharedFixture(...parts: string[]): string {
  const file = path.join(SHARED_FIXTURES, ...parts);
  if (!fs.existsSync(file)) {
    throw new Error(`missing shared fixture ${file}: check out shared/ beside the repository, or set TUNING_BENCH_FIXTURES`);
  }
  return file;
}

export function readSharedFixture(...parts: string[]): string {
  return fs.readFileSync(sharedFixture(...parts), 'utf8');
}

/** Every shared training log (`training-logs/*.log`), as [file name, text]. */
export function sharedTrainingLogs(): Array<[string, string]> {
  const dir = sharedFixture('training-logs');
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.log'))
    .map((file) => [file, fs.readFileSync(path.join(dir, file), 'utf8')]);
}
