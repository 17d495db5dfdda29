// Before/after a code change: a command and the repository it runs in, any two revisions (a branch, a tag, a commit,
// any revision typed, or the working tree), the data git does not track to link into each side's worktree, repeats;
// run as a sweep over `git=` (each side in its own worktree, repeats interleaved), then the comparison, with the code
// diff between the two one click away; a failed side says why.
import { WorkKindOptions, type WorkKind } from '../shared/runForm/WorkKindOptions.js';
import { useEffect, useState, type FormEvent } from 'react';
import type { GitCommit, GitRevisions, GitUntrackedPath } from '../../../electron/shared/api.js';
import { adHocWorkload } from '../../../electron/shared/typedCommand.js';
import { useBridge } from '../bridge/context.js';
import { compareRoute } from '../shared/comparisons/compareRoute.js';
import { errorMessage, formatDateTime } from '../shared/format.js';
import { WORKTREE } from '../shared/comparisons/revisionText.js';
import { useView, viewHash } from '../route.js';
import { parseStepLimit } from '../shared/runForm/stepLimit.js';
import { useSweep, useSweepStore } from '../shared/sweepStore.js';
import { isActive } from './sweepText.js';
import { RevisionDiff } from '../shared/comparisons/RevisionDiff.js';
import { SweepProgress } from './SweepProgress.js';
import { SweepControls } from './SweepControls.js';
import { SweepFailures } from '../shared/comparisons/SweepFailures.js';
import { CommandInput, Field, NumberWithUnit } from '../shared/Field.js';
import './sweeps.css';

/** Commits offered from HEAD: a before/after is about recent work; older ones are typed (or picked by branch or tag). */
const COMMITS_LISTED = 30;
/** The contract's bound on repeats (electron/shared/api.ts sweepRequest). */
const MAX_REPEATS = 50;
/** The select's value for "a revision I type". */
const OTHER = '\u0000other';
/** Paths shown inside a tracked folder's offer before "and N more". */
const INSIDE_SHOWN = 3;

type Loaded = { cwd: string; revisions: GitRevisions } | null;

/** The usual question first: uncommitted work against HEAD; on a clean tree, the last commit against the one before. */
function defaultSides(revisions: GitRevisions): { before: string; after: string } {
  const [head, previous] = revisions.commits;
  if (revisions.dirty && head) return { before: head.sha, after: WORKTREE };
  return { before: previous?.sha ?? head?.sha ?? '', after: head?.sha ?? '' };
}

/** A side's commit as a person reads it: short SHA, subject, date. */
function commitText(commit: GitCommit): string {
  return `${commit.sha.slice(0, 7)} ${commit.subject} · ${formatDateTime(commit.date)}`;
}

/** The commit a side's value names, where the listing knows it (a typed one is resolved by the picker). */
function knownCommit(revisions: GitRevisions, value: string): GitCommit | null {
  return revisions.commits.find((c) => c.sha === value) ?? revisions.refs.find((r) => r.name === value)?.commit ?? null;
}

const KIND_TEXT: Record<GitUntrackedPath['kind'], string> = {
  ignored: 'ignored by git',
  untracked: 'untracked',
  'inside-tracked': 'a tracked folder: the files git does not track inside it are linked one by one',
};

/**
 * One side: a branch, tag or remote branch, a recent commit, the working tree, or any revision typed (resolved
 * to its commit as you leave the field); its commit shown under it with subject and date.
 */
function RevisionPicker({
  label,
  testId,
  cwd,
  revisions,
  value,
  onChange,
}: {
  label: string;
  testId: string;
  cwd: string;
  revisions: GitRevisions;
  value: string;
  onChange: (value: string) => void;
}) {
  const { api } = useBridge();
  const listed = value === WORKTREE || knownCommit(revisions, value) !== null;
  const [typing, setTyping] = useState(!listed);
  const [typed, setTyped] = useState(listed ? '' : value);
  const [resolved, setResolved] = useState<{ value: string; text: string; ok: boolean } | null>(null);
  const resolve = async (text: string) => {
    const revision = text.trim();
    onChange(revision);
    if (revision === '') return setResolved(null);
    try {
      const answer = await api['git.resolve']({ cwd, revision });
      setResolved({ value: revision, text: commitText(answer.commit), ok: true });
    } catch (error) {
      setResolved({ value: revision, text: errorMessage(error), ok: false });
    }
  };
  const branches = revisions.refs.filter((r) => r.kind === 'branch');
  const tags = revisions.refs.filter((r) => r.kind === 'tag');
  const remotes = revisions.refs.filter((r) => r.kind === 'remote');
  const head = revisions.commits[0];
  const known = knownCommit(revisions, value);
  const described =
    value === WORKTREE
      ? `your tree as it is when the run starts: uncommitted changes on ${head ? commitText(head) : 'HEAD'}`
      : known
        ? commitText(known)
        : resolved?.value === value
          ? resolved.text
          : '';
  return (
    <label className="field">
      <span className="label">{label}</span>
      <select
        className="mono"
        data-testid={testId}
        value={typing ? OTHER : value}
        onChange={(event) => {
          if (event.target.value === OTHER) {
            setTyping(true);
            onChange(typed.trim());
            return;
          }
          setTyping(false);
          onChange(event.target.value);
        }}
      >
        {revisions.dirty && (
          <optgroup label="Your tree">
            <option value={WORKTREE}>working tree (uncommitted changes)</option>
          </optgroup>
        )}
        {branches.length > 0 && (
          <optgroup label="Branches">
            {branches.map((ref) => (
              <option key={`b-${ref.name}`} value={ref.name}>
                {ref.name} · {ref.commit.sha.slice(0, 7)} {ref.commit.subject}
              </option>
            ))}
          </optgroup>
        )}
        {tags.length > 0 && (
          <optgroup label="Tags">
            {tags.map((ref) => (
              <option key={`t-${ref.name}`} value={ref.name}>
                {ref.name} · {ref.commit.sha.slice(0, 7)} {ref.commit.subject}
              </option>
            ))}
          </optgroup>
        )}
        {remotes.length > 0 && (
          <optgroup label="Remote branches">
            {remotes.map((ref) => (
              <option key={`r-${ref.name}`} value={ref.name}>
                {ref.name} · {ref.commit.sha.slice(0, 7)} {ref.commit.subject}
              </option>
            ))}
          </optgroup>
        )}
        <optgroup label={`Recent commits on ${revisions.branch ?? 'HEAD'}`}>
          {revisions.commits.map((commit, index) => (
            <option key={commit.sha} value={commit.sha}>
              {commit.sha.slice(0, 7)} {commit.subject}
              {index === 0 ? ' (HEAD)' : ''} · {formatDateTime(commit.date)}
            </option>
          ))}
        </optgroup>
        <option value={OTHER}>Another revision (type it)…</option>
      </select>
      {typing && (
        <input
          className="mono"
          data-testid={`${testId}-typed`}
          placeholder="a commit, branch, tag, HEAD~3…"
          value={typed}
          onChange={(event) => {
            setTyped(event.target.value);
            onChange(event.target.value.trim());
          }}
          onBlur={() => void resolve(typed)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              void resolve(typed);
            }
          }}
        />
      )}
      <span className={`hint ba-side-label${resolved && !resolved.ok && resolved.value === value ? ' inline-error' : ''}`} data-testid={`${testId}-label`}>
        {described || (typing ? 'type a revision, then leave the field to see its commit' : '')}
      </span>
    </label>
  );
}

/** The paths git does not track, each a checkbox: ticked ones are linked into every side's worktree. */
function DataLinks({
  untracked,
  chosen,
  onChange,
}: {
  untracked: readonly GitUntrackedPath[];
  chosen: ReadonlySet<string>;
  onChange: (next: Set<string>) => void;
}) {
  return (
    <fieldset className="ba-data" data-testid="ba-data">
      <legend>Data git does not track</legend>
      <span className="hint">
        Each side runs in a temporary worktree that holds only what git tracks. Tick what the script reads (datasets, tokenizers): it is linked in from your
        tree, never over a file the revision tracks.
      </span>
      {untracked.length === 0 && <span className="hint">Nothing untracked or ignored: each worktree has everything the script can read.</span>}
      {untracked.map((offer) => {
        const shown = offer.inside.slice(0, INSIDE_SHOWN).join(', ');
        const more = offer.insideCount - Math.min(offer.insideCount, INSIDE_SHOWN);
        return (
          <label key={offer.path} className="checkbox" title={offer.inside.join('\n') || undefined}>
            <input
              type="checkbox"
              data-testid={`ba-link-${offer.path}`}
              checked={chosen.has(offer.path)}
              onChange={(event) => {
                const next = new Set(chosen);
                if (event.target.checked) next.add(offer.path);
                else next.delete(offer.path);
                onChange(next);
              }}
            />
            <code>{offer.path}</code>
            <span className="hint">
              {KIND_TEXT[offer.kind]}
              {offer.kind === 'inside-tracked' && shown ? `: ${shown}${more > 0 ? ` and ${more} more` : ''}` : ''}
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}

export function BeforeAfter() {
  const { api } = useBridge();
  const store = useSweepStore();
  const [script, setScript] = useState('');
  const [cwd, setCwd] = useState('');
  const [loaded, setLoaded] = useState<Loaded>(null);
  /** Bumped at each listing: the side pickers start afresh from the new list. */
  const [listings, setListings] = useState(0);
  const [listing, setListing] = useState(false);
  const [listError, setListError] = useState<string | null>(null);
  const [before, setBefore] = useState('');
  const [after, setAfter] = useState('');
  const [repeats, setRepeats] = useState('3');
  const [maxSteps, setMaxSteps] = useState('');
  const [waitForIdle, setWaitForIdle] = useState(true);
  const [workKind, setWorkKind] = useState<WorkKind>('none');
  const [work, setWork] = useState('');
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  const [startedId, setStartedId] = useState<number | null>(null);
  /** Untracked and ignored paths to link into each worktree (the likely data ticked when the commits are listed). */
  const [links, setLinks] = useState<Set<string>>(new Set());

  const listCommits = async () => {
    const dir = cwd.trim();
    setListing(true);
    setListError(null);
    try {
      const revisions = await api['git.revisions']({ cwd: dir, limit: COMMITS_LISTED });
      if (revisions.commits.length === 0) throw new Error(`${revisions.root} has no commits yet: commit once, then compare your changes against it`);
      setLoaded({ cwd: dir, revisions });
      setListings((n) => n + 1);
      setLinks(new Set(revisions.untracked.filter((offer) => offer.suggested).map((offer) => offer.path)));
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
  const placeholders =
    script.trim() === '' ? [] : adHocWorkload({ template: [script.trim()], mode: 'shell', cwd: cwd.trim() || '/' }).variables.map((v) => v.name);
  const problem =
    script.trim() === ''
      ? 'type the command to measure'
      : placeholders.length > 0
        ? `a before/after runs the command as typed: write the values in place of ${placeholders.map((name) => `{${name}}`).join(', ')}`
        : !current
          ? 'list the commits of the directory the command runs in'
          : before === '' || after === ''
            ? 'choose both sides'
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
        // The baseline is the first value: "before". The engine resolves each to its commit as the sweep starts and
        // names the sweep and its sides by short SHA and subject.
        vary: [{ name: 'git', values: [before, after] }],
        links: [...links].map((link) => link.replace(/\/$/u, '')),
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

  return (
    <section className="before-after" aria-label="Before/after a code change">
      <header className="view-header">
        <h2>Before/after a code change</h2>
        <span className="hint">Two versions of your code, the same command, repeats interleaved: did the change make training faster?</span>
      </header>
      <form className="card form" onSubmit={(event) => void start(event)}>
        <Field
          label="Command"
          hint={
            <>
              Run with <code>/bin/sh -c</code> in each side&apos;s own temporary git worktree: a revision&apos;s, or a snapshot of your working tree taken when
              the run starts (later edits do not reach it). Your tree and its index are never written.
            </>
          }
        >
          <CommandInput testId="ba-command" rows={2} placeholder="python train.py --batch_size 8" value={script} onChange={setScript} />
        </Field>
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
            <div className="field-row ba-side">
              <RevisionPicker
                key={`before-${listings}`}
                label="Before (the baseline)"
                testId="ba-before"
                cwd={loaded.cwd}
                revisions={loaded.revisions}
                value={before}
                onChange={setBefore}
              />
              <RevisionPicker
                key={`after-${listings}`}
                label="After"
                testId="ba-after"
                cwd={loaded.cwd}
                revisions={loaded.revisions}
                value={after}
                onChange={setAfter}
              />
            </div>
            {before !== after && before !== '' && after !== '' && <RevisionDiff key={`${before}..${after}`} cwd={loaded.cwd} from={before} to={after} />}
            <DataLinks untracked={loaded.revisions.untracked} chosen={links} onChange={setLinks} />
          </>
        )}

        <div className="field-row sweep-limits">
          <Field label="Repeats">
            <NumberWithUnit testId="ba-repeats" unit="runs of each side" value={repeats} onChange={setRepeats} />
          </Field>
          <Field label="Stop each run after">
            <NumberWithUnit testId="ba-max-steps" unit="steps" placeholder="none" value={maxSteps} onChange={setMaxSteps} />
          </Field>
        </div>
        <div className="sweep-work">
          <label className="field">
            <span className="label">Work per step</span>
            <select data-testid="ba-work-kind" value={workKind} onChange={(event) => setWorkKind(event.target.value as WorkKind)}>
              <WorkKindOptions />
            </select>
          </label>
          <label className="field">
            <span className="label">How many</span>
            <input
              data-testid="ba-work"
              inputMode="numeric"
              placeholder="e.g. 16"
              value={work}
              disabled={workKind === 'none'}
              onChange={(event) => setWork(event.target.value)}
            />
          </label>
          <span className="hint">
            What one step holds on both sides, so throughput reads per sample or per token. A change that alters it (the batch, the sequence length) is judged
            fairly only when the script prints its own tokens per step (“tokens per iteration will be: 8,192”, as nanoGPT does): that wins.
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
        <h2>Before/after {sweep ? `· ${sweep.name.replace(/^before\/after: /u, '')}` : ''}</h2>
      </header>
      <div className="card before-after-progress">
        {sweep && (
          <div className="sweep-progress-block">
            <SweepProgress sweep={sweep} />
            <SweepControls sweep={sweep} />
          </div>
        )}
        <p className="hint" data-testid="ba-running">
          {ended ? `It ended ${sweep.status}: nothing to compare.` : 'Running each side in turn; the comparison opens when both have run.'}{' '}
          <a href={viewHash({ kind: 'sweep', id })}>Open sweep #{id}</a> for its runs and controls.
        </p>
        {sweep && <SweepFailures sweep={sweep} />}
      </div>
    </section>
  );
}
