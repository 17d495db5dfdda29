// The card a line chart sits in: its title and what the chart adds beside it, Reset zoom and Save PNG, then the canvas,
// or why it is empty.
import type { ReactNode } from 'react';
import type { ChartAxis } from './lineChart.js';
import type { RefObject } from 'react';
import type { LineChartControls } from './useLineChart.js';
import './charts.css';

interface ChartCardProps {
  canvasRef: RefObject<HTMLCanvasElement | null>;
  controls: LineChartControls;
  testId: string;
  /** Classes beside `chart-card`. */
  className?: string;
  /** Read by the tests: how many points are drawn, and whatever else the chart counts (lines, bands). */
  counts: Record<`data-${string}`, number>;
  title: string;
  axis: ChartAxis;
  /** Small charts in a grid say "Reset" and "PNG". */
  compact?: boolean;
  fileName: string;
  /** The points drawn: none shows the empty text instead of the plot, and nothing to save. */
  points: number;
  emptyText: string;
  /** In the toolbar after the title: a legend, a hint. */
  toolbar?: ReactNode;
  /** Between the toolbar and the plot. */
  aboveCanvas?: ReactNode;
  /** A log-scale switch for y, where a person may want one (a loss over orders of magnitude). */
  logY?: { on: boolean; onChange: (on: boolean) => void };
  /** A chart a person added can be taken away again. */
  onRemove?: () => void;
}

export function ChartCard({
  canvasRef,
  controls,
  testId,
  className,
  counts,
  title,
  axis,
  compact = false,
  fileName,
  points,
  emptyText,
  toolbar,
  aboveCanvas,
  logY,
  onRemove,
}: ChartCardProps) {
  return (
    <figure className={className ? `chart-card ${className}` : 'chart-card'} data-testid={testId} {...counts}>
      <figcaption className="chart-toolbar">
        <span className="chart-title">{title}</span>
        {toolbar}
        <span className="spacer" />
        {logY && (
          <label className="chart-log-toggle" title="A logarithmic y axis: equal ratios look equal (only values above zero are drawn)">
            <input type="checkbox" data-testid="log-y" checked={logY.on} onChange={(event) => logY.onChange(event.target.checked)} /> log
          </label>
        )}
        <button
          type="button"
          className="button small"
          data-testid="reset-zoom"
          title={axis === 'step' ? 'Show every step again' : 'Show the whole run again'}
          disabled={!controls.zoomed}
          onClick={controls.resetZoom}
        >
          {compact ? 'Reset' : 'Reset zoom'}
        </button>
        <button
          type="button"
          className="button small"
          data-testid="save-chart-png"
          title="Save this chart as a PNG image"
          disabled={points === 0}
          onClick={() => controls.savePng(fileName)}
        >
          {compact ? 'PNG' : 'Save PNG'}
        </button>
        {onRemove && (
          <button
            type="button"
            className="button small"
            data-testid="remove-chart"
            title={`Stop showing ${title}`}
            aria-label={`Remove the ${title} chart`}
            onClick={onRemove}
          >
            ×
          </button>
        )}
      </figcaption>
      {aboveCanvas}
      <div className="chart-canvas" title="Wheel: zoom · drag: zoom to a range · Shift+drag: pan">
        {/* Hidden, not removed, when empty: the chart keeps its canvas and redraws there when points come. */}
        <canvas ref={canvasRef} className={points === 0 ? 'empty' : undefined} role="img" aria-label={title} />
        {points === 0 && <p className="chart-empty">{emptyText}</p>}
      </div>
    </figure>
  );
}
