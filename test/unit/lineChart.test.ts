// The line chart options every chart shares: axes, decimation, and the colours and titles set before each draw.
import { describe, expect, it } from 'vitest';
import { ChartLink } from '../../renderer/src/shared/chartLink.js';
import {
  lineChartOptions,
  STEP_AXIS,
  styleLineChart,
  withAlpha,
  type FrameColours,
  type LineChart,
  type LineChartSetup,
} from '../../renderer/src/shared/lineChart.js';

const theme: FrameColours = { text: '#8b96a5', grid: '#2a313c', accent: '#4c8dff' };

const secondsSetup: LineChartSetup = {
  x: { unit: 'seconds', title: null, tick: (value) => `${value}s`, wholeTicks: false },
  decimation: { threshold: 200 },
};

describe('lineChartOptions', () => {
  it('labels a step axis at whole steps, under a "step" title, and decimates as asked', () => {
    const options = lineChartOptions({ x: STEP_AXIS, decimation: { threshold: 1000, samples: 500 } }, () => {});
    const x = options.scales!.x!;
    expect(x.type).toBe('linear');
    expect(x.title).toMatchObject({ display: true, text: 'step' });
    expect(x.ticks).toMatchObject({ precision: 0, maxTicksLimit: 8 });
    expect(STEP_AXIS.tick(12345.4)).toBe((12345).toLocaleString());
    expect(options.plugins!.decimation).toMatchObject({ enabled: true, algorithm: 'lttb', threshold: 1000, samples: 500 });
  });

  it('leaves a seconds axis untitled where asked, with fractional ticks allowed and no tooltip footer unless given', () => {
    const options = lineChartOptions(secondsSetup, () => {});
    const x = options.scales!.x!;
    expect(x.title).toMatchObject({ display: false });
    expect(x.ticks).not.toHaveProperty('precision');
    expect(x.ticks).toMatchObject({ maxTicksLimit: 6 });
    expect(options.plugins!.decimation).not.toHaveProperty('samples');
    expect(options.plugins!.tooltip!.callbacks).not.toHaveProperty('footer');
    const withFooter = lineChartOptions({ ...secondsSetup, tooltipFooter: (at) => `at ${at}` }, () => {});
    expect(withFooter.plugins!.tooltip!.callbacks).toHaveProperty('footer');
  });
});

describe('styleLineChart', () => {
  it('sets the y title, beginAtZero and colours on options that no chart has filled in yet', () => {
    // The first draw uses these very options: a key chart.js adds later (beginAtZero) must be set all the same.
    const options = lineChartOptions(secondsSetup, () => {});
    styleLineChart(options, { yTitle: 'tokens/s', beginAtZero: true }, theme, false);
    const y = options.scales!.y!;
    expect(y).toMatchObject({ beginAtZero: true, title: { display: true, text: 'tokens/s', color: theme.text } });
    expect(y.grid).toEqual({ color: theme.grid });
    expect(options.scales!.x!.ticks).toMatchObject({ color: theme.text, maxTicksLimit: 6 });
    expect(options.plugins!.zoom!.zoom!.drag).toMatchObject({ borderColor: theme.accent, backgroundColor: 'rgba(76, 141, 255, 0.18)' });
  });

  it('keeps a shared x range unless a person has zoomed', () => {
    const options = lineChartOptions(secondsSetup, () => {});
    styleLineChart(options, { yTitle: '%', beginAtZero: false, xRange: { min: 0, max: 90 } }, theme, true);
    expect(options.scales!.x).not.toHaveProperty('max');
    styleLineChart(options, { yTitle: '%', beginAtZero: false, xRange: { min: 0, max: 90 } }, theme, false);
    expect(options.scales!.x).toMatchObject({ min: 0, max: 90 });
  });
});

describe('withAlpha', () => {
  it('turns #rrggbb into rgba, and anything else into a grey it can draw', () => {
    expect(withAlpha('#e5534b', 0.16)).toBe('rgba(229, 83, 75, 0.16)');
    expect(withAlpha('hsl(10, 65%, 40%)', 0.5)).toBe('rgba(128, 128, 128, 0.5)');
  });
});

/** Just what the link touches of a chart: its x range, whether it is zoomed, and the calls that move it. */
function fakeChart(range: { min: number; max: number } | null) {
  const calls: string[] = [];
  const chart = {
    scales: { x: range ?? { min: 0, max: 100 } },
    isZoomedOrPanned: () => range !== null,
    zoomScale: (_axis: string, to: { min: number; max: number }) => calls.push(`zoom ${to.min}-${to.max}`),
    resetZoom: () => calls.push('reset'),
  };
  return { chart: chart as unknown as LineChart, calls };
}

describe('ChartLink', () => {
  it('moves the other charts to the range a person chose, and resets them all together', () => {
    const link = new ChartLink();
    const source = fakeChart({ min: 20, max: 40 });
    const other = fakeChart(null);
    const zoomed: boolean[] = [];
    link.join({ chart: source.chart, setZoomed: () => {} });
    const leave = link.join({ chart: other.chart, setZoomed: (value) => zoomed.push(value) });
    link.follow(source.chart);
    expect(source.calls).toEqual([]);
    expect(other.calls).toEqual(['zoom 20-40']);
    link.reset();
    expect(other.calls).toEqual(['zoom 20-40', 'reset']);
    expect(zoomed).toEqual([true, false]);
    leave();
    link.reset();
    expect(other.calls).toHaveLength(2);
  });
});
