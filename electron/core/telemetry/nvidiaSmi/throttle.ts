// The clocks event (formerly "throttle") reasons: NVML's bitmask, its names in the CSV, XML and `-q`
// forms, and which of them mean a timing measurement ran on reduced clocks.

export type ThrottleReasonKey =
  | 'gpu_idle'
  | 'applications_clocks_setting'
  | 'sw_power_cap'
  | 'hw_slowdown'
  | 'sync_boost'
  | 'sw_thermal_slowdown'
  | 'hw_thermal_slowdown'
  | 'hw_power_brake_slowdown'
  | 'display_clock_setting';

export interface ThrottleReason {
  key: ThrottleReasonKey;
  bit: number;
  label: string;
  /** Clocks were pulled below what was asked for by power or heat: timing on such samples is suspect. */
  throttles: boolean;
}

/**
 * Bits from nvml.h (nvmlClocksEventReason*; the same values under the older nvmlClocksThrottleReason*
 * names). The help captures only say "See nvml.h"; the captures agree: supported = 0x1FF (nine bits)
 * on the H100, RTX 2080 SUPER and RTX 4080 SUPER, the XML lists nine reasons, and the 2080 SUPER's
 * active mask 0x1 comes with gpu_idle "Active" and all others "Not Active".
 */
export const THROTTLE_REASONS: readonly ThrottleReason[] = [
  { key: 'gpu_idle', bit: 0x1, label: 'GPU idle', throttles: false },
  // Also what NVML reports for user-defined clocks; a deliberate setting, not a throttle.
  { key: 'applications_clocks_setting', bit: 0x2, label: 'applications clocks setting', throttles: false },
  { key: 'sw_power_cap', bit: 0x4, label: 'software power cap', throttles: true },
  { key: 'hw_slowdown', bit: 0x8, label: 'hardware slowdown', throttles: true },
  // Held to the slowest GPU of a sync-boost group: a multi-GPU setting, not this GPU's limit.
  { key: 'sync_boost', bit: 0x10, label: 'sync boost', throttles: false },
  { key: 'sw_thermal_slowdown', bit: 0x20, label: 'software thermal slowdown', throttles: true },
  { key: 'hw_thermal_slowdown', bit: 0x40, label: 'hardware thermal slowdown', throttles: true },
  { key: 'hw_power_brake_slowdown', bit: 0x80, label: 'hardware power brake slowdown', throttles: true },
  { key: 'display_clock_setting', bit: 0x100, label: 'display clock setting', throttles: false },
];

/** The bits that count as "throttled" for timing: power cap, thermal slowdowns, HW slowdown, power brake. */
export const TIMING_THROTTLE_MASK = THROTTLE_REASONS.filter((r) => r.throttles).reduce((mask, r) => mask | r.bit, 0);

const BY_KEY = new Map(THROTTLE_REASONS.map((r) => [r.key, r]));

/** The reasons set in a mask, in bit order; bits NVML does not define are left out (see unknownBits). */
export function decodeThrottleReasons(mask: number | null | undefined): ThrottleReason[] {
  if (mask === null || mask === undefined || !Number.isFinite(mask)) return [];
  return THROTTLE_REASONS.filter((r) => (mask & r.bit) !== 0);
}

/** Bits set in the mask that no known reason explains (a newer driver's reasons). */
export function unknownThrottleBits(mask: number | null | undefined): number {
  if (mask === null || mask === undefined || !Number.isFinite(mask)) return 0;
  const known = THROTTLE_REASONS.reduce((all, r) => all | r.bit, 0);
  // Reason bits sit in the low 32; `&` on JS numbers works on 32 bits, which is what we want here.
  return (mask & ~known) >>> 0;
}

/** True when power or heat pulled the clocks down: the sample should not count as clean timing. */
export function isThrottled(mask: number | null | undefined): boolean {
  if (mask === null || mask === undefined || !Number.isFinite(mask)) return false;
  return (mask & TIMING_THROTTLE_MASK) !== 0;
}

/** The reasons that throttle timing, by key (for a UI: "sw_power_cap, hw_thermal_slowdown"). */
export function throttlingReasons(mask: number | null | undefined): ThrottleReasonKey[] {
  return decodeThrottleReasons(mask)
    .filter((r) => r.throttles)
    .map((r) => r.key);
}

/**
 * A reason's key from its name in any nvidia-smi form: CSV `clocks_event_reasons.sw_power_cap`,
 * `clocks_throttle_reasons.sw_power_cap`, XML `clocks_event_reason_sw_power_cap`,
 * `clocks_throttle_reason_display_clocks_setting` (XML spells "clocks"), or `-q` labels
 * ("Idle", "SW Power Cap", "HW Thermal Slowdown", "Display Clock Setting").
 */
export function throttleReasonKeyOf(name: string): ThrottleReasonKey | null {
  const bare = name
    .trim()
    .replace(/^clocks_(?:event|throttle)_reasons?[._]/u, '')
    .toLowerCase()
    .replace(/\s+/gu, '_');
  if (bare === 'idle') return 'gpu_idle';
  if (bare === 'display_clocks_setting') return 'display_clock_setting';
  return BY_KEY.has(bare as ThrottleReasonKey) ? (bare as ThrottleReasonKey) : null;
}

/** A mask from per-reason "Active" / "Not Active" flags (XML and `-q` give no mask). */
export function throttleMaskFromFlags(flags: Iterable<readonly [name: string, active: boolean | null]>): number | null {
  let mask = 0;
  let any = false;
  for (const [name, active] of flags) {
    const key = throttleReasonKeyOf(name);
    if (key === null || active === null) continue;
    any = true;
    if (active) mask |= BY_KEY.get(key)!.bit;
  }
  return any ? mask : null;
}
