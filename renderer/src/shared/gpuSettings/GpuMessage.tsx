// The engine's answer to a GPU change, in full: what happened and its warnings, or why not, with the command a
// person may have to run themselves set apart, selectable and copyable.
import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '../format.js';
import { commandInMessage } from './gpuText.js';
import type { CopyStatus } from '../copyStatus.js';
import './gpu.css';

/** As long as the terminal's Copy button shows its outcome (Terminal.tsx). */
const COPY_FEEDBACK_MS = 1500;
const COPY_LABELS: Record<CopyStatus, string> = { idle: 'Copy', copied: 'Copied ✓', failed: 'Copy failed' };

export function CommandToCopy({ command }: { command: string }) {
  const [status, setStatus] = useState<CopyStatus>('idle');
  useEffect(() => {
    if (status === 'idle') return;
    const timer = setTimeout(() => setStatus('idle'), COPY_FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [status]);
  const copy = () => {
    // Only a secure context has a clipboard (Electron's page and 127.0.0.1 are; a page proxied over plain HTTP is not).
    const clipboard = navigator.clipboard as Clipboard | undefined;
    if (!clipboard) {
      setStatus('failed');
      return;
    }
    clipboard.writeText(command).then(
      () => setStatus('copied'),
      (error: unknown) => {
        console.warn(`copy: ${errorMessage(error)}`);
        setStatus('failed');
      },
    );
  };
  return (
    <div className="command-to-copy">
      <pre className="command-line selectable" data-testid="gpu-command">
        {command}
      </pre>
      <button type="button" className={`button small copy-${status}`} onClick={copy}>
        {COPY_LABELS[status]}
      </button>
    </div>
  );
}

export type GpuOutcome =
  | { ok: true; /** What was done, in words; null when nothing was. */ title: string | null; message: string; warnings: readonly string[] }
  | { ok: false; message: string };

export function GpuMessage({ outcome, testId }: { outcome: GpuOutcome; testId: string }) {
  const ref = useRef<HTMLDivElement>(null);
  // The answer comes below the buttons; on a short window it would come unseen.
  useEffect(() => {
    ref.current?.scrollIntoView({ block: 'nearest' });
  }, [outcome]);
  if (outcome.ok) {
    return (
      <div className="gpu-outcome ok" role="status" data-testid={testId} ref={ref}>
        {outcome.title && <strong className="gpu-outcome-title">{outcome.title}</strong>}
        <pre className="gpu-outcome-text selectable">{outcome.message}</pre>
        {outcome.warnings.length > 0 && (
          <ul className="gpu-warnings" data-testid={`${testId}-warnings`}>
            {outcome.warnings.map((warning, i) => (
              <li key={i}>{warning}</li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  const command = commandInMessage(outcome.message);
  return (
    <div className="gpu-outcome failed" role="alert" data-testid={testId} ref={ref}>
      <pre className="gpu-outcome-text selectable">{outcome.message}</pre>
      {command && (
        <>
          <span className="label">Run this in a terminal:</span>
          <CommandToCopy command={command} />
        </>
      )}
    </div>
  );
}
