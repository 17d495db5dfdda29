// The GPU settings a run ran under (persistence, power limit, clock locks) and whether Tuning Bench set them for it.
import type { Run } from '../../../electron/shared/api.js';
import { describeRunGpuSettings } from '../shared/gpuSettings/gpuText.js';
import './RunView.css';

export function RunGpuSettings({ run }: { run: Run }) {
  if (run.gpuSettings === null) return null;
  const { facts, origin, tone } = describeRunGpuSettings(run.gpuSettings, run.status);
  const text = facts.join(' · ');
  // One line, like the environment's: the header keeps its height as the run ends (a failed restore may wrap).
  return (
    <p className={`run-gpu-settings tone-${tone}`} data-testid="run-gpu-settings">
      <span className="fingerprint-title">GPU settings</span>
      <span className="run-gpu-settings-facts" title={text}>
        {text}
      </span>
      <span className="run-gpu-settings-origin" data-testid="run-gpu-settings-origin">
        {origin}
      </span>
    </p>
  );
}
