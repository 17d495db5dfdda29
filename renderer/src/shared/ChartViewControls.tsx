// How a group of line charts is drawn, chosen once for all of them: the x axis (step, tokens, time) and the smoothing.
import type { ChartAxis } from './lineChart.js';

export interface ChartView {
  x: ChartAxis;
  /** 0 (none) to 0.99, as TensorBoard's slider. */
  smoothing: number;
}

interface ChartViewControlsProps {
  view: ChartView;
  onChange: (view: ChartView) => void;
  /** Axes that cannot be drawn here, each with why (no tokens per step known, no times in an imported log). */
  unavailable?: Partial<Record<ChartAxis, string>>;
  /** Beside the two: a picker of what to plot. */
  children?: React.ReactNode;
}

const AXES: ReadonlyArray<{ id: ChartAxis; name: string }> = [
  { id: 'step', name: 'step' },
  { id: 'tokens', name: 'tokens' },
  { id: 'seconds', name: 'time' },
];

/** The slider's largest weight: 0.99 already averages over about a hundred points. */
const MAX_SMOOTHING = 0.99;

export function ChartViewControls({ view, onChange, unavailable = {}, children }: ChartViewControlsProps) {
  return (
    <div className="chart-view-controls" role="group" aria-label="How the charts are drawn">
      <label className="chart-control">
        <span className="label">x</span>
        <select data-testid="chart-x-axis" value={view.x} onChange={(event) => onChange({ ...view, x: event.target.value as ChartAxis })}>
          {AXES.map((axis) => (
            <option key={axis.id} value={axis.id} disabled={unavailable[axis.id] !== undefined} title={unavailable[axis.id]}>
              {axis.name}
              {unavailable[axis.id] !== undefined ? ` (${unavailable[axis.id]})` : ''}
            </option>
          ))}
        </select>
      </label>
      <label className="chart-control" title="An exponential moving average, as TensorBoard draws it: the raw points stay faint behind the line">
        <span className="label">smoothing</span>
        <input
          type="range"
          data-testid="chart-smoothing"
          min={0}
          max={MAX_SMOOTHING}
          step={0.01}
          value={view.smoothing}
          onChange={(event) => onChange({ ...view, smoothing: Number(event.target.value) })}
        />
        <span className="chart-control-value" data-testid="chart-smoothing-value">
          {view.smoothing.toFixed(2)}
        </span>
      </label>
      {children}
    </div>
  );
}
