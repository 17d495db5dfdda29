// Training log text into metric records: split into lines, detect the format, parse; streaming or all at once.
import { TerminalLineSplitter } from '../text/lineSplitter.js';
import { DETECTION_LINES, allParsers, detectParsers, forEachRecord } from './detect.js';
import type { LineParser, MetricRecord } from './types.js';

export interface ParsedLog {
  /** The most specific format detected (`hf-trainer`, `nanogpt`, ...); null when its first lines showed none. */
  framework: string | null;
  /** `line` is the 1-based index of the record's line among the splitter's lines (each bar state is a line). */
  records: Array<MetricRecord & { line: number }>;
}

/** Receives each record with its line number (as in ParsedLog) and the time its line arrived. */
export type RecordSink = (record: MetricRecord, line: number, tMs: number) => void;

/** Text goes to the splitter in pieces of this many characters (a few pty reads), so lines die young rather than pile up. */
const FEED_CHARS = 1 << 16;

/**
 * How long a live run's first lines are held for detection, in stream time: a slow run may take
 * minutes to print DETECTION_LINES lines, and its first metrics should not wait that long.
 */
export const DETECTION_HOLD_MS = 5000;

/**
 * A log as it streams in (a live run's output) or as a whole (`parseLogText`). The first lines
 * are held until the format is known (DETECTION_LINES of them, or DETECTION_HOLD_MS of stream
 * time after the first, or the end), then parsed; later lines are parsed as they complete. When
 * the first lines show no known format (a long setup before training starts), every parser is
 * offered each line, most specific first.
 */
export class LogTextParser {
  private readonly splitter = new TerminalLineSplitter();
  private parsers: LineParser[] | null = null;
  private held: Array<{ text: string; tMs: number }> = [];
  private lineNumber = 0;
  /** The line being parsed and its time, for `emit`. */
  private currentLine = 0;
  private currentTMs = 0;
  /** The detected format, once known. */
  framework: string | null = null;

  constructor(private readonly sink: RecordSink) {}

  push(text: string, tMs: number): void {
    for (const line of this.splitter.push(text, tMs)) this.take(line.text, line.tMs);
  }

  /** The stream ended: the held partial line is parsed and, for a short log, detection runs on what there is. */
  end(tMs: number): void {
    for (const line of this.splitter.end(tMs)) this.take(line.text, line.tMs);
    if (this.parsers === null) this.detect();
  }

  private take(text: string, tMs: number): void {
    if (this.parsers !== null) {
      this.parse(text, ++this.lineNumber, tMs);
      return;
    }
    this.held.push({ text, tMs });
    const heldSinceMs = this.held[0]?.tMs ?? tMs;
    if (this.held.length >= DETECTION_LINES || tMs - heldSinceMs >= DETECTION_HOLD_MS) this.detect();
  }

  private detect(): void {
    const detected = detectParsers(this.held.map((line) => line.text));
    const specific = detected.length > 1 ? detected[0] : undefined;
    this.framework = specific?.name ?? null;
    this.parsers = specific === undefined ? allParsers() : detected;
    const held = this.held;
    this.held = [];
    for (const line of held) this.parse(line.text, ++this.lineNumber, line.tMs);
  }

  private parse(text: string, line: number, tMs: number): void {
    this.currentLine = line;
    this.currentTMs = tMs;
    forEachRecord(text, this.parsers ?? [], this.emit);
  }

  /** Bound once, so parsing a line allocates no closure. */
  private readonly emit = (record: MetricRecord): void => {
    this.sink(record, this.currentLine, this.currentTMs);
  };
}

/** Parses a log that is all there (an imported file, a stored run). */
export function parseLogText(text: string): ParsedLog {
  const records: ParsedLog['records'] = [];
  const parser = new LogTextParser((record, line) => {
    records.push({ ...record, line });
  });
  for (let at = 0; at < text.length; at += FEED_CHARS) parser.push(text.slice(at, at + FEED_CHARS), 0);
  parser.end(0);
  return { framework: parser.framework, records };
}
