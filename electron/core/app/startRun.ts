// Starting a run with its GPU settings: applied (journaled) first, recorded with the run, put back when it ends.
import type { Run } from '../../shared/api.js';
import { hasRunSettings, type GpuRunSettings } from '../../shared/gpuSettings.js';
import type { GpuControl, GpuSettingsRecord } from '../gpu-control/gpuControl.js';
import type { RunManager, StartRequest } from '../runner/runManager.js';

export interface GpuStartOptions {
  gpuSettings?: GpuRunSettings | undefined;
  confirmOtherProcesses?: boolean | undefined;
  /** Settings a sweep holds for its runs (recorded as set by the sweep). */
  inForce?: GpuSettingsRecord | null | undefined;
  /**
   * Aborted (a CLI's SIGINT, SIGTERM or SIGHUP) before the run has started: nothing is started, and GPU settings
   * already applied for it are put back before StoppedBeforeStart is thrown with the abort's reason.
   */
  stopBeforeStart?: AbortSignal | undefined;
}

export type StartRun = (request: StartRequest & GpuStartOptions) => Promise<Run>;

/** A start asked to stop before the run existed (a signal in its first seconds): nothing ran, nothing stays applied. */
export class StoppedBeforeStart extends Error {
  override name = 'StoppedBeforeStart';

  constructor(reason: string, settingsPutBack: boolean) {
    super(`${reason}: stopped before the run started, so nothing ran${settingsPutBack ? '; the GPU settings applied for it were put back' : ''}`);
  }
}

/** Without settings, the settings in force are recorded with the run; with them, the run holds a lease on the GPU. */
export function startRunWithGpu(runner: RunManager, gpu: GpuControl): StartRun {
  return async (request) => {
    const { gpuSettings, confirmOtherProcesses, inForce, stopBeforeStart, ...start } = request;
    const stopIfAsked = (settingsPutBack: boolean) => {
      if (stopBeforeStart?.aborted) throw new StoppedBeforeStart(String(stopBeforeStart.reason), settingsPutBack);
    };
    stopIfAsked(false);
    if (!hasRunSettings(gpuSettings)) {
      const settingsInForce = inForce ?? (await gpu.settingsInForce());
      stopIfAsked(false);
      return runner.start({ ...start, gpuSettingsInForce: settingsInForce });
    }
    const label = start.workload ? `a run of ${start.workload.name}` : 'a run';
    const lease = await gpu.acquire(gpuSettings, { scope: 'run', confirmOtherProcesses: confirmOtherProcesses ?? false, label });
    try {
      if (stopBeforeStart?.aborted) {
        await lease.release();
        stopIfAsked(true);
      }
      return runner.start({ ...start, gpuSettingsInForce: lease.record, gpuLease: lease });
    } catch (error) {
      await lease.release();
      throw error;
    }
  };
}
