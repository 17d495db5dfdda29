// The window: header with the app's facts, the sweeps and runs sidebar, and the main area (the first-run view, New run,
// GPU control, a sweep view or one run).
import { useCallback, useEffect, useRef, useState } from 'react';
import type { MethodOutput, Run, Workload } from '../../electron/shared/api.js';
import { useBridge, useConnectionState } from './bridge/context.js';
import { AbandonedGpuBanner } from './gpu/AbandonedGpuBanner.js';
import { CompareView } from './compare/CompareView.js';
import { FirstRun } from './FirstRun.js';
import { GpuControl } from './gpu/GpuControl.js';
import { GpuInfo } from './gpu/GpuInfo.js';
import { ImportLog, type ImportLogHandle } from './runs/ImportLog.js';
import { NewRun } from './runs/NewRun.js';
import { OrphanBanners } from './runs/OrphanBanners.js';
import { RunsList } from './runs/RunsList.js';
import { RunsTable } from './compare/RunsTable.js';
import { RunView } from './runs/RunView.js';
import { useRunList, useRuns, useWorkloadList, useWorkloads } from './shared/runStore.js';
import { SweepNotifier } from './sweeps/SweepNotifier.js';
import { SweepPages } from './sweeps/SweepPages.js';
import { SweepsSidebar } from './sweeps/SweepsList.js';
import { errorMessage } from './shared/format.js';
import { useView } from './route.js';
import { isSweepRoute } from './shared/sweepRoute.js';
import { telemetryStatusLog } from './runs/telemetryStatus.js';
import { useMenuCommands } from './useMenuCommands.js';
import { useSidebarOpen } from './sidebarState.js';

type AppInfo = MethodOutput<'app.info'>;

function ConnectionBanner() {
  const state = useConnectionState();
  if (state !== 'reconnecting') return null;
  return (
    <div className="connection-banner" role="status" data-testid="connection-banner">
      Disconnected from the Tuning Bench server, reconnecting…
    </div>
  );
}

export function App() {
  const bridge = useBridge();
  const { api } = bridge;
  // Listening from the start: a run's first telemetry news comes before its view opens.
  telemetryStatusLog(bridge);
  const connection = useConnectionState();
  const [view, navigate] = useView();
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [sidebarOpen, toggleSidebar] = useSidebarOpen();
  // Runs and workloads are live lists (runs/runStore.ts): an update that comes during a reload is kept.
  const runList = useRunList();
  const runsNow = useRuns();
  const workloadList = useWorkloadList();
  const { items: workloads, error: workloadsError } = useWorkloads();
  const [infoError, setInfoError] = useState<string | null>(null);
  const [missingRun, setMissingRun] = useState<{ id: number; error: string } | null>(null);
  const importLogRef = useRef<ImportLogHandle>(null);
  const openImportLog = useCallback(() => importLogRef.current?.open(), []);
  useMenuCommands(openImportLog);

  // On every (re)connect: whatever changed while the socket was down arrives only this way.
  useEffect(() => {
    if (connection !== 'open') return;
    let cancelled = false;
    api['app.info']({}).then(
      (appInfo) => {
        if (cancelled) return;
        setInfo(appInfo);
        setInfoError(null);
      },
      (error: unknown) => {
        if (!cancelled) setInfoError(errorMessage(error));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, connection]);

  // A run opened by link (or copied into New run) may be older than the list's window; fetch it on its own.
  const selectedId = view.kind === 'run' ? view.id : null;
  const fromId = view.kind === 'new' ? (view.from ?? null) : null;
  const wantedId = selectedId ?? fromId;
  const sortedRuns = runsNow.items;
  const selectedRun = selectedId === null ? null : (sortedRuns.find((run) => run.id === selectedId) ?? null);
  const fromRun = fromId === null ? null : (sortedRuns.find((run) => run.id === fromId) ?? null);
  const needsFetch = wantedId !== null && runsNow.loaded && !sortedRuns.some((run) => run.id === wantedId) && info !== null;
  useEffect(() => {
    if (!needsFetch || wantedId === null) return;
    let cancelled = false;
    api['runs.get']({ id: wantedId }).then(
      (run) => {
        if (!cancelled) runList.adopt(run);
      },
      (error: unknown) => {
        if (!cancelled) setMissingRun({ id: wantedId, error: errorMessage(error) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, runList, needsFetch, wantedId]);

  /** A run just started or imported: listed, and opened. */
  const onNewRun = useCallback(
    (run: Run) => {
      // A change event may already have brought a newer state of this run; keep that one.
      runList.adopt(run);
      navigate({ kind: 'run', id: run.id });
    },
    [navigate, runList],
  );
  const onWorkloadCreated = useCallback((workload: Workload) => workloadList.put(workload), [workloadList]);

  // Known once the first answers came (app.info comes with runs.list): until then an empty list means nothing.
  const loaded = info !== null && runsNow.loaded;
  const loadError = infoError ?? runsNow.error ?? workloadsError;
  const showsNewRun = view.kind === 'new' || (view.kind === 'home' && loaded && sortedRuns.length > 0);
  let main;
  // New run too: its directory starts where the engine was started, which app.info says.
  if ((view.kind === 'home' || view.kind === 'new') && !loaded) {
    main = <div className="placeholder">Loading…</div>;
  } else if (view.kind === 'home' && sortedRuns.length === 0) {
    main = <FirstRun workloads={workloads} onStarted={onNewRun} onImportLog={openImportLog} />;
  } else if (fromId !== null && fromRun === null) {
    main =
      missingRun && missingRun.id === fromId ? (
        <div className="placeholder" role="alert">
          Run #{fromId} could not be copied: {missingRun.error}
        </div>
      ) : (
        <div className="placeholder">Loading run #{fromId}…</div>
      );
  } else if (view.kind === 'new' || view.kind === 'home') {
    main = (
      <NewRun
        key={fromId === null ? 'new' : `from-${fromId}`}
        workloads={workloads}
        runs={sortedRuns}
        onStarted={onNewRun}
        onWorkloadCreated={onWorkloadCreated}
        defaultCwd={info?.cwd ?? ''}
        from={fromRun}
      />
    );
  } else if (view.kind === 'gpu') {
    main = <GpuControl />;
  } else if (isSweepRoute(view)) {
    main = <SweepPages route={view} workloads={workloads} />;
  } else if (view.kind === 'runs') {
    main = <RunsTable />;
  } else if (view.kind === 'compare') {
    main = <CompareView route={view} />;
  } else if (selectedRun) {
    main = <RunView key={selectedRun.id} run={selectedRun} workloads={workloads} />;
  } else if (missingRun && missingRun.id === view.id) {
    main = (
      <div className="placeholder" role="alert">
        Run #{view.id} could not be opened: {missingRun.error}
      </div>
    );
  } else {
    main = <div className="placeholder">Loading run #{view.id}…</div>;
  }

  return (
    <div className="app">
      <header className="app-header">
        <button
          type="button"
          className="button small sidebar-toggle"
          data-testid="sidebar-toggle"
          aria-expanded={sidebarOpen}
          aria-controls="runs-sidebar"
          title={sidebarOpen ? 'Hide the sweeps and runs list, to give this view the width' : 'Show the sweeps and runs list'}
          onClick={toggleSidebar}
        >
          {sidebarOpen ? '◀ Runs' : '▶ Runs'}
        </button>
        <h1 className="app-name">Tuning Bench</h1>
        {info && (
          <div className="app-facts" data-testid="app-info">
            <span className="badge face">{info.face}</span>
            <span className="db-path mono" title={`SQLite database: ${info.dbPath}`}>
              <bdi dir="ltr">{info.dbPath}</bdi>
            </span>
            <span className="version">v{info.version}</span>
          </div>
        )}
        <span className="spacer" />
        <nav className="header-nav" aria-label="Views">
          <button
            type="button"
            className="button small"
            data-testid="runs-table-button"
            aria-current={view.kind === 'runs' || view.kind === 'compare' ? 'page' : undefined}
            title="Every run in a table: filter, tag, pick runs to compare"
            onClick={() => navigate({ kind: 'runs' })}
          >
            Runs &amp; compare
          </button>
          <button
            type="button"
            className="button small"
            data-testid="gpu-control-button"
            aria-current={view.kind === 'gpu' ? 'page' : undefined}
            title="Persistence mode, clock locks and power limit"
            onClick={() => navigate({ kind: 'gpu' })}
          >
            GPU control
          </button>
          <GpuInfo />
        </nav>
      </header>
      <ConnectionBanner />
      <OrphanBanners />
      <AbandonedGpuBanner />
      <SweepNotifier />
      {loadError && (
        <div className="load-error" role="alert">
          Could not load from the engine: {loadError}
        </div>
      )}
      <div className="app-body">
        <aside className="sidebar" id="runs-sidebar" aria-label="Runs" hidden={!sidebarOpen}>
          <SweepsSidebar selectedId={view.kind === 'sweep' ? view.id : null} />
          <div className="sidebar-header">
            <h2>Runs</h2>
            <span className="spacer" />
            <ImportLog ref={importLogRef} onImported={onNewRun} />
            <button
              type="button"
              className="button primary small"
              data-testid="new-run-button"
              aria-current={showsNewRun ? 'page' : undefined}
              onClick={() => navigate({ kind: 'new' })}
            >
              + New run
            </button>
          </div>
          <RunsList runs={sortedRuns} selectedId={selectedId} onSelect={(id) => navigate({ kind: 'run', id })} />
        </aside>
        <main className="main">{main}</main>
      </div>
    </div>
  );
}
