// The environment a run's program sees, and where the synthetic workload's load file goes: pure, from the engine's settings and the run's own variables.
import path from 'node:path';
import type { RunnerEnvironment } from './runContext.js';

type EnvironmentSettings = Pick<RunnerEnvironment, 'baseEnv' | 'builtins' | 'nodeEnv' | 'pythonHelperDir'>;

/** The app's environment, a terminal's variables, the run's own, then the run id, its channel file and the helper on PYTHONPATH. */
export function childEnvironment(
  settings: EnvironmentSettings,
  program: string,
  runEnv: Record<string, string>,
  runId: number,
  channelFile: string,
): Record<string, string> {
  const inheritedPythonPath = runEnv.PYTHONPATH ?? settings.baseEnv.PYTHONPATH;
  const env: Record<string, string> = {
    ...settings.baseEnv,
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    ...runEnv,
    TUNING_BENCH_RUN_ID: String(runId),
    TUNING_BENCH_METRICS: channelFile,
    PYTHONPATH: inheritedPythonPath ? `${settings.pythonHelperDir}${path.delimiter}${inheritedPythonPath}` : settings.pythonHelperDir,
  };
  if (program === settings.builtins.node) Object.assign(env, settings.nodeEnv);
  return env;
}

/**
 * Where the synthetic workload reports its simulated load, which the fake nvidia-smi follows; one the user set
 * (in the workload's env or the app's) is kept, and only a file of the run's own (`owned`) is removed as it ends.
 */
export function loadFileFor(
  settings: Pick<RunnerEnvironment, 'baseEnv' | 'channelDir'>,
  runEnv: Record<string, string>,
  runId: number,
): { path: string; owned: boolean } {
  return {
    path: runEnv.TUNING_BENCH_LOAD_FILE || settings.baseEnv.TUNING_BENCH_LOAD_FILE || path.join(settings.channelDir, `run-${runId}-${process.pid}.load.json`),
    owned: !runEnv.TUNING_BENCH_LOAD_FILE && !settings.baseEnv.TUNING_BENCH_LOAD_FILE,
  };
}

/** The structured-channel file a run's `tuning_bench` helper writes to; the engine's pid keeps two engines' runs apart. */
export function channelFileFor(settings: Pick<RunnerEnvironment, 'channelDir'>, runId: number): string {
  return path.join(settings.channelDir, `run-${runId}-${process.pid}.jsonl`);
}
