// One line chart's life: made on its canvas once, drawn again when what it shows or the colour scheme changes, linked
// to its group's zoom, and destroyed with its component.
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import type { ChartLink } from './chartLink.js';
import { canvasBackground, Chart, chartTheme, type ChartTheme } from './chartSetup.js';
import { onSchemeChange } from './colourScheme.js';
import { downloadUrl } from './download.js';
import { lineChartOptions, styleLineChart, type LineChart, type LineChartContent, type LineChartSetup, type LineDataset } from './lineChart.js';

export interface LineChartSpec<Content extends LineChartContent> {
  /** Pass the same object until what is drawn changes: each new one redraws the chart. */
  content: Content;
  /** The chart's lines for this content in these colours; read once, when the chart is made. */
  datasets: (content: Content, theme: ChartTheme) => LineDataset[];
  /** How the chart is made, given what it shows and its colours at any later time; read once, when it is made. */
  setup: (content: () => Content, theme: () => ChartTheme) => LineChartSetup;
  /** The group this chart zooms with; the first render's, for the chart's life. */
  link?: ChartLink | undefined;
}

/** What a chart's card offers a person. */
export interface LineChartControls {
  /** Whether a person has zoomed or panned away from the whole x range. */
  zoomed: boolean;
  /** Back to the whole x range, for the linked group too. */
  resetZoom: () => void;
  savePng: (fileName: string) => void;
}

export interface LineChartHandle {
  /** For the canvas the chart draws on. */
  canvasRef: RefObject<HTMLCanvasElement | null>;
  controls: LineChartControls;
}

export function useLineChart<Content extends LineChartContent>({ content, datasets, setup, link }: LineChartSpec<Content>): LineChartHandle {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const chartRef = useRef<LineChart | null>(null);
  /** What the chart shows now and in which colours, for callbacks that outlive any one render. */
  const contentRef = useRef(content);
  const themeRef = useRef<ChartTheme | null>(null);
  const [zoomed, setZoomed] = useState(false);
  // The chart is made once, with the drawing, setup and link of its first render (a chart group keeps one link for its life).
  const firstRef = useRef({ datasets, setup, link });

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const first = firstRef.current;
    const theme = chartTheme();
    themeRef.current = theme;
    const currentTheme = () => themeRef.current ?? theme;
    const chartSetup = first.setup(() => contentRef.current, currentTheme);
    const options = lineChartOptions(chartSetup, (zoomedChart) => {
      setZoomed(zoomedChart.isZoomedOrPanned());
      first.link?.follow(zoomedChart);
    });
    styleLineChart(options, contentRef.current, theme, false);
    // Made with its data and colours, so the first draw is the only one.
    const chart: LineChart = new Chart(canvas, {
      type: 'line',
      data: { datasets: first.datasets(contentRef.current, theme) },
      options,
      plugins: [canvasBackground(() => currentTheme().background), ...(chartSetup.plugins ?? [])],
    });
    chartRef.current = chart;
    const leave = first.link?.join({ chart, setZoomed });
    const stopFollowingScheme = onSchemeChange(() => {
      const next = chartTheme();
      themeRef.current = next;
      redraw(chart, contentRef.current, next, first.datasets);
    });
    return () => {
      stopFollowingScheme();
      leave?.();
      chart.destroy();
      chartRef.current = null;
    };
  }, []);

  // Only when what is drawn changes: the run view re-renders every second while its run grows.
  useEffect(() => {
    // On mount the chart was just drawn from this very content: drawing ten runs' lines twice is the compare view's cost.
    if (contentRef.current === content) return;
    contentRef.current = content;
    const chart = chartRef.current;
    const theme = themeRef.current;
    if (chart && theme) redraw(chart, content, theme, firstRef.current.datasets);
  }, [content]);

  const resetZoom = useCallback(() => {
    if (link) {
      link.reset();
      return;
    }
    chartRef.current?.resetZoom();
    setZoomed(false);
  }, [link]);
  const savePng = useCallback((fileName: string) => {
    const chart = chartRef.current;
    if (chart) downloadUrl(chart.toBase64Image('image/png', 1), fileName);
  }, []);
  return { canvasRef, controls: { zoomed, resetZoom, savePng } };
}

function redraw<Content extends LineChartContent>(
  chart: LineChart,
  content: Content,
  theme: ChartTheme,
  datasets: (content: Content, theme: ChartTheme) => LineDataset[],
): void {
  // New datasets, not the old ones changed in place: chart.js caches a line's resolved point colours with its dataset,
  // and a scheme change would leave the markers in the old colours.
  chart.data.datasets = datasets(content, theme);
  styleLineChart(chart.options, content, theme, chart.isZoomedOrPanned());
  chart.update('none');
}
