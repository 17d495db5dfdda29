// Recognises nvidia-smi's own error and warning lines (wording from test/fixtures/nvidia-smi/
// messages.md), so a sampler or a GPU control can say what went wrong instead of "exit 9".

/** nvidia-smi's documented return codes (nvidia-smi(1), RETURN VALUE); 2 and 4 also seen in messages.md. */
export const NVIDIA_SMI_EXIT = {
  success: 0,
  invalidArgument: 2,
  notSupported: 3,
  noPermission: 4,
  notFound: 6,
  driverNotLoaded: 9,
  gpuLost: 15,
  other: 255,
} as const;

export type NvidiaSmiMessageKind =
  | 'no-driver'
  | 'driver-mismatch'
  | 'nvml-init'
  | 'gpu-lost'
  | 'invalid-field'
  | 'insufficient-permissions'
  | 'not-supported'
  | 'invalid-power-limit'
  | 'invalid-clocks'
  | 'no-devices'
  | 'bad-option'
  | 'unknown-error';

export interface NvidiaSmiMessage {
  kind: NvidiaSmiMessageKind;
  /** The line that matched, trimmed. */
  line: string;
  /** The field named by an invalid-field message. */
  field?: string;
  /** The PCI bus id the message names, as printed (8- or 4-digit domain). */
  busId?: string;
}

interface Rule {
  kind: NvidiaSmiMessageKind;
  pattern: RegExp;
}

// Order matters: the first matching rule names the line. Apostrophes are matched loosely because
// pasted copies carry typographic ones ("couldn‘t"), and whitespace is collapsed before matching
// because consoles wrap the long lines (messages.md §6, §7).
const RULES: readonly Rule[] = [
  { kind: 'no-driver', pattern: /NVIDIA-SMI has failed because it couldn.t communicate with the NVIDIA driver/iu },
  { kind: 'driver-mismatch', pattern: /Failed to initialize NVML: Driver\/library version mismatch/iu },
  { kind: 'nvml-init', pattern: /Failed to initialize NVML/iu },
  { kind: 'gpu-lost', pattern: /GPU is lost|fallen off the bus/iu },
  { kind: 'invalid-field', pattern: /Field ["“”]([^"“”]+)["“”] is not a valid field to query/iu },
  { kind: 'invalid-power-limit', pattern: /is not a valid power limit/iu },
  // The -ac refusal of a clock pair (a published transcript); the fake uses it for -lgc/-lmc too.
  { kind: 'invalid-clocks', pattern: /Specified clock combination .* is not supported/iu },
  { kind: 'insufficient-permissions', pattern: /Insufficient Permissions|does not have permission/iu },
  { kind: 'not-supported', pattern: /\bis not supported\b|\bnot supported for GPU\b/iu },
  { kind: 'no-devices', pattern: /No devices were found/iu },
  { kind: 'bad-option', pattern: /^ERROR: |Invalid combination of input arguments/iu },
  { kind: 'unknown-error', pattern: /Unknown Error/iu },
];

const BUS_ID = /\b([0-9A-Fa-f]{4}(?:[0-9A-Fa-f]{4})?:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\b/u;

/** The first recognised nvidia-smi message in some output, or null. */
export function classifyNvidiaSmiMessage(output: string): NvidiaSmiMessage | null {
  return classifyNvidiaSmiMessages(output)[0] ?? null;
}

/** Every recognised message, one per line, in order (wrapped lines are joined back first). */
export function classifyNvidiaSmiMessages(output: string): NvidiaSmiMessage[] {
  const found: NvidiaSmiMessage[] = [];
  for (const line of unwrap(output)) {
    const rule = RULES.find((r) => r.pattern.test(line));
    if (!rule) continue;
    const message: NvidiaSmiMessage = { kind: rule.kind, line };
    const field = rule.kind === 'invalid-field' ? rule.pattern.exec(line)?.[1] : undefined;
    if (field !== undefined) message.field = field;
    const busId = BUS_ID.exec(line)?.[1];
    if (busId !== undefined) message.busId = busId;
    found.push(message);
  }
  return found;
}

/** Lines with a console wrap undone: a line starting with a space continues the one before. */
function unwrap(output: string): string[] {
  const lines: string[] = [];
  for (const raw of output.split(/\r?\n/u)) {
    if (/^\s/u.test(raw) && raw.trim() !== '' && lines.length > 0) lines[lines.length - 1] += ` ${raw.trim()}`;
    else if (raw.trim() !== '') lines.push(raw.trim());
  }
  return lines.map((line) => line.replace(/\s+/gu, ' '));
}
