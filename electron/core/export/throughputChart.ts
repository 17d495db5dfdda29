// The comparison's throughput as an inline SVG dot plot: a band per config, a dot per run, the row's mean and its
// 95 % interval, the baseline as a reference line. Runs with the same value are stacked, never drawn on one another.
import type { ComparisonRow } from '../../shared/api.js';
import { figure, intervalText, rowLabel } from './format.js';
import { escapeSvg, PALETTE } from './svgChart.js';

const WIDTH = 880;
/** Right: room for half the last tick's label (`800,000` is about 45 px in 11 px text). */
const MARGIN = { right: 40, top: 8, bottom: 36 };
/** 11 px text is up to about 7 px a character in the system sans fonts (measured: `+compile=on ★`, 13 characters, 86 px); the label column fits the longest label, within bounds. */
const CHAR_PX = 7;
const LABEL_PX = { min: 80, max: 300 };
/** A label longer than the widest column holds is cut with an ellipsis; its whole text is in the row's tooltip. */
const LABEL_CHARS = Math.floor((LABEL_PX.max - 16) / CHAR_PX);
/** "N identical" in 10 px text: about 60 px; put on the stack's left where the right has no room. */
const COUNT_LABEL_PX = 64;
const DOT_RADIUS = 5;
/** Dots nearer than this (a diameter and a hair) go into the next lane up or down, so each stays visible. */
const LANE_PX = 2 * DOT_RADIUS + 1.5;
/** A band's height around its lanes: room for the mean's tick and a gap to the next band. */
const BAND_PAD_PX = 14;
const MIN_BAND_PX = 30;
/** Five ticks on the axis, on round values. */
const TICKS = 5;
/** Legend lines under the plot: 11 px text, 3 px between. */
const LEGEND_LINE_PX = 14;

interface Dot {
  runId: number;
  value: number;
  x: number;
  lane: number;
}

/** Lanes 0, -1, +1, -2, +2 … (up, then down, from the band's middle), each dot in the first lane where no dot is nearer than LANE_PX. */
function stack(dots: Array<Omit<Dot, 'lane'>>): Dot[] {
  const lanes: number[][] = [];
  const order = [...dots].sort((a, b) => a.x - b.x || a.runId - b.runId);
  return order.map((dot) => {
    let lane = 0;
    while ((lanes[lane] ?? []).some((x) => Math.abs(x - dot.x) < LANE_PX)) lane++;
    (lanes[lane] ??= []).push(dot.x);
    return { ...dot, lane: lane % 2 === 1 ? -(lane + 1) / 2 : lane / 2 };
  });
}

function niceStep(span: number): number {
  const raw = span / TICKS;
  const power = 10 ** Math.floor(Math.log10(raw));
  const scaled = raw / power;
  return (scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 2.5 ? 2.5 : scaled <= 5 ? 5 : 10) * power;
}

/** A round tick as written: `0`, `250,000`, `0.25` (the float noise of adding steps rounded away). */
function tickText(value: number): string {
  return Number(value.toPrecision(12)).toLocaleString('en-US', { maximumFractionDigits: 10 });
}

/** The axis: from just below the lowest value to just above the highest, on round ticks; a little room either side. */
function axisRange(values: readonly number[]): { low: number; high: number; step: number } {
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (low === high) [low, high] = [low * 0.95, high * 1.05 || 1];
  const step = niceStep(high - low);
  return { low: Math.floor(low / step) * step, high: Math.ceil(high / step) * step, step };
}

/** Rows of one unit as a dot plot; null when no row has a run with a throughput. */
export function throughputChartSvg(rows: readonly ComparisonRow[], unit: string): string | null {
  const measured = rows.filter((row) => row.runs.some((run) => run.throughput !== null) || row.throughput.median !== null);
  if (measured.length === 0) return null;
  const values = measured.flatMap((row) => [
    ...row.runs.flatMap((run) => (run.throughput === null ? [] : [run.throughput])),
    ...(row.throughput.ci95 ? [row.throughput.ci95.low, row.throughput.ci95.high] : []),
    ...(row.throughput.median === null ? [] : [row.throughput.median]),
  ]);
  const { low, high, step } = axisRange(values);
  const labels = measured.map((row) => {
    const label = rowLabel(row);
    return label.length > LABEL_CHARS ? `${label.slice(0, LABEL_CHARS - 1)}…` : label;
  });
  const labelPx = Math.min(LABEL_PX.max, Math.max(LABEL_PX.min, Math.max(...labels.map((l) => l.length)) * CHAR_PX + 16));
  const plotLeft = labelPx;
  const plotWidth = WIDTH - plotLeft - MARGIN.right;
  const sx = (value: number) => plotLeft + ((value - low) / (high - low)) * plotWidth;

  const parts: string[] = [];
  let y = MARGIN.top;
  measured.forEach((row, index) => {
    const color = PALETTE[index % PALETTE.length]!;
    const dots = stack(row.runs.flatMap((run) => (run.throughput === null ? [] : [{ runId: run.id, value: run.throughput, x: sx(run.throughput) }])));
    const lanesUp = Math.max(0, ...dots.map((d) => -d.lane));
    const lanesDown = Math.max(0, ...dots.map((d) => d.lane));
    const stackPx = (lanesUp + lanesDown + 1) * LANE_PX;
    const height = Math.max(MIN_BAND_PX, stackPx + BAND_PAD_PX);
    const middle = y + (height - stackPx) / 2 + (lanesUp + 0.5) * LANE_PX;
    const rowTitle = `${rowLabel(row)}: ${figure(row.throughput.median)} ${unit}${row.throughput.ci95 ? ` (95 % CI ${intervalText(row.throughput.ci95)})` : ''}, n = ${row.n}`;
    parts.push(`<g data-row="${index}"><title>${escapeSvg(rowTitle)}</title>`);
    if (index % 2 === 1) parts.push(`<rect x="0" y="${y.toFixed(1)}" width="${WIDTH}" height="${height.toFixed(1)}" fill="#8c959f" fill-opacity="0.08"/>`);
    parts.push(
      `<text x="${plotLeft - 8}" y="${(middle + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="currentColor">${escapeSvg(labels[index]!)}</text>`,
    );
    if (row.throughput.ci95) {
      const [from, to] = [sx(row.throughput.ci95.low), sx(row.throughput.ci95.high)];
      parts.push(
        `<line x1="${from.toFixed(1)}" y1="${middle.toFixed(1)}" x2="${to.toFixed(1)}" y2="${middle.toFixed(1)}" stroke="${color}" stroke-opacity="0.45" stroke-width="3"/>`,
      );
    }
    for (const dot of dots) {
      const title = `run #${dot.runId}: ${figure(dot.value)} ${unit}`;
      parts.push(
        `<circle data-run="${dot.runId}" cx="${dot.x.toFixed(1)}" cy="${(middle + dot.lane * LANE_PX).toFixed(1)}" r="${DOT_RADIUS}" fill="${color}" fill-opacity="0.8" stroke="#fff" stroke-width="0.75"><title>${escapeSvg(title)}</title></circle>`,
      );
    }
    // The mean over the dots, the height of the stack and a little more, so dots never hide it.
    if (row.throughput.median !== null) {
      const x = sx(row.throughput.median).toFixed(1);
      const [top, bottom] = [middle - (lanesUp + 0.5) * LANE_PX - 3, middle + (lanesDown + 0.5) * LANE_PX + 3];
      parts.push(`<line x1="${x}" y1="${top.toFixed(1)}" x2="${x}" y2="${bottom.toFixed(1)}" stroke="currentColor" stroke-width="1.5"/>`);
    }
    // Runs of one value: said in words beside their stack, so a reader counts them without hovering.
    const byValue = new Map<number, Dot[]>();
    for (const dot of dots) byValue.set(dot.value, [...(byValue.get(dot.value) ?? []), dot]);
    for (const same of byValue.values()) {
      if (same.length < 2) continue;
      const x = same[0]!.x;
      const [at, anchor] = x + DOT_RADIUS + 6 + COUNT_LABEL_PX > WIDTH ? [x - DOT_RADIUS - 6, 'end'] : [x + DOT_RADIUS + 6, 'start'];
      parts.push(
        `<text x="${at.toFixed(1)}" y="${(middle + 4).toFixed(1)}" text-anchor="${anchor}" font-size="10" fill="currentColor" data-identical="${same.length}">${same.length} identical</text>`,
      );
    }
    parts.push('</g>');
    y += height;
  });

  const plotBottom = y;
  const axis: string[] = [`<line x1="${plotLeft}" y1="${plotBottom}" x2="${plotLeft + plotWidth}" y2="${plotBottom}" stroke="#8c959f" stroke-width="0.75"/>`];
  for (let tick = low; tick <= high + step / 2; tick += step) {
    const x = sx(tick).toFixed(1);
    axis.push(`<line x1="${x}" y1="${MARGIN.top}" x2="${x}" y2="${plotBottom}" stroke="#8c959f" stroke-width="0.5" stroke-opacity="0.4"/>`);
    axis.push(`<text x="${x}" y="${plotBottom + 14}" text-anchor="middle" font-size="11" fill="currentColor">${tickText(tick)}</text>`);
  }
  axis.push(`<text x="${plotLeft + plotWidth}" y="${plotBottom + 28}" text-anchor="end" font-size="11" fill="currentColor">${escapeSvg(unit)}</text>`);
  const baseline = measured.find((row) => row.isBaseline)?.throughput.median ?? null;
  if (baseline !== null) {
    const x = sx(baseline).toFixed(1);
    axis.push(
      `<line x1="${x}" y1="${MARGIN.top}" x2="${x}" y2="${plotBottom}" stroke="currentColor" stroke-width="1" stroke-dasharray="4 3" stroke-opacity="0.6"/>`,
    );
    axis.push(`<text x="${x}" y="${plotBottom + 28}" text-anchor="middle" font-size="10" fill="currentColor">baseline</text>`);
  }

  const legendTop = plotBottom + MARGIN.bottom;
  const legend = [
    'A dot: one run (its steady median). A tick: the config\u2019s mean; a bar: its 95 % interval. Dashed: the baseline\u2019s mean.',
    'Runs closer than a dot\u2019s width are stacked one above another; runs of the same value are each drawn and counted (\u201cN identical\u201d).',
  ].map((line, i) => `<text x="8" y="${legendTop + 11 + i * LEGEND_LINE_PX}" font-size="11" fill="currentColor">${escapeSvg(line)}</text>`);
  const height = legendTop + 2 * LEGEND_LINE_PX + 4;
  return `<svg xmlns="http://www.w3.org/2000/svg" data-chart="throughput" width="${WIDTH}" height="${height.toFixed(0)}" viewBox="0 0 ${WIDTH} ${height.toFixed(0)}" role="img" aria-label="${escapeSvg(`Throughput (${unit}) by config, each run a dot`)}">
${axis.join('')}${parts.join('')}${legend.join('')}</svg>`;
}
