// Where things live: the shared database file and the bundled resources.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the person stood when they typed the command: a typed command's default directory. npm runs this package's own
 * scripts (`npm run cli -- ...`, `npm run serve`) in the package's folder and says in INIT_CWD where they were; any
 * other process that inherited INIT_CWD (started by a test runner under npx, or by another project's npm script) stands
 * where it was started, so that is where its command runs.
 */
export function whereThePersonStands(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const ownScript = env.npm_package_name === 'tuning-bench' && env.npm_package_json !== undefined && path.dirname(env.npm_package_json) === cwd;
  return ownScript && env.INIT_CWD ? env.INIT_CWD : cwd;
}

/** `--db`, else `$TUNING_BENCH_DB`, else `$XDG_DATA_HOME/tuning-bench/runs.db` (DESIGN: one file for all faces). */
export function defaultDatabasePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TUNING_BENCH_DB) return path.resolve(env.TUNING_BENCH_DB);
  const dataHome = env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  return path.join(dataHome, 'tuning-bench', 'runs.db');
}

/**
 * The app's `resources/` folder, found by walking up from this module: works from the TypeScript
 * sources (tests) and from `dist/node/...` (CLI, server). The Electron main passes its own.
 */
export function defaultResourcesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'resources', 'workloads'))) return path.join(dir, 'resources');
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the resources/ folder of Tuning Bench');
    dir = parent;
  }
}

/** Root of the built renderer (`dist/renderer`), found the same way. */
export function defaultRendererDir(): string {
  return path.join(path.dirname(defaultResourcesDir()), 'dist', 'renderer');
}
