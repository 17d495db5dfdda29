// The CLI's way into the engine: the contract's typed client, every input parsed as for the UI's faces.
import type { Core } from '../core/createCore.js';
import { ApiFailure, createClient, dispatch, type ApiClient, type Workload } from '../shared/api.js';
import { UsageError } from './errors.js';

export function contractClient(core: Core): ApiClient {
  return createClient((method, input) => dispatch(core.handlers, method, input));
}

/**
 * Runs a call whose `not_found` means the person named something that is not there: said with the
 * database it was looked for in and how to list what is, as a usage error (exit 2).
 */
export async function naming<T>(call: Promise<T>, what: string, core: Core, listHint: string): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiFailure && error.code === 'not_found') throw new UsageError(`no ${what} in ${core.dbPath} (${listHint})`);
    throw error;
  }
}

/** A workload by the name the person typed, or a usage error that lists the names there are. */
export async function workloadNamed(core: Core, name: string): Promise<Workload> {
  const workloads = await contractClient(core)['workloads.list']({});
  const workload = workloads.find((w) => w.name === name);
  if (!workload) throw new UsageError(`no workload "${name}" (registered: ${workloads.map((w) => w.name).join(', ')})`);
  return workload;
}
