import { describe, expect, it } from 'vitest';
import { EventHub, HIGH_WATERMARK_CHARS, LOW_WATERMARK_CHARS, OutputFlowGate } from '../../electron/core/events.js';
import type { EventPayload } from '../../electron/shared/api.js';

const chunk = (seq: number, chars: number): EventPayload<'runs.onOutput'> => ({ runId: 1, seq, tMs: seq, data: 'x'.repeat(chars) });

describe('OutputFlowGate', () => {
  it('admits output until a view has the high watermark unacknowledged', () => {
    const gate = new OutputFlowGate();
    expect(gate.admit(1, HIGH_WATERMARK_CHARS - 10)).toBe(true);
    expect(gate.admit(1, 100)).toBe(false);
    // Another run is not held back by this one.
    expect(gate.admit(2, 1000)).toBe(true);
  });

  it('holds back until acknowledgements bring it down to the low watermark', () => {
    const gate = new OutputFlowGate();
    gate.admit(1, HIGH_WATERMARK_CHARS);
    expect(gate.admit(1, 10)).toBe(false);
    gate.ack(1, HIGH_WATERMARK_CHARS - LOW_WATERMARK_CHARS - 1);
    expect(gate.admit(1, 10)).toBe(false);
    gate.ack(1, 1);
    expect(gate.admit(1, 10)).toBe(true);
  });

  it('always admits a single huge chunk to an idle view, so nothing is stuck forever', () => {
    expect(new OutputFlowGate().admit(1, HIGH_WATERMARK_CHARS * 3)).toBe(true);
  });
});

describe('EventHub', () => {
  it('holds back output only for flow-controlled subscribers, and never other events', () => {
    const hub = new EventHub();
    const view: number[] = [];
    const cli: number[] = [];
    const viewEvents: string[] = [];
    const subscription = hub.subscribe(
      (event, payload) => {
        viewEvents.push(event);
        if (event === 'runs.onOutput') view.push((payload as EventPayload<'runs.onOutput'>).seq);
      },
      { flowControl: true },
    );
    hub.subscribe((event, payload) => {
      if (event === 'runs.onOutput') cli.push((payload as EventPayload<'runs.onOutput'>).seq);
    });
    for (let seq = 0; seq < 30; seq++) hub.emit('runs.onOutput', chunk(seq, 10_000));
    expect(cli).toHaveLength(30);
    expect(view).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    hub.ack(subscription.id, 1, 100_000);
    hub.emit('runs.onOutput', chunk(30, 10_000));
    expect(view.at(-1)).toBe(30);
    subscription.unsubscribe();
    hub.emit('runs.onOutput', chunk(31, 1));
    expect(view.at(-1)).toBe(30);
    expect(viewEvents.every((e) => e === 'runs.onOutput')).toBe(true);
  });
});
