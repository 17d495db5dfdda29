// The code a run ran: its git commit and branch, and its uncommitted changes one click away.
import { useState } from 'react';
import type { Run } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage, formatBytes } from '../shared/format.js';
import './RunView.css';

type DiffState =
  { state: 'closed' } | { state: 'loading' } | { state: 'shown'; diff: string | null; reason: string | null } | { state: 'error'; error: string };

export function RunCode({ run }: { run: Run }) {
  const { api } = useBridge();
  const [diff, setDiff] = useState<DiffState>({ state: 'closed' });
  const { git } = run;
  if (!git) return null;

  const toggle = async () => {
    if (diff.state === 'shown' || diff.state === 'error') return setDiff({ state: 'closed' });
    setDiff({ state: 'loading' });
    try {
      const answer = await api['runs.codeDiff']({ id: run.id });
      setDiff({ state: 'shown', diff: answer.diff, reason: answer.reason });
    } catch (error) {
      setDiff({ state: 'error', error: errorMessage(error) });
    }
  };

  return (
    <div className="run-code" data-testid="run-code">
      <span className="label">Code</span>{' '}
      <span className="mono" title={git.root}>
        {git.branch ?? 'detached HEAD'} @ {git.commit?.slice(0, 12) ?? 'no commit yet'}
      </span>
      {git.dirty ? (
        <>
          {' '}
          <span className="code-dirty">+ uncommitted changes ({formatBytes(git.diffBytes)})</span>{' '}
          <button type="button" className="button small" data-testid="show-diff" onClick={() => void toggle()}>
            {diff.state === 'shown' ? 'Hide diff' : 'Show diff'}
          </button>
        </>
      ) : (
        <span className="hint"> clean: the commit is exactly what ran</span>
      )}
      {run.checkout && (
        <p className="hint" data-testid="run-checkout">
          Ran in a temporary worktree of {run.checkout.revision === 'WORKTREE' ? 'your working tree' : run.checkout.revision} (
          {run.checkout.snapshot
            ? `a snapshot of its uncommitted changes on ${run.checkout.commit.slice(0, 7)}, taken as the sweep started`
            : run.checkout.commit.slice(0, 12)}
          ), from {run.checkout.root}.{' '}
          {run.checkout.links.length > 0 ? `Linked from your tree: ${run.checkout.links.join(', ')}.` : 'Nothing linked from your tree.'}
          {run.checkout.notLinked.map((n) => ` Not linked: ${n.path} (${n.reason}).`).join('')}
          {run.checkout.missing.length > 0 ? ` It lacked ${run.checkout.missing.join(', ')}, which your tree has.` : ''}
        </p>
      )}
      {diff.state === 'loading' && <p className="hint">Loading the diff…</p>}
      {diff.state === 'error' && <p className="inline-error">{diff.error}</p>}
      {diff.state === 'shown' &&
        (diff.diff === null ? (
          <p className="hint">{diff.reason}</p>
        ) : (
          <pre className="code-diff mono" data-testid="code-diff">
            {diff.diff}
          </pre>
        ))}
    </div>
  );
}
