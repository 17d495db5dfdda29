// The sidebar's Import log button and its dialog: a log file (or pasted text) made elsewhere becomes a run.
import { useImperativeHandle, useRef, useState, type ChangeEvent, type FormEvent, type Ref } from 'react';
import { MAX_IMPORT_CHARS, MAX_IMPORT_FILE_BYTES, type Run } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage, formatBytes } from '../shared/format.js';
import { ProgressBar } from '../shared/ProgressBar.js';
import { importFileInPieces, logFileProblem, runNameFromFileName, type ImportProgress } from './importFile.js';

/** The file itself: sent in pieces when imported, never read whole into the page. */
type ChosenFile = File;

/** For the dialog's other openers: the first-run view and the desktop menu's Import Log. */
export interface ImportLogHandle {
  open(): void;
}

export function ImportLog({ onImported, ref }: { onImported: (run: Run) => void; ref?: Ref<ImportLogHandle> }) {
  const { api } = useBridge();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const fileInputRef = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<ChosenFile | null>(null);
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState<'importing' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const abortRef = useRef<AbortController | null>(null);

  const open = () => {
    // Asked again while open (the menu's shortcut twice), it keeps what was typed.
    if (dialogRef.current?.open) return;
    setFile(null);
    setText('');
    setName('');
    setError(null);
    if (fileInputRef.current) fileInputRef.current.value = '';
    dialogRef.current?.showModal();
  };

  useImperativeHandle(ref, () => ({ open }));

  const clearFile = () => {
    setFile(null);
    if (fileInputRef.current) fileInputRef.current.value = '';
  };

  const chooseFile = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    setError(null);
    if (!chosen) {
      setFile(null);
      return;
    }
    const problem = logFileProblem(chosen);
    if (problem !== null) {
      setError(problem);
      clearFile();
      return;
    }
    setFile(chosen);
    setName((typed) => (typed.trim() === '' ? runNameFromFileName(chosen.name) : typed));
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const runName = name.trim() === '' ? undefined : name.trim();
    if (!file && text.trim() === '') {
      setError('Choose a log file or paste a log.');
      return;
    }
    if (!file && text.length > MAX_IMPORT_CHARS) {
      setError(`The pasted log is over ${formatBytes(MAX_IMPORT_CHARS)}; save it to a file and choose the file instead.`);
      return;
    }
    setBusy('importing');
    setError(null);
    setProgress(file ? { sentBytes: 0, totalBytes: file.size } : null);
    const abort = new AbortController();
    abortRef.current = abort;
    try {
      const run = file ? await importFileInPieces(api, file, runName, setProgress, abort.signal) : await api['runs.import']({ text, name: runName });
      dialogRef.current?.close();
      onImported(run);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      abortRef.current = null;
      setBusy(null);
      setProgress(null);
    }
  };

  return (
    <>
      <button type="button" className="button small" data-testid="import-log-button" title="Make a run from a training log written elsewhere" onClick={open}>
        Import log
      </button>
      <dialog ref={dialogRef} className="dialog" aria-labelledby="import-log-title">
        <form className="form" onSubmit={(event) => void submit(event)}>
          <h3 id="import-log-title">Import a training log</h3>
          <p className="hint">The log is parsed like a run’s output: its metrics, summary and failure class are worked out and stored as a new run.</p>
          <label className="field">
            <span className="label">Log file</span>
            <input
              ref={fileInputRef}
              type="file"
              data-testid="import-file"
              accept=".log,.txt,.out,.err,text/plain"
              onChange={(event) => void chooseFile(event)}
            />
            {file ? (
              <span className="hint file-chosen" data-testid="import-file-info">
                {file.name}, {formatBytes(file.size)}{' '}
                <button type="button" className="link-button" onClick={clearFile} disabled={busy !== null}>
                  clear
                </button>
              </span>
            ) : (
              <span className="hint">
                Up to {formatBytes(MAX_IMPORT_FILE_BYTES)}, sent in pieces with its progress shown. From a shell: <code>tuning-bench import FILE</code>.
              </span>
            )}
          </label>
          <label className="field">
            <span className="label">…or paste the log</span>
            <textarea
              data-testid="import-text"
              rows={8}
              spellCheck={false}
              disabled={file !== null}
              placeholder={file ? `Importing ${file.name}` : 'iter 10: loss 2.4049, time 929.71ms, mfu 16.59%'}
              value={file ? '' : text}
              onChange={(event) => setText(event.target.value)}
            />
          </label>
          <label className="field">
            <span className="label">Name</span>
            <input data-testid="import-name" placeholder="imported log" maxLength={120} value={name} onChange={(event) => setName(event.target.value)} />
          </label>
          {error && (
            <p className="form-error" role="alert" data-testid="import-error">
              {error}
            </p>
          )}
          {busy === 'importing' && (
            <ProgressBar
              label={file ? `Importing ${file.name}` : 'Importing the pasted log'}
              testId="import-progress"
              {...(progress ? { value: progress.sentBytes, max: progress.totalBytes, unit: 'bytes' as const } : {})}
              detail={progress && progress.sentBytes >= progress.totalBytes ? 'Parsed; making the summary…' : null}
            />
          )}
          <div className="actions">
            <button type="submit" className="button primary" data-testid="import-submit" disabled={busy !== null}>
              {busy === 'importing' ? 'Importing…' : 'Import'}
            </button>
            <button
              type="button"
              className="button"
              data-testid="import-cancel"
              onClick={() => {
                // Under way: stopped, and the engine removes what it had stored; else the dialog just closes.
                if (abortRef.current) abortRef.current.abort();
                else dialogRef.current?.close();
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
