// The engine's outbound events, typed by the contract; every face subscribes here and forwards them.
import type { EventName, EventPayload } from '../shared/api.js';

export type EventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

export class EventHub {
  private readonly listeners = new Set<EventListener>();

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) {
      try {
        listener(event, payload);
      } catch {
        // One broken subscriber (a closed socket, a destroyed window) must not stop the others or the run.
      }
    }
  }
}
