// Which runs form one row of a comparison (its repeats, pooled): the same config of one sweep, or the same command
// and config run in the same place on the same machine; and always the same code. Runs of different code, directories or commands are
// never pooled as if they were repeats; rows that would read alike are told apart by what differs.
import type { Run } from '../../shared/api.js';
import { machineKey } from './machines.js';

/** A commit's name as git shortens it; an uncommitted diff's hash by as many characters as compare's flags use. */
const SHORT_SHA_CHARS = 7;
const SHORT_DIFF_CHARS = 8;
/** A command in a row's name: enough to recognise it in a table cell. */
const COMMAND_CHARS = 60;

/** The code a run ran: its commit and the hash of its uncommitted changes (none outside git). */
function codeKey(run: Run): string {
  if (!run.git) return 'no git';
  return `${run.git.commit ?? 'no commit'}${run.git.dirty ? `+${run.git.diffSha256 ?? 'unknown diff'}` : ''}`;
}

/**
 * Where a run ran: its directory; for a before/after side, its repository and the directory in it (a side made
 * again to profile it runs in another temporary folder, but in the same place of the same code).
 */
function placeKey(run: Run): string {
  return run.checkout ? `${run.checkout.root}//${run.checkout.relativeCwd}` : run.cwd;
}

function placeText(run: Run): string {
  return run.checkout ? `${run.checkout.root}${run.checkout.relativeCwd ? `/${run.checkout.relativeCwd}` : ''}` : run.cwd;
}

function codeText(run: Run): string {
  if (!run.git) return 'not in git';
  const commit = run.git.commit?.slice(0, SHORT_SHA_CHARS) ?? 'no commit';
  return run.git.dirty ? `${commit} + uncommitted ${run.git.diffSha256?.slice(0, SHORT_DIFF_CHARS) ?? '?'}` : commit;
}

/** A run's command as a row shows it. */
export function commandText(command: readonly string[]): string {
  const text = command.join(' ');
  return text.length > COMMAND_CHARS ? `${text.slice(0, COMMAND_CHARS - 1)}…` : text;
}

/**
 * The row a run belongs to, grouped by config. A sweep's config pools its repeats (their commands differ by the seed
 * each repeat gets); other runs pool only with runs of the same workload or command, config and place. Either way,
 * only runs of the same code.
 */
export function rowKey(run: Run): string {
  const code = codeKey(run);
  if (run.sweepId !== null && run.configIndex !== null) return `sweep ${run.sweepId} config ${run.configIndex} code ${code}`;
  const config = Object.entries(run.config).sort(([a], [b]) => a.localeCompare(b));
  // Runs from two machines (one pulled back from MLflow) are never pooled, however alike their configs.
  return JSON.stringify([run.workloadName ?? '', run.command, placeKey(run), config, code, machineKey(run)]);
}

/**
 * What tells apart rows whose names are the same (`names[i]` is row i's, `firstRuns[i]` its first run): the first of
 * ` (sweep N)`, ` (in DIR)`, ` (code SHA)` or the command that differs within its group of namesakes; `''` for a row
 * whose name is its own.
 */
export function rowDistinctions(firstRuns: readonly Run[], names: readonly string[]): string[] {
  const aspects: Array<[(r: Run) => string, (r: Run) => string]> = [
    [(r) => String(r.sweepId ?? ''), (r) => (r.sweepId === null ? 'no sweep' : `sweep ${r.sweepId}`)],
    [placeKey, (r) => `in ${placeText(r)}`],
    [codeKey, (r) => `code ${codeText(r)}`],
    [(r) => r.command.join('\0'), (r) => commandText(r.command)],
  ];
  return firstRuns.map((run, i) => {
    const namesakes = firstRuns.filter((_, j) => names[j] === names[i]);
    if (namesakes.length < 2) return '';
    const differing = aspects.find(([key]) => new Set(namesakes.map(key)).size > 1);
    return differing ? ` (${differing[1](run)})` : '';
  });
}
