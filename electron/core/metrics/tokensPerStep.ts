// A training script's own statement of how many tokens one step holds, read from its output.
import { parseNumber } from './text/numbers.js';

/*
 * Scripts that know their tokens per step often print it, or print the two numbers it is made of:
 *   nanoGPT:   `tokens per iteration will be: 491,520`
 *   Megatron:  `  global_batch_size ............ 8` and `  seq_length ............ 1024` (its arguments)
 *   others:    `global batch size: 512`, `sequence length = 2048`, `max_seq_length: 128`
 * A statement of tokens per step wins; otherwise a global batch size and a sequence length, both
 * stated, give their product. A per-device batch size alone says nothing (the world size is unknown).
 */

/** Statements are printed with the setup, before training: only this many first lines are read. */
export const TOKENS_PER_STEP_LINES = 5000;

const TOKENS_PER_STEP = /\btokens? per (?:iter(?:ation)?|step|batch|update)\b(?: will be)?\s*(?:[:=]|\.{2,}|is)?\s*([\d,]+)(?![\d.])/i;
const GLOBAL_BATCH = /\bglobal[ _-]?batch[ _-]?size\b\s*(?:[:=]|\.{2,}|is)?\s*(\d+)(?![\d.])/i;
const SEQUENCE_LENGTH =
  /\b(?:seq(?:uence)?[ _-]?len(?:gth)?|max[ _-]seq(?:uence)?[ _-]len(?:gth)?|context[ _-]length)\b\s*(?:[:=]|\.{2,}|is)?\s*(\d+)(?![\d.])/i;

export class TokensPerStepReader {
  private linesRead = 0;
  private stated: number | null = null;
  private globalBatch: number | null = null;
  private sequenceLength: number | null = null;

  /** Reads one line; true when the value (`value`) became known or changed with it. */
  read(line: string): boolean {
    if (this.stated !== null || this.linesRead >= TOKENS_PER_STEP_LINES) return false;
    this.linesRead++;
    // Cheap tests first: these regexes run only on lines that name what they look for.
    const lower = line.length < 400 ? line.toLowerCase() : '';
    if (lower.includes('per ') && lower.includes('token')) {
      const match = TOKENS_PER_STEP.exec(line);
      const value = match === null ? null : parseNumber(match[1] ?? '');
      if (value !== null && value > 0) {
        this.stated = value;
        return true;
      }
    }
    const before = this.value;
    if (lower.includes('batch')) this.globalBatch = positive(GLOBAL_BATCH.exec(line)?.[1]) ?? this.globalBatch;
    if (lower.includes('len')) this.sequenceLength = positive(SEQUENCE_LENGTH.exec(line)?.[1]) ?? this.sequenceLength;
    return this.value !== before;
  }

  /** Tokens in one step as the script states it, or null. */
  get value(): number | null {
    if (this.stated !== null) return this.stated;
    return this.globalBatch !== null && this.sequenceLength !== null ? this.globalBatch * this.sequenceLength : null;
  }
}

function positive(text: string | undefined): number | null {
  if (text === undefined) return null;
  const value = Number(text);
  return Number.isFinite(value) && value > 0 ? value : null;
}
