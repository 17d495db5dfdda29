// The data path into one run's terminal: a bounded replay, live events in seq order, gaps filled from the store.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MethodInput, MethodOutput, OutputChunk } from '../../../electron/shared/api.js';
import { keepLastLines, OutputFeed } from '../../../renderer/src/terminal/outputFeed.js';

/** The engine's store as `runs.output` pages it: after a seq, or the end of it within maxBytes. */
function storeOf(chunks: OutputChunk[]) {
  const bytes = (chunk: OutputChunk) => Buffer.byteLength(chunk.data);
  return {
    chunks,
    output: async (input: MethodInput<'runs.output'>): Promise<MethodOutput<'runs.output'>> => {
      const maxBytes = input.maxBytes ?? 4 * 1024 * 1024;
      if (input.fromEnd) {
        const page: OutputChunk[] = [];
        let total = 0;
        for (let i = chunks.length - 1; i >= 0 && (page.length === 0 || total + bytes(chunks[i]!) <= maxBytes); i -= 1) {
          page.unshift(chunks[i]!);
          total += bytes(chunks[i]!);
        }
        const skippedBytes = chunks.slice(0, chunks.length - page.length).reduce((sum, chunk) => sum + bytes(chunk), 0);
        return { chunks: page, complete: false, skippedBytes, lastSeq: chunks.at(-1)?.seq ?? -1 };
      }
      const after = chunks.filter((chunk) => chunk.seq > (input.afterSeq ?? -1));
      const page: OutputChunk[] = [];
      let total = 0;
      for (const chunk of after) {
        if (page.length > 0 && total + bytes(chunk) > maxBytes) break;
        page.push(chunk);
        total += bytes(chunk);
      }
      return { chunks: page, complete: false, skippedBytes: 0, lastSeq: chunks.at(-1)?.seq ?? -1 };
    },
  };
}

const chunk = (seq: number, data: string): OutputChunk => ({ seq, tMs: seq * 10, data });

function harness(stored: OutputChunk[], reachable: () => boolean = () => true) {
  const store = storeOf(stored);
  const output: typeof store.output = async (input) => {
    if (!reachable()) throw new Error('connection lost');
    return store.output(input);
  };
  let screen = '';
  const drawn: number[] = [];
  const errors: Array<string | null> = [];
  const feed = new OutputFeed({
    runId: 1,
    maxLines: 1000,
    api: { 'runs.output': output },
    // xterm parses asynchronously and calls back once it has: so does this one.
    terminal: { write: (data, callback) => ((screen += data), setTimeout(() => callback?.(), 0)) },
    acks: { drawn: (chars) => drawn.push(chars), dispose: () => undefined },
    timestamps: false,
    onError: (message) => errors.push(message),
  });
  return { feed, screen: () => screen.replace('\x1bc', ''), drawn, errors };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.stubGlobal('requestAnimationFrame', (callback: () => void) => setTimeout(callback, 16) as unknown as number);
  vi.stubGlobal('cancelAnimationFrame', (handle: number) => clearTimeout(handle));
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('OutputFeed', () => {
  it('replays what is stored, then shows live events in order and acknowledges them once drawn', async () => {
    const h = harness([chunk(0, 'step 1\n'), chunk(1, 'step 2\n')]);
    h.feed.start();
    // Live while the replay is in flight: held, then put after it.
    h.feed.live({ runId: 1, ...chunk(2, 'step 3\n') });
    await vi.runAllTimersAsync();
    h.feed.live({ runId: 1, ...chunk(3, 'step 4\n') });
    await vi.runAllTimersAsync();
    expect(h.screen()).toBe('step 1\nstep 2\nstep 3\nstep 4\n');
    expect(h.drawn.reduce((a, b) => a + b, 0)).toBe('step 3\nstep 4\n'.length);
    h.feed.dispose();
  });

  it('fills a gap in live events from the store, in order, with nothing shown twice', async () => {
    const stored = [chunk(0, 'a\n')];
    const h = harness(stored);
    h.feed.start();
    await vi.runAllTimersAsync();
    // The engine stored 1 and 2 while it held this view's events back; 3 comes live.
    stored.push(chunk(1, 'b\n'), chunk(2, 'c\n'), chunk(3, 'd\n'));
    h.feed.live({ runId: 1, ...chunk(3, 'd\n') });
    await vi.runAllTimersAsync();
    expect(h.screen()).toBe('a\nb\nc\nd\n');
    // The live copy of 3 was a duplicate of the stored one: acknowledged all the same.
    expect(h.drawn.reduce((a, b) => a + b, 0)).toBe('d\n'.length);
    h.feed.dispose();
  });

  it('drops a live event it already showed, acknowledging it', async () => {
    const h = harness([chunk(0, 'x\n'), chunk(1, 'y\n')]);
    h.feed.start();
    await vi.runAllTimersAsync();
    h.feed.live({ runId: 1, ...chunk(1, 'y\n') });
    await vi.runAllTimersAsync();
    expect(h.screen()).toBe('x\ny\n');
    expect(h.drawn).toEqual([2]);
    h.feed.dispose();
  });

  it('says so when the store cannot be read, and clears it when it can again', async () => {
    let failing = true;
    const h = harness([chunk(0, 'a\n')], () => !failing);
    h.feed.start();
    await vi.runAllTimersAsync();
    expect(h.errors).toEqual(['connection lost']);
    failing = false;
    h.feed.catchUp();
    await vi.runAllTimersAsync();
    expect(h.errors.at(-1)).toBeNull();
    expect(h.screen()).toBe('a\n');
    h.feed.dispose();
  });
});

describe('keepLastLines', () => {
  it('keeps the last lines and counts the bytes left out in UTF-8', () => {
    const chunks = [chunk(0, 'é1\nline 2\n'), chunk(1, 'line 3\nline 4\n')];
    const kept = keepLastLines(chunks, 2);
    expect(kept.chunks.map((c) => c.data).join('')).toBe('line 3\nline 4\n');
    expect(kept.droppedBytes).toBe(Buffer.byteLength('é1\nline 2\n'));
    expect(keepLastLines(chunks, 10)).toEqual({ chunks, droppedBytes: 0 });
  });
});
