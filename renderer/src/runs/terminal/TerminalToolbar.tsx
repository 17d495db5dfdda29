// The bar above a run's terminal: search, copy, the timestamps view, and downloads of the whole log.
import { useState } from 'react';
import type { LogFormat } from '../../../../electron/shared/api.js';
import { useBridge } from '../../bridge/context.js';
import { errorMessage } from '../../shared/format.js';
import { saveRunLog } from '../../shared/saveLog.js';
import { TerminalSearch, type SearchDirection, type SearchResults } from './TerminalSearch.js';
import './terminal.css';

import type { CopyStatus } from '../../shared/copyStatus.js';

interface TerminalToolbarProps {
  runId: number;
  searchResults: SearchResults | null;
  searchFocusRequest: number;
  onFind: (query: string, direction: SearchDirection, incremental: boolean) => void;
  onClearSearch: () => void;
  onLeaveSearch: () => void;
  copyStatus: CopyStatus;
  onCopy: () => void;
  timestamps: boolean;
  onTimestampsChange: (on: boolean) => void;
}

const COPY_LABELS: Record<CopyStatus, string> = { idle: 'Copy', copied: 'Copied ✓', failed: 'Copy failed' };

type SaveNote = { ok: boolean; text: string } | null;

export function TerminalToolbar(props: TerminalToolbarProps) {
  const { api } = useBridge();
  const [saving, setSaving] = useState<LogFormat | null>(null);
  const [saveNote, setSaveNote] = useState<SaveNote>(null);

  const save = async (format: LogFormat) => {
    setSaving(format);
    setSaveNote(null);
    try {
      const text = await saveRunLog(api, props.runId, format);
      setSaveNote(text === null ? null : { ok: true, text });
    } catch (error) {
      setSaveNote({ ok: false, text: `Could not save the log: ${errorMessage(error)}` });
    } finally {
      setSaving(null);
    }
  };

  return (
    <div className="terminal-toolbar" role="toolbar" aria-label="Terminal">
      <TerminalSearch
        results={props.searchResults}
        focusRequest={props.searchFocusRequest}
        onFind={props.onFind}
        onClear={props.onClearSearch}
        onLeave={props.onLeaveSearch}
      />
      <span className="spacer" />
      {saveNote && (
        <span className={`save-result ${saveNote.ok ? '' : 'failed'}`} data-testid="save-result" role={saveNote.ok ? 'status' : 'alert'} title={saveNote.text}>
          {saveNote.text}
        </span>
      )}
      <button
        type="button"
        className="button small toggle"
        data-testid="timestamps-toggle"
        aria-pressed={props.timestamps}
        title="Show when each line was written, in seconds since the run started"
        onClick={() => props.onTimestampsChange(!props.timestamps)}
      >
        Timestamps
      </button>
      <button
        type="button"
        className={`button small copy-${props.copyStatus}`}
        data-testid="copy-output"
        title="Copy the selection, or with none, the text on screen (Ctrl+Shift+C copies the selection)"
        onClick={props.onCopy}
      >
        {COPY_LABELS[props.copyStatus]}
      </button>
      <span className="button-group" role="group" aria-label="Download the whole log">
        <button
          type="button"
          className="button small"
          data-testid="download-plain"
          title="The whole log as text: colours stripped, progress bars collapsed to their last state"
          disabled={saving !== null}
          onClick={() => void save('plain')}
        >
          ⤓ Text log
        </button>
        <button
          type="button"
          className="button small"
          data-testid="download-raw"
          title="The whole log exactly as the program wrote it, escape codes and all"
          disabled={saving !== null}
          onClick={() => void save('raw')}
        >
          ⤓ Raw
        </button>
      </span>
    </div>
  );
}
