// Real nvidia-smi captures and real training logs, kept in the repository under test/fixtures
// (each folder's PROVENANCE.md says where every file came from and under which licence).
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './tempCore.js';

export const CAPTURED_FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');

export function capturedFixture(...parts: string[]): string {
  const file = path.join(CAPTURED_FIXTURES, ...parts);
  if (!fs.existsSync(file)) {
    throw new Error(`missing fixture ${file}: it is part of the repository (git checkout -- test/fixtures restores it)`);
  }
  return file;
}

export function readCapturedFixture(...parts: string[]): string {
  return fs.readFileSync(capturedFixture(...parts), 'utf8');
}

/** Every captured training log (`test/fixtures/training-logs/*.log`), as [file name, text]. */
export function capturedTrainingLogs(): Array<[string, string]> {
  const dir = capturedFixture('training-logs');
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.log'))
    .map((file) => [file, fs.readFileSync(path.join(dir, file), 'utf8')]);
}
