// A core on a fresh temp database for one test, closed and removed afterwards.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCore, type EngineCore, type CoreOptions } from '../../electron/core/createCore.js';
import { dispatch, type ApiResult, type MethodName, type MethodOutput } from '../../electron/shared/api.js';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
export const SYNTHETIC_TRAIN = path.join(REPO_ROOT, 'resources/workloads/synthetic/train.js');

export function makeTempDir(prefix = 'tb-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface TempCore {
  core: EngineCore;
  dir: string;
  dbPath: string;
  reopen(): EngineCore;
  cleanup(): Promise<void>;
}

export function tempCore(options: Partial<CoreOptions> = {}): TempCore {
  const dir = makeTempDir();
  const dbPath = path.join(dir, 'runs.db');
  const open = () => createCore({ face: 'headless', dbPath, resourcesDir: path.join(REPO_ROOT, 'resources'), ...options });
  const cores: EngineCore[] = [open()];
  return {
    get core() {
      return cores[cores.length - 1]!;
    },
    dir,
    dbPath,
    reopen() {
      const next = open();
      cores.push(next);
      return next;
    },
    async cleanup() {
      for (const core of cores) await core.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Calls one API method through the contract (its schemas), as a face would: the answer, or the error thrown with its code. */
export async function callApi<M extends MethodName>(core: Pick<EngineCore, 'handlers'>, method: M, input: unknown): Promise<MethodOutput<M>> {
  const result: ApiResult<unknown> = await dispatch(core.handlers, method, input);
  if (!result.ok) throw Object.assign(new Error(`${result.error.code}: ${result.error.message}`), { code: result.error.code });
  return result.value as MethodOutput<M>;
}
