// The runs and workloads the UI knows, one copy per bridge, each a live list (shared/liveList.ts): a run's or a
// workload's change that arrives while the list is reloading (a reconnect) is kept, not replaced by the older list.
import type { Run, Workload } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import type { Bridge } from '../bridge/types.js';
import { LiveList, useLiveList, type LiveListSnapshot } from './liveList.js';

/** The engine's order: built-ins first, then by name (SQLite's binary order). */
function workloadOrder(a: Workload, b: Workload): number {
  if (a.builtin !== b.builtin) return a.builtin ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

interface BridgeLists {
  runs: LiveList<Run>;
  workloads: LiveList<Workload>;
}

const lists = new WeakMap<Bridge, BridgeLists>();

export function bridgeLists(bridge: Bridge): BridgeLists {
  let held = lists.get(bridge);
  if (!held) {
    const runs = new LiveList<Run>(() => bridge.api['runs.list']({}));
    bridge.on('runs.onDidChange', (run) => runs.put(run));
    runs.follow(bridge);
    const workloads = new LiveList<Workload>(() => bridge.api['workloads.list']({}), workloadOrder);
    bridge.on('workloads.onDidChange', ({ workloads: all }) => workloads.replaceAll(all));
    workloads.follow(bridge);
    held = { runs, workloads };
    lists.set(bridge, held);
  }
  return held;
}

export function useRunList(): LiveList<Run> {
  return bridgeLists(useBridge()).runs;
}

export function useRuns(): LiveListSnapshot<Run> {
  return useLiveList(useRunList());
}

export function useWorkloadList(): LiveList<Workload> {
  return bridgeLists(useBridge()).workloads;
}

export function useWorkloads(): LiveListSnapshot<Workload> {
  return useLiveList(useWorkloadList());
}
