// The code change a before/after measured: the diff between two revisions of a repository (or the working tree), one click away.
import { useState } from 'react';
import type { GitRevisionDiff, Sweep } from '../../../../electron/shared/api.js';
import { useBridge } from '../../bridge/context.js';
import { errorMessage, formatBytes } from '../format.js';
import { revisionLabel } from './revisionText.js';
import './RevisionDiff.css';

type DiffState = { state: 'closed' } | { state: 'loading' } | { state: 'shown'; value: GitRevisionDiff } | { state: 'error'; error: string };

export function RevisionDiff({ cwd, from, to, fromLabel, toLabel }: { cwd: string; from: string; to: string; fromLabel?: string; toLabel?: string }) {
  const { api } = useBridge();
  const [diff, setDiff] = useState<DiffState>({ state: 'closed' });

  const toggle = async () => {
    if (diff.state === 'shown' || diff.state === 'error') return setDiff({ state: 'closed' });
    setDiff({ state: 'loading' });
    try {
      setDiff({ state: 'shown', value: await api['git.diff']({ cwd, from, to }) });
    } catch (error) {
      setDiff({ state: 'error', error: errorMessage(error) });
    }
  };

  return (
    <div className="revision-diff" data-testid="revision-diff">
      <button type="button" className="button small" data-testid="show-revision-diff" onClick={() => void toggle()}>
        {diff.state === 'shown' ? 'Hide the code diff' : `Code diff: ${fromLabel ?? revisionLabel(from)} → ${toLabel ?? revisionLabel(to)}`}
      </button>
      {diff.state === 'loading' && <p className="hint">Loading the diff…</p>}
      {diff.state === 'error' && (
        <p className="inline-error" role="alert" data-testid="revision-diff-error">
          {diff.error}
        </p>
      )}
      {diff.state === 'shown' && (
        <>
          <p className="hint" data-testid="revision-diff-facts">
            {diff.value.root}: {sideText(diff.value.from)} → {sideText(diff.value.to)}, {formatBytes(diff.value.bytes)}
            {diff.value.truncated ? '; only its beginning is shown (run git diff for all of it)' : ''}
          </p>
          {diff.value.diff === '' ? (
            <p className="hint">No difference in the code: the two sides are the same tree.</p>
          ) : (
            <pre className="code-diff mono" data-testid="revision-diff-text">
              {diff.value.diff}
            </pre>
          )}
        </>
      )}
    </div>
  );
}

/** A side as given, and the commit it named when the name was not already the commit (a branch, HEAD~1). */
function sideText(side: GitRevisionDiff['from']): string {
  const label = revisionLabel(side.value);
  return side.commit === null || side.commit.startsWith(side.value) ? label : `${label} (${side.commit.slice(0, 12)})`;
}

/**
 * A `git=` sweep's code change: its baseline revision against each other revision, as they ran (each revision's
 * commit as resolved when the sweep started, the working tree's snapshot), not as your tree is now.
 */
export function SweepRevisionDiffs({ sweep }: { sweep: Sweep }) {
  const { git } = sweep;
  if (!git || git.revisions.length < 2) return null;
  const sides =
    git.sides.length === git.revisions.length
      ? git.sides.map((side) => ({ value: side.snapshot ?? side.commit, label: side.label }))
      : git.revisions.map((value) => ({ value, label: revisionLabel(value) }));
  const [baseline, ...others] = sides;
  return (
    <div className="sweep-revision-diffs" data-testid="sweep-revision-diffs">
      {others.map((side) => (
        <RevisionDiff key={side.value} cwd={git.cwd} from={baseline!.value} to={side.value} fromLabel={baseline!.label} toLabel={side.label} />
      ))}
      {git.links.length > 0 && (
        <p className="hint" data-testid="sweep-links">
          Linked into each worktree from your tree: {git.links.join(', ')}
        </p>
      )}
    </div>
  );
}
