// Fans engine events out to UI listeners, dropping any payload that does not match the contract.
import { describeZodError, events, isEventName, type EventName } from '../../../electron/shared/api.js';
import type { EventListener } from './types.js';

export class EventHub {
  private readonly listeners = new Map<EventName, Set<(payload: unknown) => void>>();

  on<E extends EventName>(event: E, listener: EventListener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    // Stored untyped; emit() only hands a listener a payload parsed by its own event's schema.
    const untyped = listener as (payload: unknown) => void;
    set.add(untyped);
    return () => {
      set.delete(untyped);
    };
  }

  emit(event: unknown, payload: unknown): void {
    if (!isEventName(event)) {
      console.warn(`Tuning Bench: ignored unknown event ${String(event)}`);
      return;
    }
    const parsed = events[event].safeParse(payload);
    if (!parsed.success) {
      console.warn(`Tuning Bench: dropped a malformed ${event} event: ${describeZodError(parsed.error)}`);
      return;
    }
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        listener(parsed.data);
      } catch (error) {
        // One failing view must not starve the others of events.
        console.error(`Tuning Bench: a ${event} listener threw`, error);
      }
    }
  }
}
