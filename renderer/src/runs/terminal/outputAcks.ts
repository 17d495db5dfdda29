// Acknowledges live output to the engine, which holds back a view's live events once ~100,000 chars are unacknowledged.
import type { Bridge } from '../../bridge/types.js';

/** STYLE.md "The terminal data path": acknowledge in ~5,000-char units, which is also the engine's low watermark. */
export const ACK_UNIT_CHARS = 5_000;

/** One view's side of a run: it says what it has drawn; whatever it never draws is acknowledged when it goes. */
export interface RunOutputAcks {
  /** Chars of this run's live output that are on screen now, or that the view dropped (duplicates of what it showed). */
  drawn(chars: number): void;
  /** The view is gone: everything it received is acknowledged, drawn or not, so the run is not held back for nobody. */
  dispose(): void;
}

interface ViewCount {
  /** Received by the view, not yet drawn. */
  outstanding: number;
  /** Drawn, waiting for a full unit before it is sent. */
  unsent: number;
}

export class OutputAcks {
  private readonly views = new Map<number, ViewCount>();

  constructor(private readonly send: (runId: number, chars: number) => void) {}

  /** Every live event passes here first: a run that no view draws is acknowledged at once. */
  received(runId: number, chars: number): void {
    const view = this.views.get(runId);
    if (view) view.outstanding += chars;
    else if (chars > 0) this.send(runId, chars);
  }

  /** A view takes over acknowledging a run's output from the moment it calls this. */
  watch(runId: number): RunOutputAcks {
    // One view per run: a newer one (a remount) takes over, and the older one's share is settled now.
    this.settle(runId);
    const view: ViewCount = { outstanding: 0, unsent: 0 };
    this.views.set(runId, view);
    return {
      drawn: (chars) => {
        if (this.views.get(runId) !== view) return;
        // Clamped: after a reconnect, a write of the old connection's output may still report in.
        const n = Math.min(chars, view.outstanding);
        view.outstanding -= n;
        view.unsent += n;
        if (view.unsent >= ACK_UNIT_CHARS) {
          this.send(runId, view.unsent);
          view.unsent = 0;
        }
      },
      dispose: () => {
        if (this.views.get(runId) === view) this.settle(runId);
      },
    };
  }

  /** A new connection is a new subscriber to the engine, whose count starts at zero; so does ours. */
  reset(): void {
    for (const view of this.views.values()) {
      view.outstanding = 0;
      view.unsent = 0;
    }
  }

  private settle(runId: number): void {
    const view = this.views.get(runId);
    if (!view) return;
    this.views.delete(runId);
    const chars = view.outstanding + view.unsent;
    if (chars > 0) this.send(runId, chars);
  }
}

const perBridge = new WeakMap<Bridge, OutputAcks>();

/**
 * The page's one acknowledger for `bridge`, listening from its first call: main.tsx calls this at start, since
 * output of a run nobody looks at must be acknowledged too, or the engine holds that run's output back for good.
 */
export function outputAcksFor(bridge: Bridge): OutputAcks {
  const existing = perBridge.get(bridge);
  if (existing) return existing;
  const acks = new OutputAcks((runId, chars) => {
    // A lost acknowledgement only matters to the connection it belonged to, which is gone when this fails.
    bridge.api['runs.ackOutput']({ id: runId, chars }).catch(() => undefined);
  });
  // Subscribed before any view, so a view's own listener always finds its event already counted.
  bridge.on('runs.onOutput', (event) => acks.received(event.runId, event.data.length));
  bridge.onConnectionState((state) => {
    if (state === 'reconnecting') acks.reset();
  });
  perBridge.set(bridge, acks);
  return acks;
}
