// Building blocks every domain of the contract shares: limits, names, ids, empty and ok answers.
import { z } from 'zod';
import { VARIABLE_NAME_SOURCE } from '../variables.js';

/** Bounds on what crosses a boundary; a face never hands the engine more than this. */
export const LIMITS = {
  nameChars: 120,
  argChars: 4096,
  argCount: 256,
  envKeys: 128,
  variables: 64,
  terminalCols: { min: 20, max: 400 },
  terminalRows: { min: 5, max: 200 },
  writeChars: 64 * 1024,
  /** Largest page of stored output one call returns. */
  outputPageBytes: 4 * 1024 * 1024,
} as const;

/** Longest limit a run may be given: a week. */
export const MAX_RUN_SECONDS = 7 * 24 * 3600;

/** How long a sweep or a tune waits at most for a quiet host and an idle, cool GPU before each run: an hour, 2 minutes unless told. */
export const MAX_WAIT_SECONDS = 3600;
export const DEFAULT_MAX_WAIT_SECONDS = 120;

export const name = z
  .string()
  .trim()
  .min(1, 'a name is required')
  .max(LIMITS.nameChars)
  .regex(/^[\w.\- +]+$/u, 'use letters, digits, spaces and . _ - + only');

/**
 * Names every JavaScript object keeps for itself: a record cannot hold `__proto__` as a key (zod drops it, and an
 * assignment sets the prototype), so such a variable would silently take no value.
 */
export const RESERVED_VARIABLE_NAMES: ReadonlySet<string> = new Set(['__proto__']);

export const varName = z
  .string()
  .regex(new RegExp(`^${VARIABLE_NAME_SOURCE}$`, 'u'), 'a variable name is letters, digits and _')
  .refine((text) => !RESERVED_VARIABLE_NAMES.has(text), { message: '"__proto__" cannot be a variable name (JavaScript objects reserve it): use another name' });

export const runId = z.number().int().positive();

export const nullableNumber = z.number().nullable();

export const interval = z.object({ low: z.number(), high: z.number() }).nullable();

/**
 * Steps a person sets by hand, for a run, a workload or a sweep: warm-up steps (null: the automatic rule) and
 * steps left out of the steady statistics.
 */
export const stepChoices = z.object({
  warmupSteps: z.number().int().min(0).max(10_000_000).nullable().default(null),
  excludeSteps: z.array(z.number().int().min(0)).max(10_000).default([]),
});

export const terminalSize = z.object({
  cols: z.number().int().min(LIMITS.terminalCols.min).max(LIMITS.terminalCols.max),
  rows: z.number().int().min(LIMITS.terminalRows.min).max(LIMITS.terminalRows.max),
});

export const empty = z.object({}).strict();

export const ok = z.object({ ok: z.literal(true) });

export const nullable = z.number().nullable();

/** Largest log the UI may import in one call (pasted text); a file goes in pieces (IMPORT_PIECE_CHARS each) instead. */
export const MAX_IMPORT_CHARS = 8 * 1024 * 1024;
/**
 * A file the UI imports is sent in pieces of at most this many characters, each answered before the next: a progress
 * bar moves with each, memory holds one, and a piece (UTF-8, up to 4 bytes a character) stays far below the
 * WebSocket's message limit.
 */
export const IMPORT_PIECE_CHARS = 1024 * 1024;
/** Largest log an import takes unless told otherwise (the CLI's --max-bytes): larger is almost always a mistake (a binary, /dev/zero). */
export const MAX_IMPORT_FILE_BYTES = 2 * 1024 ** 3;
