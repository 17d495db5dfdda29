// Runs the CLI as a user would, from its TypeScript sources (tsx), with its own database file.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './tempCore.js';

export const CLI_ENTRY = path.join(REPO_ROOT, 'electron/cli/entry.ts');
/** tsx's loader by absolute URL, so the CLI can be started from any working directory. */
export const TSX_LOADER = import.meta.resolve('tsx');
const ENTRY = CLI_ENTRY;

export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['--import', TSX_LOADER, ENTRY, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...options.env },
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
