// Which of a sweep's statuses are under way and which are ended: the store hears an end by them, the views show them.
import type { Sweep } from '../../../electron/shared/api.js';

type SweepStatus = Sweep['status'];

/** Still to finish: the engine holds these in its queue. */
export const ACTIVE_STATUSES: ReadonlySet<SweepStatus> = new Set(['queued', 'running', 'paused']);
/** How a sweep ends on its own or by cancel ('interrupted' is the engine dying, and can be resumed). */
export const ENDED_STATUSES: ReadonlySet<SweepStatus> = new Set(['succeeded', 'failed', 'cancelled']);
