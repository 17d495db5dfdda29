// Writes a run's whole stored log to a stream, raw or as plain text, without holding it all in memory.
import { StringDecoder } from 'node:string_decoder';
import type { Writable } from 'node:stream';
import type { LogFormat } from '../../shared/api.js';
import type { RunStore } from '../store/runStore.js';
import { toPlainText } from '../../shared/ansi.js';

/** Plain text a line at a time: a line is only cleaned once it is complete, so no escape or `\r` is cut. */
export class PlainTextStream {
  private readonly decoder = new StringDecoder('utf8');
  private carry = '';

  push(data: Buffer): string {
    const text = this.carry + this.decoder.write(data);
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      this.carry = text;
      return '';
    }
    this.carry = text.slice(end + 1);
    return toPlainText(text.slice(0, end + 1));
  }

  end(): string {
    const rest = this.carry + this.decoder.end();
    this.carry = '';
    return rest ? toPlainText(rest) : '';
  }
}

export async function writeRunLog(runs: RunStore, id: number, format: LogFormat, sink: Writable): Promise<void> {
  const plain = format === 'plain' ? new PlainTextStream() : null;
  const write = async (data: Buffer | string) => {
    if (data.length === 0) return;
    if (!sink.write(data)) await new Promise<void>((resolve) => sink.once('drain', resolve));
  };
  for (const chunk of runs.iterateOutput(id)) await write(plain ? plain.push(chunk.data) : chunk.data);
  if (plain) await write(plain.end());
}

/** A file name for a downloaded log: `tuning-bench-run-12.log` or `...-12.raw.log`. */
export function logFileName(id: number, format: LogFormat): string {
  return `tuning-bench-run-${id}${format === 'raw' ? '.raw' : ''}.log`;
}
