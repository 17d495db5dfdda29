// The page's acknowledgements of live output: what keeps the engine from holding a run's output back for a view.
import { describe, expect, it } from 'vitest';
import { ACK_UNIT_CHARS, OutputAcks } from '../../../renderer/src/terminal/outputAcks.js';

function recorder() {
  const sent: Array<[number, number]> = [];
  const acks = new OutputAcks((runId, chars) => sent.push([runId, chars]));
  const total = (runId: number) => sent.filter(([id]) => id === runId).reduce((sum, [, chars]) => sum + chars, 0);
  return { acks, sent, total };
}

describe('OutputAcks', () => {
  it('acknowledges at once the output of a run no view draws', () => {
    const { acks, sent } = recorder();
    acks.received(7, 1200);
    expect(sent).toEqual([[7, 1200]]);
  });

  it('acknowledges a watched run in units as it is drawn, and what is left when the view goes', () => {
    const { acks, sent, total } = recorder();
    const view = acks.watch(3);
    acks.received(3, 12_000);
    expect(sent).toEqual([]);
    view.drawn(ACK_UNIT_CHARS - 1);
    expect(sent).toEqual([]);
    view.drawn(1);
    expect(sent).toEqual([[3, ACK_UNIT_CHARS]]);
    view.drawn(1_000);
    // Gone with 1,000 drawn and unsent and 6,000 received but never drawn: all of it is settled, none twice.
    view.dispose();
    expect(total(3)).toBe(12_000);
  });

  it('never acknowledges more than was received, even when a write of an old connection reports in late', () => {
    const { acks, total } = recorder();
    const view = acks.watch(1);
    acks.received(1, 3_000);
    acks.reset();
    view.drawn(3_000);
    view.dispose();
    expect(total(1)).toBe(0);
  });

  it('lets a newer view of the same run take over, settling the older one and ignoring it after', () => {
    const { acks, total } = recorder();
    const older = acks.watch(5);
    acks.received(5, 4_000);
    const newer = acks.watch(5);
    expect(total(5)).toBe(4_000);
    acks.received(5, ACK_UNIT_CHARS);
    older.drawn(ACK_UNIT_CHARS);
    older.dispose();
    expect(total(5)).toBe(4_000);
    newer.drawn(ACK_UNIT_CHARS);
    expect(total(5)).toBe(4_000 + ACK_UNIT_CHARS);
  });
});
