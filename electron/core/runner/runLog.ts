// Writes a run's whole stored log to a stream, raw or as plain text, and its metric values as a table or JSON: read a
// page at a time, with the stream's backpressure, in short slices of the engine's thread.
import { StringDecoder } from 'node:string_decoder';
import type { Writable } from 'node:stream';
import type { LogFormat } from '../../shared/api.js';
import type { RunStore } from '../store/runStore.js';
import type { MetricStore } from '../store/metricStore.js';
import { toPoint } from '../metrics/runMetrics.js';
import { stripAnsi, toPlainText } from '../../shared/ansi.js';
import { MAX_LINE_CHARS } from '../metrics/text/lineSplitter.js';
import { TimeSlice } from '../system/timeSlice.js';

/** An escape sequence is never cut: a piece of a long line keeps this much of its end back if an ESC lies in it. */
const ESCAPE_TAIL_CHARS = 256;
const ESC = '\u001b';

/**
 * Plain text a line at a time: a line is only cleaned once it is complete, so no escape or `\r` is cut.
 * A line longer than MAX_LINE_CHARS (the parsers' own limit) is written out in pieces as it comes, so memory
 * and time stay linear in the log; of such a line, a `\r` redraw that comes after a piece was written cannot
 * take that piece back.
 */
export class PlainTextStream {
  private readonly decoder = new StringDecoder('utf8');
  /** The line under way, raw: never longer than about MAX_LINE_CHARS. */
  private carry = '';

  push(data: Buffer): string {
    const text = this.decoder.write(data);
    // Only the new text is searched: a long line's carry is never scanned again.
    const end = text.lastIndexOf('\n');
    if (end < 0) return this.hold(text);
    const lines = toPlainText(this.carry + text.slice(0, end + 1));
    this.carry = '';
    return lines + this.hold(text.slice(end + 1));
  }

  end(): string {
    const rest = this.carry + this.decoder.end();
    this.carry = '';
    return rest ? toPlainText(rest) : '';
  }

  /** Keeps text of the line under way; past the limit, gives back what can be written already. */
  private hold(text: string): string {
    this.carry += text;
    if (this.carry.length <= MAX_LINE_CHARS) return '';
    this.carry = fromLastShownRedraw(this.carry);
    if (this.carry.length <= MAX_LINE_CHARS) return '';
    const lastEscape = this.carry.lastIndexOf(ESC);
    const cut = lastEscape >= this.carry.length - ESCAPE_TAIL_CHARS ? lastEscape : this.carry.length;
    const piece = stripAnsi(this.carry.slice(0, cut));
    this.carry = this.carry.slice(cut);
    return piece;
  }
}

/**
 * A line's text from the redraw a terminal would finally show, as far as it is known: the part from the
 * start of the last `\r` segment that is not empty (what toPlainText keeps of a line, whatever follows).
 */
function fromLastShownRedraw(line: string): string {
  let end = line.length;
  for (;;) {
    const cr = line.lastIndexOf('\r', end - 1);
    if (cr < 0) return line;
    if (cr < end - 1) return line.slice(cr + 1);
    end = cr;
  }
}

/**
 * The output stored when the call is made, to `sink`, in order. Waits for the sink to drain (a slow client), and
 * stops when it closes early (a cancelled download) or fails (the failure is thrown). The store is read a page
 * at a time and nothing holds it between pages, so a download that waits for minutes costs the engine nothing.
 */
export async function writeRunLog(runs: RunStore, id: number, format: LogFormat, sink: Writable): Promise<void> {
  const plain = format === 'plain' ? new PlainTextStream() : null;
  const out = new PacedSink(sink);
  const slice = new TimeSlice();
  try {
    for (const chunk of runs.storedOutput(id)) {
      if (!(await out.write(plain ? plain.push(chunk.data) : chunk.data))) return;
      await slice.pause();
    }
    if (plain) await out.write(plain.end());
  } finally {
    out.dispose();
  }
}

/** Metric values a page: a few MB of text at most between waits for the sink. */
const METRICS_PAGE = 20_000;

/**
 * A run's metric values as the CLI's `metrics` prints them, to `sink`: a tab-separated table (`STEP T_S NAME VALUE`,
 * `-` for no step) or the JSON array `--json` gives (non-finite values as "nan", "inf", "-inf"). Streamed a page of
 * samples at a time with the sink's backpressure: a run of 30 million values took gigabytes as one array. Returns
 * how many were written (none: nothing is written, the caller says so).
 */
export async function writeRunMetrics(metrics: MetricStore, id: number, format: 'table' | 'json', sink: Writable): Promise<number> {
  const out = new PacedSink(sink);
  const slice = new TimeSlice();
  let written = 0;
  try {
    for (const page of metrics.pagesInOrder(id, METRICS_PAGE)) {
      const lines = page.map((sample, i) => {
        const point = toPoint(sample);
        if (format === 'table') return `${point.step ?? '-'}\t${(point.tMs / 1000).toFixed(3)}\t${point.name}\t${point.value}\n`;
        // As JSON.stringify(array, null, 2) lays out the whole array: each object two spaces in.
        const item = JSON.stringify(
          { step: point.step, t: point.tMs / 1000, name: point.name, value: point.value, kind: point.kind, source: point.source },
          null,
          2,
        ).replaceAll('\n', '\n  ');
        return `${written + i === 0 ? '' : ',\n'}  ${item}`;
      });
      const head = written > 0 ? '' : format === 'table' ? 'STEP\tT_S\tNAME\tVALUE\n' : '[\n';
      written += page.length;
      if (!(await out.write(head + lines.join('')))) return written;
      await slice.pause();
    }
    if (written > 0 && format === 'json') await out.write('\n]\n');
    return written;
  } finally {
    out.dispose();
  }
}

/**
 * A sink written at its reader's pace: each write waits for it to drain, and says false once it has closed
 * early (a cancelled download, a pager that quit); a failure is thrown. One owner of this for every stream
 * the engine writes a run to.
 */
class PacedSink {
  private ended: boolean;
  private error: Error | null = null;
  private settle: () => void = () => undefined;
  private readonly gone: Promise<void>;
  private readonly onClose = (): void => {
    this.ended = true;
    this.settle();
  };
  private readonly onError = (error: Error): void => {
    this.ended = true;
    this.error = error;
    this.settle();
  };

  constructor(private readonly sink: Writable) {
    this.ended = sink.destroyed || sink.writableEnded;
    this.gone = new Promise<void>((resolve) => (this.settle = resolve));
    sink.once('close', this.onClose);
    sink.once('error', this.onError);
    if (this.ended) this.settle();
  }

  /** Writes `data` and waits for room; false once the sink has gone (nothing more is written). */
  async write(data: Buffer | string): Promise<boolean> {
    // Destroyed is read now, not only heard as an event: a reader that left is not written a further page.
    if (this.ended || this.sink.destroyed) return false;
    if (data.length > 0 && !this.sink.write(data)) await Promise.race([new Promise<void>((resolve) => this.sink.once('drain', resolve)), this.gone]);
    if (this.error) throw this.error;
    return !this.ended;
  }

  dispose(): void {
    this.sink.off('close', this.onClose);
    this.sink.off('error', this.onError);
  }
}

/** A file name for a downloaded log: `tuning-bench-run-12.log` or `...-12.raw.log`. */
export function logFileName(id: number, format: LogFormat): string {
  return `tuning-bench-run-${id}${format === 'raw' ? '.raw' : ''}.log`;
}
