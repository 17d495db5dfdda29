// Sweeps seen from anywhere in the app: the window title follows the running one ("▶ 3/10 · synthetic ladder"), and
// when one ends a toast says so; in a browser tab the title flashes too (in Electron the main process notifies).
import { useEffect, useState } from 'react';
import { useBridge } from '../bridge/context.js';
import { viewHash } from '../route.js';
import { useSweeps, useSweepStore } from '../shared/sweepStore.js';
import { endNotice, titleSweep, windowTitle } from './sweepText.js';
import './sweeps.css';

/** A toast stays this long unless closed: long enough to be read on coming back to the screen. */
const TOAST_MS = 20_000;
/** The tab title alternates at this pace, this many times: noticeable in a tab strip, then it settles. */
const FLASH_INTERVAL_MS = 1_000;
const FLASH_TOGGLES = 8;

interface Toast {
  key: number;
  sweepId: number;
  text: string;
  status: string;
}

export function SweepNotifier() {
  const bridge = useBridge();
  const store = useSweepStore();
  const { sweeps } = useSweeps();
  const [toasts, setToasts] = useState<readonly Toast[]>([]);
  const [flash, setFlash] = useState<{ title: string; key: number } | null>(null);
  const [flashOn, setFlashOn] = useState(false);

  useEffect(
    () =>
      store.onDidEnd((sweep) => {
        const notice = endNotice(sweep);
        const key = Date.now() + Math.random();
        setToasts((prev) => [...prev.filter((t) => t.sweepId !== sweep.id), { key, sweepId: sweep.id, text: notice.text, status: sweep.status }]);
        setTimeout(() => setToasts((prev) => prev.filter((t) => t.key !== key)), TOAST_MS);
        if (bridge.face === 'headless') {
          setFlash({ title: notice.title, key });
          setFlashOn(true);
        }
      }),
    [store, bridge],
  );

  // The flash: the end notice and the usual title by turns, a few times.
  useEffect(() => {
    if (!flash) return;
    let toggles = 0;
    const timer = setInterval(() => {
      toggles += 1;
      if (toggles >= FLASH_TOGGLES) {
        clearInterval(timer);
        setFlash(null);
        setFlashOn(false);
      } else {
        setFlashOn((on) => !on);
      }
    }, FLASH_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [flash]);

  const title = flash && flashOn ? flash.title : windowTitle(titleSweep(sweeps));
  useEffect(() => {
    document.title = title;
  }, [title]);

  if (toasts.length === 0) return null;
  return (
    <div className="toasts" role="status" aria-live="polite">
      {toasts.map((toast) => (
        <div key={toast.key} className={`toast status-${toast.status}`} data-testid="sweep-toast">
          <span className="toast-text">{toast.text}</span>
          <a className="toast-link" href={viewHash({ kind: 'sweep', id: toast.sweepId })}>
            Open
          </a>
          <button type="button" className="button icon" aria-label="Dismiss" onClick={() => setToasts((prev) => prev.filter((t) => t.key !== toast.key))}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
