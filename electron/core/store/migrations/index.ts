// The ordered list of schema migrations; `user_version` records how many have been applied.
import { initial } from './0001-initial.js';
import { workloadMode } from './0002-workload-mode.js';
import { fingerprint } from './0003-fingerprint.js';
import { sweeps } from './0004-sweeps.js';
import { compare } from './0005-compare.js';
import { reparse } from './0006-reparse.js';
import { profiles } from './0007-profiles.js';
import { outputDropped } from './0008-output-dropped.js';
import { runReplacements } from './0009-run-replacements.js';
import { stepChoices } from './0010-step-choices.js';
import { runCheckout } from './0011-run-checkout.js';
import { mlflow } from './0012-mlflow.js';
import { textGenerations } from './0013-text-generations.js';
import { processIdentity } from './0014-process-identity.js';
import { typedCommand } from './0015-typed-command.js';
import { runKnobs } from './0016-run-knobs.js';
import { tunes } from './0017-tunes.js';
import { sampleBlocks } from './0018-sample-blocks.js';
import { blockDataApart } from './0019-block-data-apart.js';
import { recordingState } from './0020-recording-state.js';
import { blockProgressions } from './0021-block-progressions.js';
import { sweepEndedNote } from './0022-sweep-ended-note.js';
import type { Db } from '../open.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Moves data the SQL alone cannot (run after it, in the same transaction). */
  convert?: (db: Db) => void;
  /** A convert that takes long on a big file says so before it starts: what it moves. */
  slowConvert?: string;
}

export const migrations: readonly Migration[] = [
  initial,
  workloadMode,
  fingerprint,
  sweeps,
  compare,
  reparse,
  profiles,
  outputDropped,
  runReplacements,
  stepChoices,
  runCheckout,
  mlflow,
  textGenerations,
  processIdentity,
  typedCommand,
  runKnobs,
  tunes,
  sampleBlocks,
  blockDataApart,
  recordingState,
  blockProgressions,
  sweepEndedNote,
];
export const SCHEMA_VERSION = migrations.length;
