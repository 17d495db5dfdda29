// Runs measured on different machines (pulled back from MLflow): told apart, flagged, and given no speedup
// verdict against each other unless asked, since timings from two machines say nothing about a change.
import type { ComparisonRow, Run } from '../../shared/api.js';

/** How a comparison names the machine that recorded the runs in this database. */
export const THIS_MACHINE = 'this machine';

/** Which machine ran it: '' for this database's own runs, the recording machine's id for a run pulled back from MLflow. */
export function machineKey(run: Run): string {
  return run.origin?.machine.id ?? '';
}

function machineLabel(run: Run): string {
  return run.origin?.machine.label ?? THIS_MACHINE;
}

/**
 * Marks a row whose runs ran on another machine than the baseline's: the machine is named and flagged, and unless
 * `acrossMachines` the speedup and its verdict are withheld (the row still shows its own throughput).
 */
export function applyMachineRule(row: ComparisonRow, runs: readonly Run[], baseline: readonly Run[], acrossMachines: boolean): ComparisonRow {
  const base = baseline[0];
  const own = runs[0];
  if (base === undefined || own === undefined || machineKey(own) === machineKey(base)) return row;
  const here = machineLabel(own);
  const there = machineLabel(base);
  const flagged = { ...row, machine: here, differences: [`machine: ${here} vs ${there}`, ...row.differences] };
  if (acrossMachines || row.isBaseline) return flagged;
  return {
    ...flagged,
    speedup: {
      ...row.speedup,
      ratio: null,
      ci95: null,
      verdict: 'unknown',
      // Short, as it sits under the verdict; the machines are named in the row's differences.
      reason: 'another machine: no speedup across machines',
      moreRepeats: null,
    },
    fasterButWorse: false,
  };
}

/** A row on another machine than the baseline's is the best config only when machines are compared on purpose. */
export function mayBeBest(row: ComparisonRow, acrossMachines: boolean): boolean {
  return row.machine === null || acrossMachines;
}

/** The comparison's note when some rows ran elsewhere. */
export function machineNote(rows: readonly ComparisonRow[], acrossMachines: boolean): string | null {
  if (!rows.some((row) => row.machine !== null)) return null;
  return acrossMachines
    ? 'Some rows ran on another machine than the baseline (flagged): their speedups compare machines as well as configs.'
    : 'Some rows ran on another machine than the baseline (flagged): no speedup verdict across machines.';
}
