// The engine's outbound events, typed by the contract; every face subscribes here and forwards them.
import type { EventArgs, EventName, EventPayload } from '../shared/api.js';

export type EventListener = (...args: EventArgs) => void;

/** A view may have this many chars of a run's live output in flight, unacknowledged (STYLE: ~100,000)... */
export const HIGH_WATERMARK_CHARS = 100_000;
/** ...and once held back, gets live output again when it is down to this many (STYLE: ~5,000). */
export const LOW_WATERMARK_CHARS = 5_000;

/**
 * Holds back live output from a view that does not keep up, per run. The training is never paused
 * for a view: that would change the timing being measured. The store keeps every byte, and the
 * view fetches what it missed (it sees the gap in `seq`).
 */
export class OutputFlowGate {
  private readonly unacked = new Map<number, number>();
  private readonly holding = new Set<number>();

  admit(runId: number, chars: number): boolean {
    const pending = this.unacked.get(runId) ?? 0;
    if (this.holding.has(runId)) {
      if (pending > LOW_WATERMARK_CHARS) return false;
      this.holding.delete(runId);
    }
    if (pending > 0 && pending + chars > HIGH_WATERMARK_CHARS) {
      this.holding.add(runId);
      return false;
    }
    this.unacked.set(runId, pending + chars);
    return true;
  }

  ack(runId: number, chars: number): void {
    const pending = this.unacked.get(runId) ?? 0;
    const left = Math.max(0, pending - chars);
    if (left === 0 && !this.holding.has(runId)) this.unacked.delete(runId);
    else this.unacked.set(runId, left);
  }

  unacknowledged(runId: number): number {
    return this.unacked.get(runId) ?? 0;
  }
}

export interface SubscribeOptions {
  /** A view that acknowledges what it has drawn (`runs.ackOutput`); the CLI's own stream does not. */
  flowControl?: boolean;
}

export interface Subscription {
  id: number;
  unsubscribe(): void;
}

interface Subscriber {
  listener: EventListener;
  gate: OutputFlowGate | null;
}

export class EventHub {
  private readonly subscribers = new Map<number, Subscriber>();
  private nextId = 1;

  subscribe(listener: EventListener, options: SubscribeOptions = {}): Subscription {
    const id = this.nextId++;
    this.subscribers.set(id, { listener, gate: options.flowControl ? new OutputFlowGate() : null });
    return { id, unsubscribe: () => this.subscribers.delete(id) };
  }

  /** Whether anyone listens: with nobody watching, live output need not even be decoded. */
  get hasSubscribers(): boolean {
    return this.subscribers.size > 0;
  }

  /** A view acknowledges drawn output; unknown subscribers (closed sockets) are ignored. */
  ack(subscriberId: number | null, runId: number, chars: number): void {
    if (subscriberId === null) return;
    this.subscribers.get(subscriberId)?.gate?.ack(runId, chars);
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const { listener, gate } of this.subscribers.values()) {
      if (gate && event === 'runs.onOutput') {
        const output = payload as EventPayload<'runs.onOutput'>;
        if (!gate.admit(output.runId, output.data.length)) continue;
      }
      try {
        // A generic E is one of the names, so this pair is one of EventArgs; the compiler cannot see that through E.
        listener(...([event, payload] as EventArgs));
      } catch {
        // One broken subscriber (a closed socket, a destroyed window) must not stop the others or the run.
      }
    }
  }
}
