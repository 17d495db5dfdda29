// The New sweep form's contents, kept while the person looks elsewhere (a run, the finder's answer) and back again.
import { useCallback, useSyncExternalStore } from 'react';
import type { GpuRunFields } from '../shared/gpuSettings/GpuRunSettingsFields.js';
import { initialSweepFields, type SweepFields } from './sweepForm.js';

export interface SweepDraft {
  fields: SweepFields;
  gpu: GpuRunFields | null;
}

/** One form per page: the draft is the person's typing, not the engine's state, so it lives here and nowhere else. */
let draft: SweepDraft = { fields: initialSweepFields(null), gpu: null };
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

const getDraft = () => draft;

export function updateSweepDraft(update: (draft: SweepDraft) => SweepDraft): void {
  draft = update(draft);
  for (const listener of [...listeners]) listener();
}

export function useSweepDraft(): [SweepDraft, (update: (draft: SweepDraft) => SweepDraft) => void] {
  const current = useSyncExternalStore(subscribe, getDraft);
  const update = useCallback((change: (draft: SweepDraft) => SweepDraft) => updateSweepDraft(change), []);
  return [current, update];
}
