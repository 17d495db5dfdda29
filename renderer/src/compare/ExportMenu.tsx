// The comparison as a file (Markdown, CSV, JSON, HTML report), rendered by the engine and saved as a download, or
// copied to the clipboard as text (Markdown, CSV, JSON) to paste into notes or an issue.
import { useEffect, useRef, useState } from 'react';
import type { ExportFormat, MethodInput } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { downloadText } from '../shared/downloadText.js';
import { errorMessage } from '../shared/format.js';
import '../shared/ExportMenu.css';

type CompareRequestInput = MethodInput<'compare.runs'>;

const FORMATS: Array<{ format: ExportFormat; name: string; what: string; copy: boolean }> = [
  { format: 'md', name: 'Markdown', what: 'the table for optimization_results.md or an issue', copy: true },
  { format: 'csv', name: 'CSV', what: 'every figure, for a spreadsheet', copy: true },
  { format: 'json', name: 'JSON', what: 'per config, against the baseline', copy: true },
  { format: 'html', name: 'HTML report', what: 'self-contained, with its charts', copy: false },
];

/** How long "Copied" or "Saved" stays on a button. */
const FEEDBACK_MS = 2000;

export function ExportMenu({ request, disabled }: { request: CompareRequestInput; disabled: boolean }) {
  const { api } = useBridge();
  const menuRef = useRef<HTMLDetailsElement>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<{ text: string; failed: boolean } | null>(null);

  // A menu closes on a click elsewhere or Escape, as menus do.
  useEffect(() => {
    const onPointer = (event: PointerEvent) => {
      const menu = menuRef.current;
      if (menu?.open && event.target instanceof Node && !menu.contains(event.target)) menu.open = false;
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && menuRef.current?.open) menuRef.current.open = false;
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, []);

  useEffect(() => {
    if (!message || message.failed) return;
    const timer = setTimeout(() => setMessage(null), FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [message]);

  const act = async (format: ExportFormat, action: 'download' | 'copy') => {
    setBusy(`${action}-${format}`);
    setMessage(null);
    try {
      const file = await api['compare.export']({ ...request, format });
      if (action === 'download') {
        downloadText(file.content, file.filename, file.mimeType);
        setMessage({ text: `Saved ${file.filename}`, failed: false });
      } else {
        // Only a secure context has a clipboard (Electron's page and 127.0.0.1 are; a page proxied over plain HTTP is not).
        const clipboard = navigator.clipboard as Clipboard | undefined;
        if (!clipboard) throw new Error('no clipboard here (the page is not a secure context): use Download');
        await clipboard.writeText(file.content);
        setMessage({ text: `${FORMATS.find((f) => f.format === format)?.name ?? format} copied`, failed: false });
      }
      if (menuRef.current) menuRef.current.open = false;
    } catch (error) {
      setMessage({ text: errorMessage(error), failed: true });
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="export-area">
      {message && (
        <span className={message.failed ? 'field-error' : 'export-done'} role={message.failed ? 'alert' : 'status'} data-testid="export-message">
          {message.text}
        </span>
      )}
      <details className="export-menu" ref={menuRef} data-testid="export-menu">
        <summary className={`button ${disabled ? 'disabled' : ''}`} aria-disabled={disabled} onClick={(event) => disabled && event.preventDefault()}>
          Export <span aria-hidden="true">▾</span>
        </summary>
        <div className="export-popover" role="menu">
          {FORMATS.map(({ format, name, what, copy }) => (
            <div key={format} className="export-item">
              <span className="export-name">
                {name}
                <span className="hint">{what}</span>
              </span>
              <button
                type="button"
                role="menuitem"
                className="button small"
                data-testid={`export-${format}`}
                disabled={busy !== null}
                onClick={() => void act(format, 'download')}
              >
                {busy === `download-${format}` ? 'Saving…' : 'Download'}
              </button>
              {copy ? (
                <button
                  type="button"
                  role="menuitem"
                  className="button small"
                  data-testid={`copy-${format}`}
                  disabled={busy !== null}
                  onClick={() => void act(format, 'copy')}
                >
                  {busy === `copy-${format}` ? 'Copying…' : 'Copy'}
                </button>
              ) : (
                <span />
              )}
            </div>
          ))}
        </div>
      </details>
    </div>
  );
}
