// The renderer's acknowledgements of live output (renderer/src/outputAcks.ts): what the engine is told a view has
// drawn decides whether it holds that view's live output back, so every char received must be acknowledged once.
import { describe, expect, it } from 'vitest';
import type { ApiClient, EventName, EventPayload } from '../../electron/shared/api.js';
import type { Bridge, ConnectionState, EventListener } from '../../renderer/src/bridge/types.js';
import { ACK_UNIT_CHARS, OutputAcks, outputAcksFor } from '../../renderer/src/runs/terminal/outputAcks.js';

interface Sent {
  runId: number;
  chars: number;
}

function recordingAcks(): { acks: OutputAcks; sent: Sent[]; total: (runId: number) => number } {
  const sent: Sent[] = [];
  const acks = new OutputAcks((runId, chars) => sent.push({ runId, chars }));
  const total = (runId: number) => sent.filter((ack) => ack.runId === runId).reduce((sum, ack) => sum + ack.chars, 0);
  return { acks, sent, total };
}

describe('OutputAcks', () => {
  it('acknowledges at once the output of a run that no view draws', () => {
    const { acks, sent } = recordingAcks();
    acks.received(1, 300);
    acks.received(1, 0);
    expect(sent).toEqual([{ runId: 1, chars: 300 }]);
  });

  it('waits for a watching view to draw, then acknowledges in units of at least ACK_UNIT_CHARS', () => {
    const { acks, sent } = recordingAcks();
    const view = acks.watch(1);
    acks.received(1, 3_000);
    acks.received(1, 3_000);
    expect(sent).toEqual([]);
    view.drawn(3_000);
    expect(sent).toEqual([]);
    view.drawn(3_000);
    expect(sent).toEqual([{ runId: 1, chars: 6_000 }]);
    expect(6_000).toBeGreaterThanOrEqual(ACK_UNIT_CHARS);
  });

  it('never acknowledges more than the view received, however much it says it drew', () => {
    const { acks, total } = recordingAcks();
    const view = acks.watch(1);
    acks.received(1, 2_000);
    view.drawn(9_000);
    view.dispose();
    expect(total(1)).toBe(2_000);
  });

  it('settles what a view received but never drew when it goes, and only once', () => {
    const { acks, sent } = recordingAcks();
    const view = acks.watch(1);
    acks.received(1, 7_000);
    view.drawn(1_000);
    view.dispose();
    view.dispose();
    expect(sent).toEqual([{ runId: 1, chars: 7_000 }]);
    // Gone: the run's output is acknowledged on receipt again.
    acks.received(1, 10);
    expect(sent.at(-1)).toEqual({ runId: 1, chars: 10 });
  });

  it('keeps runs apart', () => {
    const { acks, total } = recordingAcks();
    const one = acks.watch(1);
    acks.received(1, 6_000);
    acks.received(2, 50);
    one.drawn(6_000);
    expect(total(1)).toBe(6_000);
    expect(total(2)).toBe(50);
  });

  it('hands a run to a newer view (a remount): the older one is settled then, and its later calls count for nothing', () => {
    const { acks, sent, total } = recordingAcks();
    const older = acks.watch(1);
    acks.received(1, 4_000);
    const newer = acks.watch(1);
    expect(sent).toEqual([{ runId: 1, chars: 4_000 }]);
    acks.received(1, 2_000);
    older.drawn(4_000);
    older.dispose();
    expect(total(1)).toBe(4_000);
    newer.dispose();
    expect(total(1)).toBe(6_000);
  });

  it('starts counting from zero on a new connection, whose subscriber the engine also counts from zero', () => {
    const { acks, total } = recordingAcks();
    const view = acks.watch(1);
    acks.received(1, 4_000);
    view.drawn(4_000);
    acks.reset();
    // A write of the old connection's output reporting in late is not taken from the new connection's count.
    view.drawn(4_000);
    acks.received(1, 1_000);
    view.dispose();
    expect(total(1)).toBe(1_000);
  });
});

/** The bridge's two event sources, driven by the test. */
function fakeBridge(ackOutput: (input: { id: number; chars: number }) => Promise<{ ok: true }>): {
  bridge: Bridge;
  emitOutput: (payload: EventPayload<'runs.onOutput'>) => void;
  setConnection: (state: ConnectionState) => void;
} {
  const outputListeners: Array<EventListener<'runs.onOutput'>> = [];
  const connectionListeners: Array<(state: ConnectionState) => void> = [];
  const bridge: Bridge = {
    api: { 'runs.ackOutput': ackOutput } as unknown as ApiClient,
    on<E extends EventName>(event: E, listener: EventListener<E>) {
      if (event !== 'runs.onOutput') throw new Error(`unexpected subscription to ${event}`);
      outputListeners.push(listener as unknown as EventListener<'runs.onOutput'>);
      return () => undefined;
    },
    face: 'headless',
    connectionState: () => 'open',
    onConnectionState(listener) {
      connectionListeners.push(listener);
      return () => undefined;
    },
  };
  return {
    bridge,
    emitOutput: (payload) => outputListeners.forEach((listener) => listener(payload)),
    setConnection: (state) => connectionListeners.forEach((listener) => listener(state)),
  };
}

describe('outputAcksFor', () => {
  it('is one acknowledger per bridge, counting every live event and sending runs.ackOutput', () => {
    const calls: Array<{ id: number; chars: number }> = [];
    const { bridge, emitOutput } = fakeBridge(async (input) => {
      calls.push(input);
      return { ok: true };
    });
    const acks = outputAcksFor(bridge);
    expect(outputAcksFor(bridge)).toBe(acks);
    emitOutput({ runId: 3, seq: 0, tMs: 0, data: 'abc' });
    const view = acks.watch(3);
    emitOutput({ runId: 3, seq: 1, tMs: 1, data: 'x'.repeat(ACK_UNIT_CHARS) });
    expect(calls).toEqual([{ id: 3, chars: 3 }]);
    view.drawn(ACK_UNIT_CHARS);
    expect(calls).toEqual([
      { id: 3, chars: 3 },
      { id: 3, chars: ACK_UNIT_CHARS },
    ]);
  });

  it('forgets the counts when the connection is lost', () => {
    const calls: Array<{ id: number; chars: number }> = [];
    const { bridge, emitOutput, setConnection } = fakeBridge(async (input) => {
      calls.push(input);
      return { ok: true };
    });
    const view = outputAcksFor(bridge).watch(4);
    emitOutput({ runId: 4, seq: 0, tMs: 0, data: 'lost with the connection' });
    setConnection('reconnecting');
    setConnection('open');
    view.dispose();
    expect(calls).toEqual([]);
  });

  it('lets a failed acknowledgement go (its connection is gone) instead of leaving a rejected promise', async () => {
    let rejected = 0;
    const { bridge, emitOutput } = fakeBridge(() => {
      rejected += 1;
      return Promise.reject(new Error('socket closed'));
    });
    outputAcksFor(bridge);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      emitOutput({ runId: 5, seq: 0, tMs: 0, data: 'x' });
      // Node reports an unhandled rejection after the microtask queue drains: a macrotask later it would be in.
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(rejected).toBe(1);
    expect(unhandled).toEqual([]);
  });
});
