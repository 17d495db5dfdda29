// The New sweep form's GPU settings, held for the whole sweep and restored at its end: a profile, none, or custom
// values. Hidden where there is no NVIDIA GPU to set.
import type { GpuStatusSnapshot } from '../shared/gpuSettings/gpuStatus.js';
import { GpuSettingsEditor, NO_GPU_SETTINGS, SWEEP_SCOPE, type GpuRunFields } from '../shared/gpuSettings/GpuRunSettingsFields.js';
import '../shared/gpuSettings/gpu.css';

interface SweepGpuFieldsProps {
  gpu: GpuStatusSnapshot;
  fields: GpuRunFields | null;
  onChange: (fields: GpuRunFields) => void;
}

export function SweepGpuFields({ gpu, fields, onChange }: SweepGpuFieldsProps) {
  const { status } = gpu;
  const state = status?.state ?? null;
  if (!status?.available || state === null) return null;
  return (
    <fieldset className="gpu-run-settings sweep-gpu" data-testid="sweep-gpu-settings">
      <legend>GPU settings for the sweep</legend>
      <GpuSettingsEditor status={status} state={state} fields={fields ?? NO_GPU_SETTINGS} onChange={onChange} scope={SWEEP_SCOPE} />
    </fieldset>
  );
}
