// The life of one run's chart data: stored points fetched, live ones held meanwhile and put on top, redraws throttled.
import { errorMessage } from '../shared/format.js';

/** ~2 redraws a second: the engine sends points several times a second, and a chart redraw of 100k points is not free. */
export const REDRAW_INTERVAL_MS = 500;

export type FeedSnapshot<TReady> = { status: 'loading' } | { status: 'failed'; error: string } | ({ status: 'ready' } & TReady);

/** What differs between the metrics and the telemetry feeds. */
export interface LiveFeedSource<TSeries, TLive, TReady> {
  /** Subscribes to the run's live events (before the first fetch, so nothing is lost while it is in flight). */
  subscribe(take: (live: TLive) => void): () => void;
  /** A fresh series holding everything stored so far. */
  fetch(): Promise<TSeries>;
  add(series: TSeries, live: TLive): void;
  view(series: TSeries): TReady;
}

export class LiveFeed<TSeries, TLive, TReady> {
  private series: TSeries | null = null;
  /** Live items that came while the stored ones were being fetched; put on top of them once they are in. */
  private held: TLive[] = [];
  private fetching = 0;
  private redrawTimer: ReturnType<typeof setTimeout> | undefined;
  private lastRedraw = 0;
  private disposed = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly source: LiveFeedSource<TSeries, TLive, TReady>,
    private readonly onChange: (snapshot: FeedSnapshot<TReady>) => void,
  ) {
    this.unsubscribe = source.subscribe((live) => this.live(live));
  }

  /**
   * (Re)loads everything stored: on open, after a reconnect (events sent meanwhile are gone), and once the run has
   * ended (its last points are all stored then). A point that comes both live and in the fetch replaces itself.
   */
  reload(): void {
    const generation = ++this.fetching;
    this.held = [];
    this.source.fetch().then(
      (series) => {
        if (this.disposed || generation !== this.fetching) return;
        this.addHeld(series);
        this.series = series;
        this.fetching = 0;
        this.redrawNow();
      },
      (error: unknown) => {
        if (this.disposed || generation !== this.fetching) return;
        this.fetching = 0;
        // Stored points already on screen stay, with what came live meanwhile; a first load that failed says why.
        if (this.series) {
          this.addHeld(this.series);
          this.redrawNow();
        } else this.onChange({ status: 'failed', error: errorMessage(error) });
      },
    );
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.redrawTimer);
    this.unsubscribe();
  }

  private addHeld(series: TSeries): void {
    for (const live of this.held) this.source.add(series, live);
    this.held = [];
  }

  private live(live: TLive): void {
    if (this.disposed) return;
    if (this.fetching !== 0 || !this.series) {
      this.held.push(live);
      return;
    }
    this.source.add(this.series, live);
    this.scheduleRedraw();
  }

  private scheduleRedraw(): void {
    if (this.redrawTimer !== undefined) return;
    const wait = Math.max(0, this.lastRedraw + REDRAW_INTERVAL_MS - Date.now());
    this.redrawTimer = setTimeout(() => this.redrawNow(), wait);
  }

  private redrawNow(): void {
    clearTimeout(this.redrawTimer);
    this.redrawTimer = undefined;
    if (this.disposed || !this.series) return;
    this.lastRedraw = Date.now();
    this.onChange({ status: 'ready', ...this.source.view(this.series) });
  }
}
