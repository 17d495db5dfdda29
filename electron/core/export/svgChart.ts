// A small line chart as inline SVG, so the HTML report needs no script and no network.

const PALETTE = ['#0969da', '#cf222e', '#1a7f37', '#8250df', '#bf8700', '#0598bc', '#e16f24', '#6e7781'];
const WIDTH = 560;
const HEIGHT = 260;
const MARGIN = { left: 56, right: 12, top: 10, bottom: 34 };
/** One legend entry a line, so every series shows whatever its label's length (11 px text, 3 px between). */
const LEGEND_LINE_PX = 14;
/** After the palette's 8 colours come dashes, so series 9 and on are not copies of 1 to 8. */
const DASHES = ['', '6 3', '2 2', '8 3 2 3'];
const dashOf = (i: number) => DASHES[Math.floor(i / PALETTE.length) % DASHES.length]!;
const dashAttribute = (i: number) => (dashOf(i) === '' ? '' : ` stroke-dasharray="${dashOf(i)}"`);

function niceNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (abs >= 1e4) return `${(value / 1e3).toFixed(0)}k`;
  if (abs >= 100) return value.toFixed(0);
  return value.toPrecision(3);
}

function escape(text: string): string {
  return text.replace(/[&<>"]/gu, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

export function lineChartSvg(lines: ReadonlyArray<{ label: string; points: ReadonlyArray<[number, number]> }>, axes: { xLabel: string; yLabel: string }): string {
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
      return `<path d="${d}" fill="none" stroke="${PALETTE[i % PALETTE.length]}" stroke-width="1.5"${dashAttribute(i)}><title>${escape(line.label)}</title></path>`;
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
      const sample = `<line x1="${MARGIN.left}" y1="${y - 4}" x2="${MARGIN.left + 22}" y2="${y - 4}" stroke="${PALETTE[i % PALETTE.length]}" stroke-width="2"${dashAttribute(i)}/>`;
      return `${sample}<text x="${MARGIN.left + 28}" y="${y}" font-size="11" fill="currentColor">${escape(line.label)}</text>`;
    })
    .join('');
  const height = HEIGHT + 6 + lines.length * LEGEND_LINE_PX;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escape(axes.yLabel)}">
<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#8c959f" stroke-width="0.5"/>${ticks}
<text x="${MARGIN.left}" y="${HEIGHT - 14}" font-size="11" fill="currentColor">${niceNumber(x0)}</text>
<text x="${WIDTH - MARGIN.right}" y="${HEIGHT - 14}" font-size="11" text-anchor="end" fill="currentColor">${niceNumber(x1)} ${escape(axes.xLabel)}</text>
${paths}${legend}</svg>`;
}
