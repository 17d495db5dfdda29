// The page's early WebSocket (renderer/src/boot.ts) handed to the headless transport: what the server sent while the
// app's code loaded reaches the app's listeners, in order, before anything that came later, and nothing is lost.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EarlySocket } from '../../renderer/src/bridge/earlySocket.js';
import { createWebSocketBridge } from '../../renderer/src/bridge/wsBridge.js';
import { callKey } from '../../renderer/src/bridge/callKey.js';
import { earlyCallsFor } from '../../renderer/src/compare/compareRequests.js';
import { DEFAULT_GATE } from '../../renderer/src/shared/comparisons/compareRoute.js';

/** Just enough of the browser's WebSocket: the test plays the server through open(), push() and sent. */
class FakeSocket extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static made: FakeSocket[] = [];
  readyState = FakeSocket.CONNECTING;
  readonly sent: unknown[] = [];

  constructor(readonly url: string) {
    super();
    FakeSocket.made.push(this);
  }

  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }

  close(): void {
    this.readyState = FakeSocket.CLOSED;
    this.dispatchEvent(new Event('close'));
  }

  open(): void {
    this.readyState = FakeSocket.OPEN;
    this.dispatchEvent(new Event('open'));
  }

  push(message: unknown): void {
    this.dispatchEvent(new MessageEvent('message', { data: JSON.stringify(message) }));
  }
}

const output = (seq: number) => ({ type: 'event', event: 'runs.onOutput', payload: { runId: 1, seq, tMs: seq, data: `line ${seq}\n` } });
/** Lets queued microtasks and already-due tasks run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the early WebSocket handed to the transport', () => {
  beforeEach(() => {
    FakeSocket.made = [];
    vi.stubGlobal('WebSocket', FakeSocket);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('delivers the events that came before the app attached, in order, then the later ones, none lost', async () => {
    const socket = new FakeSocket('ws://127.0.0.1:1/api?token=t');
    const early = new EarlySocket(socket as unknown as WebSocket);
    socket.open();
    for (let seq = 0; seq < 50; seq++) socket.push(output(seq));

    const bridge = createWebSocketBridge('ws://127.0.0.1:1/api?token=t', early);
    // Registered in the same task as the hand-over, as main.tsx does with its output acknowledger.
    const seen: number[] = [];
    bridge.on('runs.onOutput', ({ seq }) => seen.push(seq));
    expect(FakeSocket.made).toHaveLength(1);
    expect(bridge.connectionState()).toBe('open');

    for (let seq = 50; seq < 60; seq++) socket.push(output(seq));
    await settle();
    for (let seq = 60; seq < 70; seq++) socket.push(output(seq));
    expect(seen).toEqual(Array.from({ length: 70 }, (_, seq) => seq));
  });

  it('sends calls made before the socket opened once it opens, and answers them', async () => {
    const socket = new FakeSocket('ws://127.0.0.1:1/api');
    const early = new EarlySocket(socket as unknown as WebSocket);
    const bridge = createWebSocketBridge('ws://127.0.0.1:1/api', early);
    expect(bridge.connectionState()).toBe('connecting');
    const answer = bridge.api['app.info']({});
    expect(socket.sent).toEqual([]);

    socket.open();
    expect(bridge.connectionState()).toBe('open');
    expect(socket.sent).toEqual([{ type: 'call', id: 1, method: 'app.info', input: {} }]);
    socket.push({ type: 'result', id: 1, result: { ok: true, value: { version: 'x' } } });
    await expect(answer).resolves.toEqual({ version: 'x' });
    expect(FakeSocket.made).toHaveLength(1);
  });

  it('still delivers what a socket that closed before the hand-over received, and connects again', async () => {
    vi.useFakeTimers();
    try {
      const socket = new FakeSocket('ws://127.0.0.1:1/api');
      const early = new EarlySocket(socket as unknown as WebSocket);
      socket.open();
      socket.push(output(0));
      socket.close();
      const bridge = createWebSocketBridge('ws://127.0.0.1:1/api', early);
      const seen: number[] = [];
      bridge.on('runs.onOutput', ({ seq }) => seen.push(seq));
      await vi.advanceTimersByTimeAsync(0);
      expect(seen).toEqual([0]);
      // A fresh socket at once, not after a backoff: the early one was never the transport's.
      expect(FakeSocket.made).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("answers the app's first call with what a call sent early got, once, and asks again after", async () => {
    const socket = new FakeSocket('ws://127.0.0.1:1/api');
    const early = new EarlySocket(socket as unknown as WebSocket);
    const calls = earlyCallsFor('#/compare?runs=3,1,3');
    early.sendEarly(calls.map((call) => ({ ...call, key: callKey(call.method, call.input) })));
    socket.open();
    expect(socket.sent).toEqual([
      { type: 'call', id: -1, method: 'compare.runs', input: { runIds: [3, 1], sweepIds: [], groupBy: 'config', gate: DEFAULT_GATE } },
      { type: 'call', id: -2, method: 'compare.series', input: { runIds: [1, 3] } },
    ]);
    // The series answer comes before the app is there; the comparison's after.
    socket.push({ type: 'result', id: -2, result: { ok: true, value: ['series'] } });
    const bridge = createWebSocketBridge('ws://127.0.0.1:1/api', early);
    const comparison = bridge.api['compare.runs']({ runIds: [3, 1], sweepIds: [], groupBy: 'config', gate: DEFAULT_GATE });
    const series = bridge.api['compare.series']({ runIds: [1, 3] });
    socket.push({ type: 'result', id: -1, result: { ok: true, value: { rows: [] } } });
    await expect(series).resolves.toEqual(['series']);
    await expect(comparison).resolves.toEqual({ rows: [] });
    // Nothing was sent twice; a second identical call (Refresh) goes out as usual.
    expect(socket.sent).toHaveLength(2);
    void bridge.api['compare.series']({ runIds: [1, 3] });
    expect(socket.sent.at(-1)).toEqual({ type: 'call', id: 1, method: 'compare.series', input: { runIds: [1, 3] } });
  });

  it('sends nothing early for a page that is not a comparison', () => {
    expect(earlyCallsFor('#/runs')).toEqual([]);
    expect(earlyCallsFor('#/compare')).toEqual([]);
    expect(earlyCallsFor('#/run/4')).toEqual([]);
    expect(earlyCallsFor('#/compare?sweeps=2').map((call) => call.method)).toEqual(['compare.runs']);
  });

  it('can be handed over once', () => {
    const early = new EarlySocket(new FakeSocket('ws://127.0.0.1:1/api') as unknown as WebSocket);
    early.handOver(() => undefined);
    expect(() => early.handOver(() => undefined)).toThrow(/already handed over/u);
  });
});
