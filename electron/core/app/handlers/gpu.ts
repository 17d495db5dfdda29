// gpu.*: the info card, and GPU control's state, changes and restores.
import { readGpuCard } from '../../telemetry/gpuInfo.js';
import type { DomainHandlers, EngineServices } from '../services.js';

export function gpuHandlers({ gpu, config }: EngineServices): DomainHandlers<'gpu'> {
  return {
    'gpu.info': async () => {
      const answer = await readGpuCard(config.nvidiaSmi, config.childEnv);
      // The contract carries the card as a record: the UI reads the fields it shows by name.
      return { ...answer, card: answer.card as unknown as Record<string, unknown> | null };
    },
    'gpu.status': ({ gpu: selected }) => gpu.status(selected),
    'gpu.apply': ({ gpu: selected, operation, confirmOtherProcesses }) => gpu.apply(operation, { gpu: selected, confirmOtherProcesses }),
    'gpu.restoreAbandoned': () => gpu.restoreAbandoned(),
  };
}
