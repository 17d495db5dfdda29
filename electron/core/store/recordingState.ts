// What happened while a run was recorded (why its GPU telemetry is missing, parsing switched off, processes that
// outlived it, an orphan left by a dead engine): typed fields of their own. Engines before schema 20 kept these in
// the environment fingerprint, which says what the run ran on; this module is the one place that knows those keys.

/** Notes of each kind a run keeps: the first few say why; a flood of the same would say nothing more. */
export const MAX_RECORDING_NOTES = 20;

export interface RecordingState {
  telemetryNotes: string[];
  parsingNotes: string[];
  survivorPids: number[];
  orphaned: boolean;
}

/** The fingerprint keys older engines wrote this state under. */
const LEGACY_KEYS = ['telemetryNotes', 'parsingNotes', 'survivors', 'orphan'] as const;

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
const pids = (value: unknown): number[] => (Array.isArray(value) ? value.filter((item): item is number => Number.isInteger(item) && item > 0) : []);

/** A fingerprint as an older engine stored it, parted into the environment alone and the recording state it carried. */
export function splitLegacyFingerprint(stored: Readonly<Record<string, unknown>>): { fingerprint: Record<string, unknown>; state: RecordingState } {
  const fingerprint = Object.fromEntries(Object.entries(stored).filter(([key]) => !(LEGACY_KEYS as readonly string[]).includes(key)));
  return {
    fingerprint,
    state: {
      telemetryNotes: strings(stored.telemetryNotes).slice(0, MAX_RECORDING_NOTES),
      parsingNotes: strings(stored.parsingNotes).slice(0, MAX_RECORDING_NOTES),
      survivorPids: pids(stored.survivors),
      orphaned: typeof stored.orphan === 'object' && stored.orphan !== null,
    },
  };
}

/** Whether a stored fingerprint still carries any of that state (a database or an MLflow record from before). */
export function carriesRecordingState(stored: Readonly<Record<string, unknown>>): boolean {
  return LEGACY_KEYS.some((key) => key in stored);
}
