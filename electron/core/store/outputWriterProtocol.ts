// Messages between the engine and the output writer's worker thread.

export interface OutputWriterConfig {
  file: string;
  flushIntervalMs: number;
}

export type ToOutputWriter =
  | { type: 'chunk'; runId: number; seq: number; tMs: number; data: Uint8Array }
  | { type: 'flush'; id: number }
  | { type: 'close' };

export type FromOutputWriter =
  | { type: 'flushed'; id: number }
  | { type: 'closed' }
  | { type: 'error'; message: string };
