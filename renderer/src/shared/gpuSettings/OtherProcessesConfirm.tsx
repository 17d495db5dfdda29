// Asks before a change of clocks or power on a GPU other processes use: their speed changes too.
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { GpuControlState } from '../../../../electron/shared/api.js';
import { isOtherProcessesRefusal } from './gpuText.js';
import { useGpuStatus } from './gpuStatus.js';
import './gpu.css';

type GpuProcess = GpuControlState['processes'][number];

interface Question {
  processes: readonly GpuProcess[];
  /** What is about to happen, in words ("lock GPU clocks at 2100 MHz"). */
  what: string;
  answer: (yes: boolean) => void;
}

function ConfirmDialog({ question }: { question: Question }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog confirm-dialog"
      aria-labelledby="other-processes-title"
      data-testid="gpu-confirm-dialog"
      // Escape cancels: it answers no, and the owner unmounts the dialog.
      onCancel={(event) => {
        event.preventDefault();
        question.answer(false);
      }}
    >
      <h2 id="other-processes-title">Other processes use this GPU</h2>
      <p>
        Changing clocks or power changes their speed too. About to: <strong>{question.what}</strong>.
      </p>
      {question.processes.length > 0 && (
        <table className="gpu-processes" data-testid="gpu-confirm-processes">
          <thead>
            <tr>
              <th>PID</th>
              <th>Name</th>
              <th>VRAM</th>
            </tr>
          </thead>
          <tbody>
            {question.processes.map((process) => (
              <tr key={process.pid}>
                <td>{process.pid}</td>
                <td className="mono">{process.name ?? 'unknown'}</td>
                <td>{process.usedMemoryMiB === null ? '–' : `${process.usedMemoryMiB.toLocaleString()} MiB`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="actions dialog-actions">
        {/* Cancel has the focus: Enter alone must not change the speed of someone else's work. */}
        <button type="button" className="button" data-testid="gpu-confirm-cancel" autoFocus onClick={() => question.answer(false)}>
          Cancel
        </button>
        <button type="button" className="button primary" data-testid="gpu-confirm-ok" onClick={() => question.answer(true)}>
          Go ahead
        </button>
      </div>
    </dialog>
  );
}

export type Confirmed<T> = { done: true; value: T } | { done: false };

/**
 * `guard(processes, what, call)` asks first when `processes` is not empty, then calls with confirmation; when the
 * engine finds processes the last status did not show, it asks then (with `recheck`'s list) and calls again.
 * `dialog` goes into the owner's tree.
 */
export function useOtherProcessesConfirm(recheck: () => Promise<readonly GpuProcess[]>): {
  dialog: ReactNode;
  guard: <T>(processes: readonly GpuProcess[], what: string, call: (confirmOtherProcesses: boolean) => Promise<T>) => Promise<Confirmed<T>>;
} {
  const [question, setQuestion] = useState<Question | null>(null);

  const ask = useCallback(
    (processes: readonly GpuProcess[], what: string) =>
      new Promise<boolean>((resolve) => {
        setQuestion({
          processes,
          what,
          answer: (yes) => {
            setQuestion(null);
            resolve(yes);
          },
        });
      }),
    [],
  );

  const guard = useCallback(
    async <T,>(processes: readonly GpuProcess[], what: string, call: (confirmOtherProcesses: boolean) => Promise<T>): Promise<Confirmed<T>> => {
      if (processes.length > 0) {
        if (!(await ask(processes, what))) return { done: false };
        return { done: true, value: await call(true) };
      }
      try {
        return { done: true, value: await call(false) };
      } catch (error) {
        if (!isOtherProcessesRefusal(error)) throw error;
        if (!(await ask(await recheck(), what))) return { done: false };
        return { done: true, value: await call(true) };
      }
    },
    [ask, recheck],
  );

  return { dialog: question && <ConfirmDialog question={question} />, guard };
}

/**
 * What a form that may start something on the GPU needs: the GPU's status, read as the form opens (its profiles and
 * processes), and the guard that asks before going ahead while other processes use it.
 */
export function useGpuStartGuard() {
  const gpu = useGpuStatus();
  const refreshGpu = gpu.refresh;
  const recheck = useCallback(async () => (await refreshGpu())?.state?.processes ?? [], [refreshGpu]);
  const { dialog, guard } = useOtherProcessesConfirm(recheck);
  useEffect(() => {
    void refreshGpu();
  }, [refreshGpu]);
  return { gpu, refreshGpu, confirmDialog: dialog, guard };
}
