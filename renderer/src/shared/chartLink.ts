// Charts that zoom, pan and reset together: the telemetry charts read one time axis, the compare view's step charts one step axis.
import type { LineChart } from './lineChart.js';

interface LinkMember {
  chart: LineChart;
  setZoomed: (zoomed: boolean) => void;
}

export class ChartLink {
  private readonly members = new Set<LinkMember>();

  join(member: LinkMember): () => void {
    this.members.add(member);
    return () => {
      this.members.delete(member);
    };
  }

  /** Set while the link itself moves the charts: their own zoom callbacks (reset calls them too) must not echo. */
  private moving = false;

  /** One chart's x range changed by a person: the others show the same range. */
  follow(source: LineChart): void {
    if (this.moving || !source.isZoomedOrPanned()) return;
    const { min, max } = source.scales.x!;
    this.moving = true;
    try {
      for (const member of this.members) {
        if (member.chart === source) continue;
        member.chart.zoomScale('x', { min, max }, 'none');
        member.setZoomed(true);
      }
    } finally {
      this.moving = false;
    }
  }

  reset(): void {
    this.moving = true;
    try {
      for (const member of this.members) {
        member.chart.resetZoom('none');
        member.setZoomed(false);
      }
    } finally {
      this.moving = false;
    }
  }
}
