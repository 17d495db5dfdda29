// The contract every training-log line parser follows, and what it produces.

/** What printed a record: a training step, an evaluation, a progress bar's state, or end-of-run totals. */
export type MetricRecordKind = 'train' | 'eval' | 'progress' | 'summary';

export interface MetricRecord {
  /**
   * The training step the record belongs to, as the log counts it. Where a log counts batches
   * within epochs only, `epoch × batches + batch` so it still grows through the run. Null when
   * the line carries none (HF Trainer's dicts; most evaluation lines).
   */
  step: number | null;
  kind: MetricRecordKind;
  /** Canonical names (see names.ts) to values; NaN and ±Infinity are kept as printed. */
  values: Record<string, number>;
  /**
   * The time stamped in the line's prefix (see linePrefix.ts), in milliseconds: since 1970 UTC
   * when a date was printed (UTC where no zone was), since midnight for a time of day alone.
   * Only differences between a log's stamps mean anything. Absent when the line had none.
   */
  wallTimeMs?: number;
}

/**
 * One log format. Parsers may keep a little state between lines (the current epoch, an open
 * multi-line dict), so each log gets fresh instances from the factories in registry.ts.
 *
 * Speed matters: parsers see every line of logs of 100 MB and more. Their patterns are ASCII and
 * carry no `u` flag (V8 runs non-unicode regexes about twice as fast), `matches` tests only how a
 * line begins or a substring or two, and values are read without regexes where a line has many.
 */
export interface LineParser {
  name: string;
  /** Cheap test whether this line is this format; `parse` is called only when it says yes. */
  matches(line: string): boolean;
  /** The line's record, or null when it carries no metric after all. Never throws. */
  parse(line: string): MetricRecord | null;
  /**
   * True for parsers of tqdm-style bars. A line that holds a bar state is offered only to them:
   * bars are most lines of a long log, and no other format prints a `[elapsed<remaining, rate]` bracket.
   */
  readsBars?: boolean;
  /**
   * Values this format prints where it has no measurement (a sentinel such as `-1`): true drops
   * the value from the record, as if it had not been printed. SHARED_PLACEHOLDERS (values.ts)
   * apply to every parser besides.
   */
  isPlaceholder?(name: string, value: number): boolean;
  /**
   * True where `parse` changes none of the parser's state when it returns null: a line it makes no record of
   * cannot change how it reads later lines. Line templates (lineTemplates.ts) skip such calls on lines whose
   * shape they know; a parser that does not say so is assumed to change state (an epoch header, an open dict).
   */
  keepsStateOnNull?: boolean;
  /** The same for the lines it returns a record of (a parser that remembers the last step does not). */
  keepsStateOnRecord?: boolean;
  /**
   * What the parser remembers, for a parser whose state changes only on some lines it makes no record of (an
   * epoch header): a call that leaves it the same (Object.is) kept the state, whatever the flags above say.
   */
  stateOf?(): unknown;
  /** Takes on what another instance's stateOf gave: line templates try their lines on fresh parsers in the run's state. */
  adoptState?(state: unknown): void;
}

export type LineParserFactory = () => LineParser;
