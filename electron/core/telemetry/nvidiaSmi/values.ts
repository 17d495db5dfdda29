// Single values as nvidia-smi prints them (CSV cells, XML text, `-q` text): the many spellings of
// "no value", numbers with or without units, hex bitmasks, flags and performance states.

/**
 * Why a cell holds no value, or null when it holds one. nvidia-smi writes NVML errors in brackets
 * (`[N/A]`, `[Not Supported]`, `[Unknown Error]`, `[GPU is lost]`, `[Insufficient Permissions]`,
 * `[Requested functionality has been deprecated]`: all seen in the shared captures or NVML's error
 * strings), some fields print a bare `N/A` (temperature.memory and fabric.* in the 595/610 captures),
 * and some cells are empty (platform.chassis_serial_number in every UO capture).
 */
export function unavailableReason(raw: string): string | null {
  const text = raw.trim();
  if (text === '') return 'empty';
  const bracketed = /^\[(.*)\]$/su.exec(text);
  if (bracketed) return bracketed[1]!.trim() || 'empty';
  if (/^n\/a$/iu.test(text)) return 'N/A';
  if (BARE_ERRORS.has(text.toLowerCase())) return text;
  return null;
}

/** Error texts that also turn up without brackets (the XML and `-q` forms print them bare). */
const BARE_ERRORS = new Set(
  ['Not Supported', 'Unknown Error', 'GPU is lost', 'Insufficient Permissions', 'Requested functionality has been deprecated', 'Not Available'].map((s) =>
    s.toLowerCase(),
  ),
);

/** True when a value or message says the GPU fell off the bus (NVML_ERROR_GPU_IS_LOST). */
export function saysGpuLost(text: string): boolean {
  return /gpu is lost|fallen off the bus/iu.test(text);
}

// A number, then optionally a unit: "433.78 W", "0 %", "100.00%", "16x", "1066699 KB/s",
// "192 bank(s)", "15814595384 us", "-7 C" (all from the captures).
const NUMBER_WITH_UNIT = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z%][A-Za-z%/()]*)?$/u;

/** A finite number from a cell, ignoring a trailing unit; null for "no value" or anything else. */
export function parseNumber(raw: string): number | null {
  const match = NUMBER_WITH_UNIT.exec(raw.trim());
  if (!match) return null;
  const value = Number(match[1]);
  return Number.isFinite(value) ? value : null;
}

/** Like parseNumber, but only integers (indices, widths, generations, MiB, MHz). */
export function parseInteger(raw: string): number | null {
  const value = parseNumber(raw);
  return value !== null && Number.isSafeInteger(value) ? value : null;
}

// JavaScript numbers hold 53 bits exactly; NVML's reason bits sit far below that (0x1..0x100 in
// nvml.h), and the legacy "Unknown" reason (bit 63) is dropped rather than rounded into others.
const MASK_BITS = (1n << 52n) - 1n;

/** A bitmask like "0x0000000000000004" (clocks_event_reasons.active); decimal is accepted too. */
export function parseMask(raw: string): number | null {
  const text = raw.trim();
  if (!/^(?:0[xX][0-9a-fA-F]{1,16}|\d{1,20})$/u.test(text)) return null;
  try {
    return Number(BigInt(text) & MASK_BITS);
  } catch {
    return null;
  }
}

const TRUE_WORDS = new Set(['enabled', 'yes', 'active', 'on', 'true', 'supported', '1']);
const FALSE_WORDS = new Set(['disabled', 'no', 'not active', 'off', 'false', '0']);

/** "Enabled" / "Disabled" (persistence_mode, ecc.mode.current), "Active" / "Not Active", "Yes" / "No". */
export function parseFlag(raw: string): boolean | null {
  const text = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(text)) return true;
  if (FALSE_WORDS.has(text)) return false;
  return null;
}

/** "P0".."P15" to 0..15 (P0 is full performance; idle GeForce cards sit at P8). */
export function parsePstate(raw: string): number | null {
  const match = /^P(\d{1,2})$/u.exec(raw.trim());
  if (!match) return null;
  const value = Number(match[1]);
  return value <= 15 ? value : null;
}

/** Trimmed text, or null when the text means "no value". */
export function parseText(raw: string): string | null {
  return unavailableReason(raw) === null ? raw.trim() : null;
}
