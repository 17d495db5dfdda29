// Which parsers fit a log, judged on its first lines, and running them over lines.
import { LinePrefixReader } from './linePrefix.js';
import { GENERIC_PARSER_FACTORY, SPECIFIC_PARSER_FACTORIES } from './registry.js';
import { readBar } from './tqdm.js';
import { LineTemplates, parseLineTracked, type ParsedLine } from './lineTemplates.js';
import type { LineParser, MetricRecord } from './types.js';

/** Lines read to detect the format: enough for setup output and the first log intervals, cheap on a 100 MB log. */
export const DETECTION_LINES = 2000;

/**
 * Fresh parsers for a log: the specific parsers that turned at least one of its first
 * DETECTION_LINES lines into a record (most specific first, see registry.ts), then the generic
 * fallback. Scoring runs on throw-away instances, so the returned parsers start with clean state.
 */
export function detectParsers(lines: readonly string[]): LineParser[] {
  const sample = lines.length > DETECTION_LINES ? lines.slice(0, DETECTION_LINES) : lines;
  const detected: LineParser[] = [];
  for (const factory of SPECIFIC_PARSER_FACTORIES) {
    if (countRecords(factory(), sample) > 0) detected.push(factory());
  }
  detected.push(GENERIC_PARSER_FACTORY());
  return detected;
}

/** Fresh instances of every parser, for text whose first lines showed no known format. */
export function allParsers(): LineParser[] {
  return [...SPECIFIC_PARSER_FACTORIES.map((factory) => factory()), GENERIC_PARSER_FACTORY()];
}

function countRecords(parser: LineParser, lines: readonly string[]): number {
  let count = 0;
  const only = [parser];
  const take = (): void => {
    count++;
  };
  for (const line of lines) forEachRecord(line, only, take);
  return count;
}

/** The record of the first parser that reads the line, or null. A bar line goes only to the bar parsers. */
export function parseLine(line: string, parsers: readonly LineParser[]): MetricRecord | null {
  return parseLineTracked(line, parsers, parsedScratch).record;
}

const parsedScratch: ParsedLine = { record: null, keptState: true, parser: null };

/**
 * Records for each line, from the first parser that reads it. A tqdm bar with other output glued
 * after its closing bracket (stdout printed while the bar's line was open, as HF Trainer's first
 * loss dict is) is read as two lines, the bar and what follows it.
 */
export function* parseLines(lines: Iterable<string>, parsers: readonly LineParser[]): Generator<MetricRecord> {
  const found: MetricRecord[] = [];
  const take = (record: MetricRecord): void => {
    found.push(record);
  };
  for (const line of lines) {
    forEachRecord(line, parsers, take);
    for (const record of found) yield record;
    found.length = 0;
  }
}

/**
 * Where output glued after a bar's closing bracket starts, or -1 when the line is not a bar with
 * something after it (a number, not a pair of strings: this runs on every line).
 */
export function gluedTailStart(line: string): number {
  const bar = readBar(line);
  if (bar === null || bar.end >= line.length) return -1;
  for (let at = bar.end; at < line.length; at++) if (line.charCodeAt(at) > 0x20) return bar.end;
  return -1;
}

/** The line, or the bar and the text glued after it. */
export function splitGluedBar(line: string): string[] {
  const tail = gluedTailStart(line);
  return tail === -1 ? [line] : [line.slice(0, tail), line.slice(tail)];
}

/** One reader for every line: it keeps no state between lines, only the last line's stamp. */
const prefixes = new LinePrefixReader();

/**
 * Bar states read from one line at most: a log saved without carriage returns (nohup, CI, log
 * shippers) holds a whole bar's states in a line, and what was printed after the last (HF Trainer's
 * loss dict) is what matters. 64 KiB lines (the splitter's cut) hold about 1,000 states.
 */
const MAX_GLUED_BARS = 2048;

/** The line's own text, after a logger's or launcher's prefix (see linePrefix.ts). */
export function stripLinePrefix(line: string): string {
  const start = prefixes.read(line);
  return start === 0 ? line : line.slice(start);
}

/**
 * Each record the line holds, after its prefix: one, or one per bar state and one for the text
 * glued after the last bar, or none. A record of a line that has a stamp carries it as `wallTimeMs`.
 */
export function forEachRecord(line: string, parsers: readonly LineParser[] | LineTemplates, take: (record: MetricRecord) => void): void {
  const start = prefixes.read(line);
  const wallTimeMs = prefixes.wallTimeMs;
  let rest = start === 0 ? line : line.slice(start);
  for (let bars = 0; ; bars++) {
    const tail = bars < MAX_GLUED_BARS ? gluedTailStart(rest) : -1;
    const text = tail === -1 ? rest : rest.slice(0, tail);
    const record = parsers instanceof LineTemplates ? parsers.read(text) : parseLine(text, parsers);
    if (record !== null) {
      if (wallTimeMs !== null) record.wallTimeMs = wallTimeMs;
      take(record);
    }
    if (tail === -1) return;
    rest = rest.slice(tail);
  }
}
