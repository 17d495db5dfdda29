// What nvidia-smi said to a control command, as one clear outcome. Wording from test/fixtures/
// nvidia-smi/messages.md: "not supported" can end in "All done." with exit 0, so the text decides, not the code.
import type { ClockRange, GpuOperation } from '../../shared/gpuSettings.js';
import { classifyNvidiaSmiMessages, NVIDIA_SMI_EXIT } from '../telemetry/nvidiaSmi/index.js';

export type ControlOutcome = 'applied' | 'already' | 'not-supported' | 'permission' | 'invalid-value' | 'no-driver' | 'gpu-lost' | 'no-device' | 'failed';

export interface ControlAnswer {
  ok: boolean;
  outcome: ControlOutcome;
  /** nvidia-smi's own line that decided the outcome (or a summary of the exit). */
  detail: string;
  /** The clocks nvidia-smi says it set; they need not equal the request (messages.md §2.1). */
  echoedRange: ClockRange | null;
  /** Lines printed beside a success, such as "persistence mode is disabled". */
  warnings: string[];
}

const ECHOED_CLOCKS = /(?:gpu|mem)ClkMin (\d+), (?:gpu|mem)ClkMax (\d+)/u;

export function interpretControlAnswer(op: GpuOperation, code: number, output: string): ControlAnswer {
  const messages = classifyNvidiaSmiMessages(output);
  const lines = output
    .split(/\r?\n/u)
    .map((line) => line.trim())
    .filter(Boolean);
  const warnings = lines.filter((line) => /^Warning:/iu.test(line)).map((line) => line.replace(/ See the Known Issues.*$/u, ''));
  const first = (kinds: string[]) => messages.find((m) => kinds.includes(m.kind));
  const fail = (outcome: ControlOutcome, detail: string): ControlAnswer => ({ ok: false, outcome, detail, echoedRange: null, warnings });

  const permission = first(['insufficient-permissions']);
  if (permission) return fail('permission', permission.line);
  const invalid = first(['invalid-power-limit', 'invalid-clocks', 'bad-option']);
  if (invalid) return fail('invalid-value', invalid.line);
  const noDriver = first(['no-driver', 'driver-mismatch', 'nvml-init']);
  if (noDriver) return fail('no-driver', noDriver.line);
  const lost = first(['gpu-lost']);
  if (lost) return fail('gpu-lost', lost.line);
  const noDevice = first(['no-devices']);
  if (noDevice) return fail('no-device', noDevice.line);
  // Checked before the exit code: it is printed as a warning and the command still ends "All done."
  const unsupported = first(['not-supported']);
  if (unsupported) return fail('not-supported', unsupported.line);
  if (code === NVIDIA_SMI_EXIT.noPermission) return fail('permission', lines[0] ?? 'nvidia-smi exited 4 (no permission)');
  if (code === NVIDIA_SMI_EXIT.notSupported) return fail('not-supported', lines[0] ?? 'nvidia-smi exited 3 (not supported)');
  if (code !== 0) {
    const unknown = first(['unknown-error']);
    return fail('failed', unknown?.line ?? lines.find((l) => !/^Terminating early/iu.test(l)) ?? `nvidia-smi exited ${code}`);
  }

  const already = lines.find((line) => /\bis already (?:Enabled|Disabled)\b/iu.test(line));
  const echoed = ECHOED_CLOCKS.exec(output);
  const done = lines.find((line) => !/^(?:All done\.|Warning:)/iu.test(line)) ?? 'All done.';
  return {
    ok: true,
    outcome: already && op.kind === 'persistence' ? 'already' : 'applied',
    detail: already ?? done,
    echoedRange: echoed ? { minMHz: Number(echoed[1]), maxMHz: Number(echoed[2]) } : null,
    warnings,
  };
}
