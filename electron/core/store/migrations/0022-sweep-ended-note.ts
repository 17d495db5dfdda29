// Why a sweep ended before its plan when no person cancelled it (a tune's step whose knob turned out not to act), for
// a person to read beside its status.
import type { Migration } from './index.js';

export const sweepEndedNote: Migration = {
  version: 22,
  name: 'sweep-ended-note',
  sql: 'ALTER TABLE sweeps ADD COLUMN ended_note TEXT;',
};
