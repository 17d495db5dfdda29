// A finished run with a given output, stored through the engine's own output writer (as a live run's chunks are).
import type { EngineCore } from '../../electron/core/createCore.js';
import type { Run } from '../../electron/shared/api.js';

/** Stores `pieces` as the run's chunks, in order, and ends the run as succeeded. */
export async function storeFinishedRun(core: EngineCore, pieces: Iterable<Buffer>, name = 'stored'): Promise<Run> {
  const run = core.store.runs.insert({
    workloadId: null,
    workloadName: name,
    command: ['stored'],
    cwd: '/',
    config: {},
    env: {},
    startedAt: new Date(),
    enginePid: process.pid,
  });
  let seq = 0;
  for (const piece of pieces) core.recording.output.append(run.id, seq++, seq, Buffer.from(piece));
  await core.recording.output.flush();
  return core.store.runs.recordEnding(run.id, { status: 'succeeded', exitCode: 0, signal: null, exitClass: 'ok', exitReason: null, endedAt: new Date() });
}

/** `count` pieces of `bytes` each, filled with `fill`, the last one ended by a newline. */
export function* filledPieces(count: number, bytes: number, fill = 'a'): Generator<Buffer> {
  for (let i = 0; i < count; i++) {
    const piece = Buffer.alloc(bytes, fill);
    if (i === count - 1) piece[bytes - 1] = 0x0a;
    yield piece;
  }
}
