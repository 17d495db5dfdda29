// A sweep's Compare button: opens the comparison of its configs.
import { viewHash } from '../../route.js';
import { compareRoute } from './compareRoute.js';

/** The sweep view's way in: the sweep's configs against its baseline, with the gate and charts. */
export function CompareSweepButton({ sweepId }: { sweepId: number }) {
  return (
    <a
      className="button"
      data-testid="compare-sweep"
      href={viewHash(compareRoute({ sweepIds: [sweepId] }))}
      title="Compare this sweep's configs: verdicts, quality gate, charts, export"
    >
      Compare
    </a>
  );
}
