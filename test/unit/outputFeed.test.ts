// One run's terminal feed (renderer/src/outputFeed.ts) against a pretend store, terminal and animation frames: what
// the terminal ends up showing, in what order, and what is acknowledged to the engine, through replays, gaps,
// failures and reconnects.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiClient, OutputChunk } from '../../electron/shared/api.js';
import { CATCH_UP_BUDGET_BYTES, keepLastLines, OutputFeed, REPLAY_BYTES } from '../../renderer/src/runs/terminal/outputFeed.js';
import type { RunOutputAcks } from '../../renderer/src/runs/terminal/outputAcks.js';
import { formatTimestampPrefix } from '../../renderer/src/runs/terminal/timestampPrefixer.js';

type OutputInput = Parameters<ApiClient['runs.output']>[0];
type OutputPage = Awaited<ReturnType<ApiClient['runs.output']>>;

const RUN_ID = 7;
const FULL_RESET = '\x1bc';

/** The engine's store of one run, answering `runs.output` as RunStore.outputPage does (ASCII here: a char is a byte). */
class FakeStore {
  chunks: OutputChunk[] = [];
  readonly requests: OutputInput[] = [];
  /** When set, the next requests fail with it. */
  failWith: Error | null = null;
  /** Requests held until the test lets them go, to act while one is in flight. */
  private held: Array<() => void> | null = null;

  add(...data: string[]): void {
    for (const text of data) this.chunks.push({ seq: this.chunks.length, tMs: this.chunks.length * 10, data: text });
  }

  hold(): void {
    this.held = [];
  }

  release(): void {
    const waiting = this.held ?? [];
    this.held = null;
    for (const answer of waiting) answer();
  }

  output = (input: OutputInput): Promise<OutputPage> => {
    this.requests.push(input);
    const answer = () => {
      if (this.failWith) throw this.failWith;
      return this.page(input);
    };
    if (!this.held) return Promise.resolve().then(answer);
    const held = this.held;
    return new Promise<OutputPage>((resolve, reject) => {
      held.push(() => {
        try {
          resolve(answer());
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
  };

  private page(input: OutputInput): OutputPage {
    const maxBytes = input.maxBytes ?? REPLAY_BYTES;
    const source = input.fromEnd ? [...this.chunks].reverse() : this.chunks.filter((chunk) => chunk.seq > (input.afterSeq ?? -1));
    const picked: OutputChunk[] = [];
    let bytes = 0;
    for (const chunk of source) {
      if (picked.length > 0 && bytes + chunk.data.length > maxBytes) break;
      picked.push(chunk);
      bytes += chunk.data.length;
    }
    if (input.fromEnd) picked.reverse();
    const stored = this.chunks.reduce((sum, chunk) => sum + chunk.data.length, 0);
    return { chunks: picked, complete: false, skippedBytes: input.fromEnd ? stored - bytes : 0, lastSeq: this.chunks.length - 1 };
  }
}

/** xterm's side: writes are parsed (and their callbacks called) only when the test says so, as a busy page would. */
class FakeTerminal {
  readonly writes: string[] = [];
  private readonly unparsed: Array<() => void> = [];

  write(data: string, callback?: () => void): void {
    this.writes.push(data);
    if (callback) this.unparsed.push(callback);
  }

  parse(): void {
    for (const callback of this.unparsed.splice(0)) callback();
  }

  get text(): string {
    return this.writes.join('');
  }
}

class RecordingAcks implements RunOutputAcks {
  drawnChars = 0;
  drawn(chars: number): void {
    this.drawnChars += chars;
  }
  dispose(): void {}
}

let frames: Array<() => void> = [];

/** Runs the animation frames asked for so far: the feed writes at most once a frame. */
function nextFrame(): void {
  for (const frame of frames.splice(0)) frame();
}

/** Lets the pretend store's answers (promises) settle, and what the feed does with them. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
}

function live(seq: number, data: string, tMs = seq * 10) {
  return { runId: RUN_ID, seq, tMs, data };
}

function makeFeed(options: { maxLines?: number; timestamps?: boolean } = {}) {
  const store = new FakeStore();
  const terminal = new FakeTerminal();
  const acks = new RecordingAcks();
  const errors: Array<string | null> = [];
  const feed = new OutputFeed({
    runId: RUN_ID,
    maxLines: options.maxLines ?? 1_000,
    api: { 'runs.output': store.output },
    terminal,
    acks,
    timestamps: options.timestamps ?? false,
    onError: (message) => errors.push(message),
  });
  return { store, terminal, acks, errors, feed };
}

beforeEach(() => {
  frames = [];
  vi.stubGlobal('requestAnimationFrame', (callback: () => void) => {
    frames.push(callback);
    return frames.length;
  });
  vi.stubGlobal('cancelAnimationFrame', () => undefined);
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('keepLastLines', () => {
  const chunk = (seq: number, data: string): OutputChunk => ({ seq, tMs: seq, data });

  it('keeps everything that fits', () => {
    expect(keepLastLines([chunk(0, 'a\nb\n')], 5)).toEqual({ chunks: [chunk(0, 'a\nb\n')], droppedBytes: 0 });
  });

  it('keeps the last lines across chunks and counts what it drops in UTF-8 bytes', () => {
    const kept = keepLastLines([chunk(0, 'é\n'), chunk(1, 'one\ntwo\n'), chunk(2, 'three\n')], 2);
    expect(kept.chunks).toEqual([chunk(1, 'two\n'), chunk(2, 'three\n')]);
    // 'é' is two bytes, its line break one, 'one\n' four.
    expect(kept.droppedBytes).toBe(3 + 4);
  });
});

describe('OutputFeed', () => {
  it('replays the stored output after a full reset, in one write on the next frame', async () => {
    const { store, terminal, feed, errors } = makeFeed();
    store.add('one\n', 'two\n');
    feed.start();
    await settle();
    expect(terminal.writes).toEqual([]);
    nextFrame();
    expect(terminal.writes).toEqual([`${FULL_RESET}one\ntwo\n`]);
    expect(store.requests).toEqual([{ id: RUN_ID, fromEnd: true, maxBytes: REPLAY_BYTES }]);
    expect(errors).toEqual([null]);
  });

  it('shows live output in seq order and acknowledges it when the terminal has parsed it, not on receipt', async () => {
    const { store, terminal, acks, feed } = makeFeed();
    store.add('a\n');
    feed.start();
    await settle();
    nextFrame();
    feed.live(live(1, 'b\n'));
    feed.live(live(2, 'c\n'));
    nextFrame();
    expect(terminal.text).toBe(`${FULL_RESET}a\nb\nc\n`);
    expect(terminal.writes).toHaveLength(2);
    expect(acks.drawnChars).toBe(0);
    terminal.parse();
    expect(acks.drawnChars).toBe(4);
  });

  it('holds live output that comes during the replay, drops what the replay already showed, and keeps the order', async () => {
    const { store, terminal, acks, feed } = makeFeed();
    store.add('a\n', 'b\n');
    store.hold();
    feed.start();
    // Sent while the replay was being read: seq 1 is in it too; 3 came before 2 reached this view's listener.
    feed.live(live(1, 'b\n'));
    feed.live(live(3, 'd\n'));
    feed.live(live(2, 'c\n'));
    store.release();
    await settle();
    nextFrame();
    expect(terminal.text).toBe(`${FULL_RESET}a\nb\nc\nd\n`);
    // The duplicate is acknowledged at once, the others once drawn: the engine's count goes back to zero.
    expect(acks.drawnChars).toBe(2);
    terminal.parse();
    expect(acks.drawnChars).toBe(6);
  });

  it('fills a gap in seq from the store before showing what came after it', async () => {
    const { store, terminal, feed } = makeFeed();
    store.add('a\n');
    feed.start();
    await settle();
    nextFrame();
    // The engine held seq 1 and 2 back from this view; the store has them.
    store.add('b\n', 'c\n', 'd\n');
    feed.live(live(3, 'd\n'));
    await settle();
    nextFrame();
    expect(terminal.text).toBe(`${FULL_RESET}a\nb\nc\nd\n`);
  });

  it('after a reconnect, catches up on what was stored meanwhile and ignores late duplicates', async () => {
    const { store, terminal, acks, feed } = makeFeed();
    store.add('a\n');
    feed.start();
    await settle();
    nextFrame();
    store.add('b\n', 'c\n');
    feed.catchUp();
    await settle();
    nextFrame();
    feed.live(live(2, 'c\n'));
    feed.live(live(3, 'd\n'));
    nextFrame();
    expect(terminal.text).toBe(`${FULL_RESET}a\nb\nc\nd\n`);
    terminal.parse();
    expect(acks.drawnChars).toBe(4);
  });

  it('jumps to the end with a notice when more was missed than the catch-up budget', async () => {
    const { store, terminal, feed } = makeFeed();
    store.add('start\n');
    feed.start();
    await settle();
    nextFrame();
    const line = `${'x'.repeat(1023)}\n`;
    const missedChunks = Math.ceil((CATCH_UP_BUDGET_BYTES * 2) / (64 * 1024));
    for (let i = 0; i < missedChunks; i += 1) store.add(line.repeat(64));
    store.add('the end\n');
    feed.live(live(store.chunks.length - 1, 'the end\n'));
    await settle();
    nextFrame();
    const shown = terminal.text;
    expect(shown).toMatch(/\[tuning-bench: [\d.]+ MiB of output not shown live to keep the view responsive; it is all in the stored log\]/u);
    expect(shown.endsWith('the end\n')).toBe(true);
    // Not everything: the tail only.
    expect(shown.length).toBeLessThan(CATCH_UP_BUDGET_BYTES);
  });

  it('says what a long replay leaves out, and shows the last lines only', async () => {
    const { store, terminal, feed } = makeFeed({ maxLines: 2 });
    store.add('one\ntwo\n', 'three\nfour\n');
    feed.start();
    await settle();
    nextFrame();
    expect(terminal.text).toBe(
      `${FULL_RESET}\x1b[0;2m[tuning-bench: the first 8 B are not shown here; download the log for all of it]\x1b[0m\r\nthree\nfour\n`,
    );
  });

  it('reports a failed fetch, still shows the live output it held, and clears the error once a fetch works', async () => {
    const { store, terminal, errors, feed } = makeFeed();
    store.failWith = new Error('engine unreachable');
    store.hold();
    feed.start();
    feed.live(live(0, 'a\n'));
    store.release();
    await settle();
    nextFrame();
    expect(errors).toEqual(['engine unreachable']);
    expect(terminal.text).toBe(`${FULL_RESET}a\n`);
    store.failWith = null;
    store.add('a\n', 'b\n');
    feed.catchUp();
    await settle();
    nextFrame();
    expect(errors).toEqual(['engine unreachable', null]);
    expect(terminal.text).toBe(`${FULL_RESET}a\nb\n`);
  });

  it('stops chasing a gap the store cannot fill, and shows what came after it', async () => {
    const { store, terminal, feed } = makeFeed();
    store.add('a\n');
    feed.start();
    await settle();
    nextFrame();
    const before = store.requests.length;
    // Seq 1 never reaches the store (as if lost): the feed looks a few times, then accepts the gap.
    feed.live(live(2, 'c\n'));
    await settle();
    nextFrame();
    expect(terminal.text).toBe(`${FULL_RESET}a\nc\n`);
    const looks = store.requests.length - before;
    expect(looks).toBeGreaterThanOrEqual(1);
    expect(looks).toBeLessThanOrEqual(3);
  });

  it('prefixes each line with its time since the start in the timestamps view', async () => {
    const { store, terminal, feed } = makeFeed({ timestamps: true });
    store.add('a\n');
    feed.start();
    await settle();
    feed.live(live(1, 'b\n', 1_500));
    nextFrame();
    expect(terminal.text).toBe(`${FULL_RESET}${formatTimestampPrefix(0)}a\n${formatTimestampPrefix(1_500)}b\n`);
  });

  it('writes nothing once disposed, not even what a fetch in flight brings', async () => {
    const { store, terminal, errors, feed } = makeFeed();
    store.add('a\n');
    store.hold();
    feed.start();
    feed.dispose();
    store.release();
    await settle();
    nextFrame();
    feed.live(live(1, 'b\n'));
    nextFrame();
    expect(terminal.writes).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('looks in the store once output goes quiet after the engine may have held some back', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { store, terminal, feed } = makeFeed();
    feed.start();
    await settle();
    nextFrame();
    // More than half the engine's high watermark received before any of it was drawn: the engine may be holding
    // back later output, and with no later event nothing else would reveal the gap.
    const big = 'y'.repeat(30_000);
    store.add(big, big);
    feed.live(live(0, big));
    feed.live(live(1, big));
    nextFrame();
    terminal.parse();
    store.add('held back by the engine\n');
    const before = store.requests.length;
    vi.advanceTimersByTime(999);
    expect(store.requests.length).toBe(before);
    vi.advanceTimersByTime(1);
    await settle();
    nextFrame();
    expect(store.requests.length).toBe(before + 1);
    expect(terminal.text.endsWith('held back by the engine\n')).toBe(true);
  });
});
