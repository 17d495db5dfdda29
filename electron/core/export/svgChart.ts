// A small line chart as inline SVG, so the HTML report needs no script and no network; identical lines drawn once.

/** Eight colours a reader tells apart on white and on dark (GitHub's Primer accents); the throughput chart shares them. */
export const PALETTE = ['#0969da', '#cf222e', '#1a7f37', '#8250df', '#bf8700', '#0598bc', '#e16f24', '#6e7781'];
const WIDTH = 560;
const HEIGHT = 260;
const MARGIN = { left: 56, right: 12, top: 10, bottom: 34 };
/** One legend entry a line, so every series shows whatever its label's length (11 px text, 3 px between). */
const LEGEND_LINE_PX = 14;
/** After the palette's 8 colours come dashes, so series 9 and on are not copies of 1 to 8. */
const DASHES = ['', '6 3', '2 2', '8 3 2 3'];
const dashAttribute = (dash: number) => (DASHES[dash % DASHES.length] === '' ? '' : ` stroke-dasharray="${DASHES[dash % DASHES.length]}"`);

function niceNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (abs >= 1e4) return `${(value / 1e3).toFixed(0)}k`;
  if (abs >= 100) return value.toFixed(0);
  return value.toPrecision(3);
}

export function escapeSvg(text: string): string {
  return text.replace(/[&<>"]/gu, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

export interface ChartLine {
  label: string;
  /** How another line's label names this one when they are drawn as one (`#4`); default: its label. */
  name?: string | undefined;
  points: ReadonlyArray<[number, number]>;
  /** Palette index; default: the line's own index. Lines of one config share a colour. */
  color?: number | undefined;
  /** Dash pattern index; default: one per round of the palette. Repeats of one config differ by it. */
  dash?: number | undefined;
}

const colorOf = (line: ChartLine, i: number) => PALETTE[(line.color ?? i) % PALETTE.length]!;
const dashOf = (line: ChartLine, i: number) => line.dash ?? Math.floor(i / PALETTE.length);

/**
 * Lines whose points are all the same (a run repeated with one seed) drawn once, under one label that names each of
 * them: drawn one on another, the later would hide the earlier, and the reader would count one run where there were two.
 */
export function mergeIdenticalLines(lines: readonly ChartLine[], sameAs: (first: ChartLine, others: readonly ChartLine[]) => string): ChartLine[] {
  const byPoints = new Map<string, ChartLine[]>();
  for (const line of lines) {
    const key = JSON.stringify(line.points);
    byPoints.set(key, [...(byPoints.get(key) ?? []), line]);
  }
  return [...byPoints.values()].map(([first, ...others]) => (others.length === 0 ? first! : { ...first!, label: sameAs(first!, others) }));
}

export function lineChartSvg(lines: readonly ChartLine[], axes: { xLabel: string; yLabel: string }): string {
  const all = lines.flatMap((l) => l.points);
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (y0 === y1) [y0, y1] = [y0 - 1, y1 + 1];
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sx = (x: number) => MARGIN.left + (x1 === x0 ? 0 : ((x - x0) / (x1 - x0)) * plotW);
  const sy = (y: number) => MARGIN.top + plotH - ((y - y0) / (y1 - y0)) * plotH;
  const paths = lines
    .map((line, i) => {
      const d = line.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join('');
      return `<path d="${d}" fill="none" stroke="${colorOf(line, i)}" stroke-width="1.5"${dashAttribute(dashOf(line, i))}><title>${escapeSvg(line.label)}</title></path>`;
    })
    .join('');
  const ticks = [0, 0.5, 1]
    .map((f) => {
      const y = y0 + f * (y1 - y0);
      return `<text x="${MARGIN.left - 6}" y="${sy(y) + 4}" text-anchor="end" font-size="11" fill="currentColor">${niceNumber(y)}</text>`;
    })
    .join('');
  const legend = lines
    .map((line, i) => {
      const y = HEIGHT + 12 + i * LEGEND_LINE_PX;
      const sample = `<line x1="${MARGIN.left}" y1="${y - 4}" x2="${MARGIN.left + 22}" y2="${y - 4}" stroke="${colorOf(line, i)}" stroke-width="2"${dashAttribute(dashOf(line, i))}/>`;
      return `${sample}<text x="${MARGIN.left + 28}" y="${y}" font-size="11" fill="currentColor">${escapeSvg(line.label)}</text>`;
    })
    .join('');
  const height = HEIGHT + 6 + lines.length * LEGEND_LINE_PX;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeSvg(axes.yLabel)}">
<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#8c959f" stroke-width="0.5"/>${ticks}
<text x="${MARGIN.left}" y="${HEIGHT - 14}" font-size="11" fill="currentColor">${niceNumber(x0)}</text>
<text x="${WIDTH - MARGIN.right}" y="${HEIGHT - 14}" font-size="11" text-anchor="end" fill="currentColor">${niceNumber(x1)} ${escapeSvg(axes.xLabel)}</text>
${paths}${legend}</svg>`;
}
