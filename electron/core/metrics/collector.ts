// One run's output into metric samples: lines (every progress redraw too), the workload's regex, then the parsers.
import type { LineParser, MetricRecord } from './parsers/types.js';
import type { MetricSample } from './samples.js';
import { TerminalLineSplitter, type Line } from './text/lineSplitter.js';
import { compileUserRegex, userRegexSamples, type CompiledUserRegex } from './userRegex.js';

export interface CollectorOptions {
  /** The workload's own pattern; it wins over the built-in parsers on the lines it matches. */
  metricRegex: string;
  /** Fresh parser instances for this run (they keep per-log state), most specific first. */
  parsers?: LineParser[];
}

let defaultParsers: () => LineParser[] = () => [];

/** Set once by the parsers' registry, so this module does not depend on every parser. */
export function setDefaultParsers(factory: () => LineParser[]): void {
  defaultParsers = factory;
}

export class MetricsCollector {
  private readonly splitter = new TerminalLineSplitter();
  private readonly userRegex: CompiledUserRegex | null;
  private readonly parsers: LineParser[];
  /** The parser that read the last line; tried first on the next, since a log keeps to its format. */
  private lastParser: LineParser | null = null;

  constructor(options: CollectorOptions) {
    this.userRegex = options.metricRegex ? safeCompile(options.metricRegex) : null;
    this.parsers = options.parsers ?? defaultParsers();
  }

  push(text: string, tMs: number): MetricSample[] {
    return this.collect(this.splitter.push(text, tMs));
  }

  end(tMs: number): MetricSample[] {
    return this.collect(this.splitter.end(tMs));
  }

  private collect(lines: readonly Line[]): MetricSample[] {
    const samples: MetricSample[] = [];
    for (const line of lines) {
      if (this.userRegex) {
        const own = userRegexSamples(this.userRegex, line.text, line.tMs);
        if (own.length > 0) {
          samples.push(...own);
          continue;
        }
      }
      const record = this.parse(line.text);
      if (record) pushRecord(samples, record, line.tMs);
    }
    return samples;
  }

  private parse(text: string): MetricRecord | null {
    if (this.lastParser?.matches(text)) {
      const record = this.lastParser.parse(text);
      if (record) return record;
    }
    for (const parser of this.parsers) {
      if (parser === this.lastParser || !parser.matches(text)) continue;
      const record = parser.parse(text);
      if (record) {
        this.lastParser = parser;
        return record;
      }
    }
    return null;
  }
}

function pushRecord(samples: MetricSample[], record: MetricRecord, tMs: number): void {
  for (const [name, value] of Object.entries(record.values)) {
    samples.push({ step: record.step, tMs, name, value, source: 'text', kind: record.kind });
  }
}

/** A pattern that no longer compiles (saved by an older version) is ignored rather than failing the run. */
function safeCompile(pattern: string): CompiledUserRegex | null {
  try {
    return compileUserRegex(pattern);
  } catch {
    return null;
  }
}
