// The main area for a sweep route: the list of sweeps, the New sweep form, the before/after form, or one sweep.
import type { Workload } from '../../../electron/shared/api.js';
import type { SweepRoute } from '../shared/sweepRoute.js';
import { BeforeAfter } from './BeforeAfter.js';
import { SweepBuilder } from './SweepBuilder.js';
import { SweepsList } from './SweepsList.js';
import { SweepView } from './SweepView.js';

export function SweepPages({ route, workloads }: { route: SweepRoute; workloads: readonly Workload[] }) {
  if (route.kind === 'sweeps') return <SweepsList />;
  if (route.kind === 'new-sweep') return <SweepBuilder workloads={workloads} />;
  if (route.kind === 'before-after') return <BeforeAfter />;
  return <SweepView key={route.id} id={route.id} workloads={workloads} />;
}
