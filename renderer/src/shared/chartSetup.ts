// chart.js for the run charts: only the pieces line charts use, the zoom plugin, and colours from the page's CSS variables.
import { Chart, Decimation, LinearScale, LogarithmicScale, LineController, LineElement, PointElement, Tooltip, type Plugin } from 'chart.js';
import zoomPlugin from 'chartjs-plugin-zoom';

// Registered once per page: chart.js keeps a global registry, and tree-shaking drops everything not named here. No
// Legend: each chart's legend is HTML in its toolbar, so both charts' plot areas line up whatever their line count.
Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Tooltip, Decimation, zoomPlugin);

export { Chart };

/** Colours the charts take from shared/base.css, so the dark and light schemes are both defined in one place. */
export interface ChartTheme {
  text: string;
  grid: string;
  background: string;
  throughput: string;
  loss: string;
  evalLoss: string;
  accent: string;
  gpu: string;
  memory: string;
  power: string;
  temperature: string;
  clock: string;
  cpu: string;
  thread: string;
  limit: string;
  throttle: string;
}

/** The theme's line colours: what a chart line may be drawn in. */
export type LineColour = Exclude<keyof ChartTheme, 'text' | 'grid' | 'background' | 'accent'>;

function cssVariable(style: CSSStyleDeclaration, name: string, fallback: string): string {
  const value = style.getPropertyValue(name).trim();
  return value === '' ? fallback : value;
}

/** Read when a chart is made and again when the colour scheme changes. */
export function chartTheme(): ChartTheme {
  const style = getComputedStyle(document.documentElement);
  return {
    text: cssVariable(style, '--text-muted', '#8b96a5'),
    grid: cssVariable(style, '--chart-grid', '#2a313c'),
    background: cssVariable(style, '--bg-raised', '#161b22'),
    throughput: cssVariable(style, '--chart-throughput', '#4c8dff'),
    loss: cssVariable(style, '--chart-loss', '#e09b3d'),
    evalLoss: cssVariable(style, '--chart-eval', '#b083f0'),
    accent: cssVariable(style, '--accent', '#4c8dff'),
    gpu: cssVariable(style, '--chart-gpu', '#3fb468'),
    memory: cssVariable(style, '--chart-memory', '#c38fff'),
    power: cssVariable(style, '--chart-power', '#e09b3d'),
    temperature: cssVariable(style, '--chart-temperature', '#e5534b'),
    clock: cssVariable(style, '--chart-clock', '#39c5cf'),
    cpu: cssVariable(style, '--chart-throughput', '#4c8dff'),
    thread: cssVariable(style, '--chart-thread', '#d4a72c'),
    limit: cssVariable(style, '--text-muted', '#8b96a5'),
    throttle: cssVariable(style, '--chart-throttle', '#e5534b'),
  };
}

/**
 * Fills the canvas before anything is drawn: a canvas is transparent by default, and a saved PNG with light text on
 * nothing is unreadable in a light image viewer.
 */
export function canvasBackground(colour: () => string): Plugin<'line'> {
  return {
    id: 'tuningBenchBackground',
    beforeDraw(chart) {
      const { ctx, width, height } = chart;
      ctx.save();
      ctx.globalCompositeOperation = 'destination-over';
      ctx.fillStyle = colour();
      ctx.fillRect(0, 0, width, height);
      ctx.restore();
    },
  };
}
