// Before/after a code change: a command and the repository it runs in, two of its commits (or the working tree
// against HEAD), repeats; run as a sweep over `git=` (each side in its own worktree, repeats interleaved), then the
// comparison, with the code diff between the two one click away.
import { useEffect, useState, type FormEvent } from 'react';
import type { GitRevisions } from '../../../electron/shared/api.js';
import { adHocWorkload } from '../../../electron/shared/typedCommand.js';
import { useBridge } from '../bridge/context.js';
import { compareRoute } from '../compare/compareRoute.js';
import { errorMessage, formatDateTime } from '../shared/format.js';
import { revisionLabel, WORKTREE } from '../compare/revisionText.js';
import { useView, viewHash } from '../route.js';
import { parseStepLimit } from '../runs/stepLimit.js';
import { useSweep, useSweepStore } from './sweepStore.js';
import { isActive } from './sweepText.js';
import { RevisionDiff } from '../compare/RevisionDiff.js';
import { SweepProgressBar } from './SweepStatus.js';
import './sweeps.css';

/** Commits offered: a before/after is about recent work, and a longer list is hard to pick from. */
const COMMITS_LISTED = 30;
/** How a commit is named in the sweep's configs and the comparison's rows. */
const SHORT_COMMIT_CHARS = 12;
/** The contract's bound on repeats (electron/shared/api.ts sweepRequest). */
const MAX_REPEATS = 50;

type Loaded = { cwd: string; revisions: GitRevisions } | null;

/** The usual question first: uncommitted work against HEAD; on a clean tree, the last commit against the one before. */
function defaultSides(revisions: GitRevisions): { before: string; after: string } {
  const [head, previous] = revisions.commits;
  if (revisions.dirty && head) return { before: head.sha, after: WORKTREE };
  return { before: previous?.sha ?? head?.sha ?? '', after: head?.sha ?? '' };
}

export function BeforeAfter() {
  const { api } = useBridge();
  const store = useSweepStore();
  const [script, setScript] = useState('');
  const [cwd, setCwd] = useState('');
  const [loaded, setLoaded] = useState<Loaded>(null);
  const [listing, setListing] = useState(false);
  const [listError, setListError] = useState<string | null>(null);
  const [before, setBefore] = useState('');
  const [after, setAfter] = useState('');
  const [repeats, setRepeats] = useState('3');
  const [maxSteps, setMaxSteps] = useState('');
  const [waitForIdle, setWaitForIdle] = useState(true);
  const [workKind, setWorkKind] = useState<'none' | 'samples' | 'tokens'>('none');
  const [work, setWork] = useState('');
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  const [startedId, setStartedId] = useState<number | null>(null);

  const listCommits = async () => {
    const dir = cwd.trim();
    setListing(true);
    setListError(null);
    try {
      const revisions = await api['git.revisions']({ cwd: dir, limit: COMMITS_LISTED });
      if (revisions.commits.length === 0) throw new Error(`${revisions.root} has no commits yet: commit once, then compare your changes against it`);
      setLoaded({ cwd: dir, revisions });
      const sides = defaultSides(revisions);
      setBefore(sides.before);
      setAfter(sides.after);
    } catch (error) {
      setLoaded(null);
      setListError(errorMessage(error));
    } finally {
      setListing(false);
    }
  };

  const current = loaded !== null && loaded.cwd === cwd.trim();
  const placeholders = script.trim() === '' ? [] : adHocWorkload({ template: [script.trim()], mode: 'shell', cwd: cwd.trim() || '/' }).variables.map((v) => v.name);
  const problem =
    script.trim() === ''
      ? 'type the command to measure'
      : placeholders.length > 0
        ? `a before/after runs the command as typed: write the values in place of ${placeholders.map((name) => `{${name}}`).join(', ')}`
        : !current
          ? 'list the commits of the directory the command runs in'
          : before === after
            ? 'choose two different sides'
            : null;

  const start = async (event: FormEvent) => {
    event.preventDefault();
    if (problem !== null || !loaded) return;
    const repeatCount = Number(repeats.trim());
    if (!Number.isInteger(repeatCount) || repeatCount < 1 || repeatCount > MAX_REPEATS) {
      setStartError(`Repeats: give a whole number from 1 to ${MAX_REPEATS}`);
      return;
    }
    const steps = parseStepLimit(maxSteps);
    if (!steps.ok) {
      setStartError(steps.error);
      return;
    }
    const perStep = work.trim();
    if (workKind !== 'none' && !/^\d+(\.\d+)?$/u.test(perStep)) {
      setStartError(`Work per step: give the ${workKind} one step holds, a number`);
      return;
    }
    setStarting(true);
    setStartError(null);
    try {
      const sweep = await api['sweeps.start']({
        command: { template: [script.trim()], mode: 'shell', cwd: loaded.cwd },
        name: `before/after: ${revisionLabel(before)} → ${revisionLabel(after)}`,
        // The baseline is the first value: "before". Commits by 12 hex digits, as git's own long form for people:
        // unambiguous in any real repository, and a config name that fits a table column.
        vary: [{ name: 'git', values: [before, after].map((side) => (side === WORKTREE ? side : side.slice(0, SHORT_COMMIT_CHARS))) }],
        plan: 'one-at-a-time',
        repeats: repeatCount,
        waitForIdle,
        ...(steps.steps !== undefined ? { maxSteps: steps.steps } : {}),
        ...(workKind === 'tokens' ? { tokensPerStep: perStep } : workKind === 'samples' ? { samplesPerStep: perStep } : {}),
      });
      store.adopt(sweep);
      setStartedId(sweep.id);
    } catch (error) {
      setStartError(errorMessage(error));
    } finally {
      setStarting(false);
    }
  };

  if (startedId !== null) return <BeforeAfterRunning id={startedId} />;

  const commits = loaded?.revisions.commits ?? [];
  const sideOptions = (
    <>
      {loaded?.revisions.dirty && <option value={WORKTREE}>working tree (uncommitted changes)</option>}
      {commits.map((commit, index) => (
        <option key={commit.sha} value={commit.sha}>
          {commit.sha.slice(0, 7)} {commit.subject}
          {index === 0 ? ' (HEAD)' : ''} · {formatDateTime(commit.date)}
        </option>
      ))}
    </>
  );

  return (
    <section className="before-after" aria-label="Before/after a code change">
      <header className="view-header">
        <h2>Before/after a code change</h2>
        <span className="hint">Two versions of your code, the same command, repeats interleaved: did the change make training faster?</span>
      </header>
      <form className="card form" onSubmit={(event) => void start(event)}>
        <label className="field">
          <span className="label">Command</span>
          <textarea
            className="mono"
            data-testid="ba-command"
            rows={2}
            spellCheck={false}
            placeholder="python train.py --batch_size 8"
            value={script}
            onChange={(event) => setScript(event.target.value)}
          />
          <span className="hint">
            Run with <code>/bin/sh -c</code> in each version&apos;s own temporary git worktree (a commit) or in your tree as it is (the working
            tree). Your tree and its index are never written.
          </span>
        </label>
        <div className="field-row ba-cwd">
          <label className="field">
            <span className="label">Directory in the repository</span>
            <input
              className="mono"
              data-testid="ba-cwd"
              placeholder="/home/me/project"
              value={cwd}
              onChange={(event) => setCwd(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') {
                  event.preventDefault();
                  void listCommits();
                }
              }}
            />
          </label>
          <button type="button" className="button" data-testid="ba-list-commits" disabled={cwd.trim() === '' || listing} onClick={() => void listCommits()}>
            {listing ? 'Listing…' : 'List commits'}
          </button>
        </div>
        {listError && (
          <p className="inline-error" role="alert" data-testid="ba-git-error">
            {listError}
          </p>
        )}

        {loaded && current && (
          <>
            <p className="hint" data-testid="ba-repository">
              {loaded.revisions.root} · {loaded.revisions.branch ?? 'detached HEAD'} ·{' '}
              {loaded.revisions.dirty ? 'uncommitted changes in the working tree' : 'working tree clean'}
            </p>
            <div className="field-row">
              <label className="field">
                <span className="label">Before (the baseline)</span>
                <select className="mono" data-testid="ba-before" value={before} onChange={(event) => setBefore(event.target.value)}>
                  {sideOptions}
                </select>
              </label>
              <label className="field">
                <span className="label">After</span>
                <select className="mono" data-testid="ba-after" value={after} onChange={(event) => setAfter(event.target.value)}>
                  {sideOptions}
                </select>
              </label>
            </div>
            {before !== after && <RevisionDiff key={`${before}..${after}`} cwd={loaded.cwd} from={before} to={after} />}
          </>
        )}

        <div className="field-row sweep-limits">
          <label className="field">
            <span className="label">Repeats</span>
            <span className="input-with-unit">
              <input data-testid="ba-repeats" inputMode="numeric" value={repeats} onChange={(event) => setRepeats(event.target.value)} />
              <span className="unit">runs of each side</span>
            </span>
          </label>
          <label className="field">
            <span className="label">Stop each run after</span>
            <span className="input-with-unit">
              <input data-testid="ba-max-steps" inputMode="numeric" placeholder="none" value={maxSteps} onChange={(event) => setMaxSteps(event.target.value)} />
              <span className="unit">steps</span>
            </span>
          </label>
        </div>
        <div className="sweep-work">
          <label className="field">
            <span className="label">Work per step</span>
            <select data-testid="ba-work-kind" value={workKind} onChange={(event) => setWorkKind(event.target.value as 'none' | 'samples' | 'tokens')}>
              <option value="none">not given (steps/s)</option>
              <option value="samples">samples per step</option>
              <option value="tokens">tokens per step</option>
            </select>
          </label>
          <label className="field">
            <span className="label">How many</span>
            <input data-testid="ba-work" inputMode="numeric" placeholder="e.g. 16" value={work} disabled={workKind === 'none'} onChange={(event) => setWork(event.target.value)} />
          </label>
          <span className="hint">
            What one step holds on both sides, so throughput reads per sample or per token. A change that alters it (the batch, the sequence length) is
            judged fairly only when the script prints its own tokens per step (“tokens per iteration will be: 8,192”, as nanoGPT does): that wins.
          </span>
        </div>
        <label className="checkbox">
          <input type="checkbox" data-testid="ba-wait" checked={waitForIdle} onChange={(event) => setWaitForIdle(event.target.checked)} />
          Before each run, wait for a quiet host and an idle, cool GPU (at most 120 s)
        </label>

        <div className="actions">
          <button type="submit" className="button primary" data-testid="ba-start" disabled={problem !== null || starting}>
            {starting ? 'Starting…' : `▶ Run before/after (${Number(repeats) > 0 ? 2 * Number(repeats) : '?'} runs)`}
          </button>
          {problem && (
            <span className="hint actions-note" data-testid="ba-start-note">
              {problem[0]!.toUpperCase() + problem.slice(1)}.
            </span>
          )}
        </div>
        {startError && (
          <p className="form-error" role="alert" data-testid="ba-start-error">
            {startError}
          </p>
        )}
      </form>
    </section>
  );
}

/** The before/after under way; when it has run, the comparison (where the code diff is one click away). */
function BeforeAfterRunning({ id }: { id: number }) {
  const { sweep } = useSweep(id);
  const [, navigate] = useView();
  const ended = sweep !== null && !isActive(sweep);
  const succeeded = sweep?.status === 'succeeded';
  useEffect(() => {
    if (succeeded) navigate(compareRoute({ sweepIds: [id] }));
  }, [succeeded, id, navigate]);
  return (
    <section className="before-after" aria-label="Before/after under way">
      <header className="view-header">
        <h2>Before/after {sweep ? `· ${sweep.name}` : ''}</h2>
      </header>
      <div className="card">
        {sweep && <SweepProgressBar sweep={sweep} />}
        <p className="hint" data-testid="ba-running">
          {ended
            ? `It ended ${sweep.status}: nothing to compare.`
            : 'Running each side in turn; the comparison opens when both have run.'}{' '}
          <a href={viewHash({ kind: 'sweep', id })}>Open sweep #{id}</a> for its runs and controls.
        </p>
      </div>
    </section>
  );
}
