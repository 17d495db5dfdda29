// The choices of a sweep form's "Work per step" (shared/runForm/workKind.ts), one markup in New sweep and before/after.
export type { WorkKind } from './workKind.js';

export function WorkKindOptions() {
  return (
    <>
      <option value="none">not given (steps/s)</option>
      <option value="samples">samples per step</option>
      <option value="tokens">tokens per step</option>
    </>
  );
}
