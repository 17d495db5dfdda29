// What New run will run, exactly: the command line, its directory and environment, worked out by the engine as the
// form changes (debounced), or why it cannot run.
import { useEffect, useState } from 'react';
import type { MethodOutput, TypedCommand, Workload } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage, formatEnvAssignments, shellJoin } from '../shared/format.js';

/** Long enough to skip the keystrokes of one word, short enough to feel live. */
const PREVIEW_DEBOUNCE_MS = 250;

export type Preview = { key: string; ok: true; value: MethodOutput<'workloads.preview'> } | { key: string; ok: false; error: string };

/** The engine's preview of the form as it stands; `previewKey` names that form, so a preview of an older one shows as stale. */
export function useCommandPreview(
  workload: Workload | null,
  values: Readonly<Record<string, string>>,
  typedCommand: TypedCommand | null,
): { preview: Preview | null; previewKey: string } {
  const { api } = useBridge();
  const [preview, setPreview] = useState<Preview | null>(null);
  const previewKey = workload ? `${workload.id}:${JSON.stringify(values)}:${workload.id === 0 ? JSON.stringify(typedCommand) : ''}` : '';
  useEffect(() => {
    if (!workload) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      api['workloads.preview']({ ...(workload.id === 0 && typedCommand ? { command: typedCommand } : { workloadId: workload.id }), values }).then(
        (value) => {
          if (!cancelled) setPreview({ key: previewKey, ok: true, value });
        },
        (error: unknown) => {
          if (!cancelled) setPreview({ key: previewKey, ok: false, error: errorMessage(error) });
        },
      );
    }, PREVIEW_DEBOUNCE_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [api, workload, values, previewKey, typedCommand]);
  return { preview, previewKey };
}

export interface CommandPreviewProps {
  workload: Workload | null;
  typed: boolean;
  preview: Preview | null;
  previewKey: string;
}

export function CommandPreview({ workload, typed, preview, previewKey }: CommandPreviewProps) {
  const samePreview = preview !== null && preview.key === previewKey;
  const previewForWorkload = preview !== null && workload !== null && preview.key.startsWith(`${workload.id}:`);
  return (
    <div className={`preview ${samePreview ? '' : 'stale'}`} aria-live="polite">
      <span className="label">Will run</span>
      {!workload && typed && <p className="hint">The command appears here as it will run once it and its directory are typed.</p>}
      {workload && !previewForWorkload && <p className="hint">Working out the command…</p>}
      {previewForWorkload && preview.ok && (
        <>
          <pre className="command-line" data-testid="command-preview">
            {shellJoin(preview.value.command)}
          </pre>
          <dl className="preview-facts">
            <div>
              <dt>in</dt>
              <dd className="mono" data-testid="preview-cwd">
                {preview.value.cwd}
              </dd>
            </div>
            {Object.keys(preview.value.env).length > 0 && (
              <div>
                <dt>env</dt>
                <dd className="mono" data-testid="preview-env">
                  {formatEnvAssignments(preview.value.env)}
                </dd>
              </div>
            )}
          </dl>
        </>
      )}
      {previewForWorkload && !preview.ok && (
        <p className="inline-error" data-testid="preview-error">
          {preview.error}
        </p>
      )}
    </div>
  );
}
