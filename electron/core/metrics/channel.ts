// The structured channel: tails the JSON-lines file a run's helper (resources/python/tuning_bench.py) appends to.
import fs from 'node:fs';
import type { MetricKind, MetricSample } from './samples.js';

/** Keys of a channel line that are not metric values. */
const RESERVED = new Set(['t', 'step', 'event']);
/** The channel's names for what the text parsers call otherwise. */
const CANONICAL: Record<string, string> = { learning_rate: 'lr', val_loss: 'eval_loss', tok_per_sec: 'tokens_per_sec' };
/** Lines longer than this are not metrics; the rest of such a line is skipped. */
const MAX_LINE_CHARS = 64 * 1024;

function channelValue(raw: unknown): number | null {
  if (typeof raw === 'number') return raw;
  if (raw === 'nan') return Number.NaN;
  if (raw === 'inf') return Number.POSITIVE_INFINITY;
  if (raw === '-inf') return Number.NEGATIVE_INFINITY;
  if (typeof raw === 'boolean') return raw ? 1 : 0;
  return null;
}

/** One line of the channel into samples; anything that is not a JSON object of numbers is ignored. */
export function parseChannelLine(line: string, runStartedAtMs: number, fallbackTMs: number): MetricSample[] {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return [];
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return [];
  const fields = record as Record<string, unknown>;
  const step = typeof fields.step === 'number' && Number.isFinite(fields.step) ? Math.round(fields.step) : null;
  const tMs = typeof fields.t === 'number' ? Math.max(0, fields.t * 1000 - runStartedAtMs) : fallbackTMs;
  const event = typeof fields.event === 'string' ? fields.event : null;
  const kind: MetricKind = event === 'eval' ? 'eval' : event === null ? 'train' : 'summary';
  const samples: MetricSample[] = [];
  for (const [key, raw] of Object.entries(fields)) {
    if (RESERVED.has(key)) continue;
    const value = channelValue(raw);
    if (value === null) continue;
    let name = CANONICAL[key] ?? key;
    if (kind === 'eval' && (name === 'loss' || name === 'accuracy')) name = `eval_${name}`;
    samples.push({ step, tMs, name, value, source: 'channel', kind });
  }
  return samples;
}

/** Reads what was appended to the channel file since the last read; whole lines only. */
export class ChannelTailer {
  private offset = 0;
  private partial = '';

  constructor(
    readonly file: string,
    private readonly runStartedAtMs: number,
  ) {}

  read(nowTMs: number): MetricSample[] {
    let size: number;
    try {
      size = fs.statSync(this.file).size;
    } catch {
      return []; // not created yet: the program has not logged anything
    }
    if (size < this.offset) {
      // Truncated or replaced: start over from the top.
      this.offset = 0;
      this.partial = '';
    }
    if (size === this.offset) return [];
    const fd = fs.openSync(this.file, 'r');
    const buffer = Buffer.alloc(size - this.offset);
    try {
      fs.readSync(fd, buffer, 0, buffer.length, this.offset);
    } finally {
      fs.closeSync(fd);
    }
    this.offset = size;
    const text = this.partial + buffer.toString('utf8');
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    if (this.partial.length > MAX_LINE_CHARS) this.partial = '';
    return lines.flatMap((line) => (line.trim() ? parseChannelLine(line, this.runStartedAtMs, nowTMs) : []));
  }
}
