// A run's notes and tags: shown and edited in place, in the runs table's cells and in the run view's header. Saved
// through runs.annotate; the engine's runs.onDidChange then brings the run back to every view that lists it.
import { useState, type KeyboardEvent } from 'react';
import type { Run } from '../../../../electron/shared/api.js';
import { useBridge } from '../../bridge/context.js';
import { errorMessage } from '../format.js';
import { parseTags, tagsText } from './runTags.js';
import './RunAnnotations.css';

type Patch = { notes?: string; tags?: string[] };

/** Saves a patch; null on success, else what went wrong, for a person to read. */
function useAnnotate(runId: number, onSaved?: (run: Run) => void): (patch: Patch) => Promise<string | null> {
  const { api } = useBridge();
  return async (patch) => {
    try {
      const saved = await api['runs.annotate']({ id: runId, ...patch });
      onSaved?.(saved);
      return null;
    } catch (error) {
      return errorMessage(error);
    }
  };
}

export function TagChips({ tags, testId }: { tags: readonly string[]; testId?: string }) {
  return (
    <span className="tag-chips" data-testid={testId}>
      {tags.map((tag) => (
        <span key={tag} className="tag-chip">
          {tag}
        </span>
      ))}
    </span>
  );
}

interface InlineEditorProps {
  run: Run;
  onSaved?: (run: Run) => void;
}

/** One line of text edited in place: Enter or Save keeps it, Escape or Cancel puts the old one back. */
function InlineEditor({
  label,
  initial,
  testId,
  placeholder,
  validate,
  save,
  onDone,
}: {
  label: string;
  initial: string;
  testId: string;
  placeholder: string;
  validate: (text: string) => string | null;
  save: (text: string) => Promise<string | null>;
  onDone: () => void;
}) {
  const [text, setText] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const invalid = validate(text);
  const submit = async () => {
    if (invalid !== null || busy) return;
    setBusy(true);
    const failure = await save(text);
    setBusy(false);
    if (failure === null) onDone();
    else setError(failure);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      void submit();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      onDone();
    }
  };
  const shown = invalid ?? error;
  return (
    <span className="inline-editor">
      <input
        type="text"
        aria-label={label}
        data-testid={testId}
        value={text}
        placeholder={placeholder}
        autoFocus
        aria-invalid={invalid !== null}
        onChange={(event) => {
          setText(event.target.value);
          setError(null);
        }}
        onKeyDown={onKeyDown}
      />
      <button type="button" className="button small" data-testid={`${testId}-save`} disabled={invalid !== null || busy} onClick={() => void submit()}>
        {busy ? 'Saving…' : 'Save'}
      </button>
      <button type="button" className="button small" onClick={onDone} title="Escape">
        Cancel
      </button>
      {shown && (
        <span className="field-error" role="alert">
          {shown}
        </span>
      )}
    </span>
  );
}

/** The table's tags cell: chips and a pencil; the pencil turns it into a comma-separated line. */
export function TagsCell({ run, onSaved }: InlineEditorProps) {
  const [editing, setEditing] = useState(false);
  const annotate = useAnnotate(run.id, onSaved);
  if (editing) {
    return (
      <InlineEditor
        label={`Tags of run ${run.id}, separated by commas`}
        initial={tagsText(run.tags)}
        testId={`tags-input-${run.id}`}
        placeholder="e.g. amp, baseline"
        validate={(text) => {
          const parsed = parseTags(text);
          return parsed.ok ? null : parsed.error;
        }}
        save={(text) => {
          const parsed = parseTags(text);
          return parsed.ok ? annotate({ tags: parsed.tags }) : Promise.resolve(parsed.error);
        }}
        onDone={() => setEditing(false)}
      />
    );
  }
  return (
    <span className="annotation-cell">
      <TagChips tags={run.tags} testId={`tags-${run.id}`} />
      <button
        type="button"
        className="edit-button"
        data-testid={`edit-tags-${run.id}`}
        aria-label={`Edit the tags of run ${run.id}`}
        title="Edit tags"
        onClick={() => setEditing(true)}
      >
        ✎
      </button>
    </span>
  );
}

/** The table's notes cell: the first line of the notes, the rest in its tooltip; one line to edit. */
export function NotesCell({ run, onSaved }: InlineEditorProps) {
  const [editing, setEditing] = useState(false);
  const annotate = useAnnotate(run.id, onSaved);
  if (editing) {
    return (
      <InlineEditor
        label={`Notes of run ${run.id}`}
        initial={run.notes}
        testId={`notes-input-${run.id}`}
        placeholder="what changed, what you saw"
        validate={(text) => (text.length > 10_000 ? 'at most 10,000 characters' : null)}
        save={(text) => annotate({ notes: text })}
        onDone={() => setEditing(false)}
      />
    );
  }
  return (
    <span className="annotation-cell">
      <span className="notes-text" data-testid={`notes-${run.id}`} title={run.notes || undefined}>
        {run.notes.split('\n')[0]}
      </span>
      <button
        type="button"
        className="edit-button"
        data-testid={`edit-notes-${run.id}`}
        aria-label={`Edit the notes of run ${run.id}`}
        title="Edit notes"
        onClick={() => setEditing(true)}
      >
        ✎
      </button>
    </span>
  );
}

/** The run view's notes and tags: read as they are, edited together (notes may span lines there). */
export function RunAnnotations({ run }: { run: Run }) {
  const [editing, setEditing] = useState(false);
  const [notes, setNotes] = useState(run.notes);
  const [tags, setTags] = useState(tagsText(run.tags));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const annotate = useAnnotate(run.id);
  const parsed = parseTags(tags);

  const edit = () => {
    setNotes(run.notes);
    setTags(tagsText(run.tags));
    setError(null);
    setEditing(true);
  };
  const save = async () => {
    if (!parsed.ok) return;
    setBusy(true);
    const failure = await annotate({ tags: parsed.tags, notes });
    setBusy(false);
    if (failure === null) setEditing(false);
    else setError(failure);
  };

  if (!editing) {
    const empty = run.notes === '' && run.tags.length === 0;
    // One line like the environment's and the GPU settings' above it, unless the notes themselves span lines.
    return (
      <div className="run-annotations" data-testid="run-annotations">
        <span className="fingerprint-title">Notes</span>
        {run.tags.length > 0 && <TagChips tags={run.tags} testId="run-tags" />}
        {run.notes !== '' && (
          <span className="run-notes" data-testid="run-notes">
            {run.notes}
          </span>
        )}
        {empty && <span className="hint">none yet: what changed, what you saw, and tags to find the run by</span>}
        <button type="button" className="link-button" data-testid="edit-annotations" onClick={edit}>
          {empty ? 'Add' : 'Edit'}
        </button>
      </div>
    );
  }
  return (
    <div className="run-annotations editing" data-testid="run-annotations">
      <label className="field">
        <span className="label">Tags</span>
        <input
          type="text"
          data-testid="run-tags-input"
          value={tags}
          placeholder="comma-separated: amp, baseline, rtx4090"
          aria-invalid={!parsed.ok}
          onChange={(event) => setTags(event.target.value)}
        />
        {!parsed.ok && (
          <span className="field-error" role="alert">
            {parsed.error}
          </span>
        )}
      </label>
      <label className="field">
        <span className="label">Notes</span>
        <textarea data-testid="run-notes-input" rows={3} maxLength={10_000} value={notes} onChange={(event) => setNotes(event.target.value)} />
      </label>
      <div className="actions">
        <button type="button" className="button primary small" data-testid="save-annotations" disabled={!parsed.ok || busy} onClick={() => void save()}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="button small" onClick={() => setEditing(false)}>
          Cancel
        </button>
        {error && (
          <span className="field-error" role="alert">
            {error}
          </span>
        )}
      </div>
    </div>
  );
}
