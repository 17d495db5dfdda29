// Every run in one table (#/runs): filters by workload, sweep, status, tag and free text, sortable columns, notes and
// tags edited in place, and a checkbox per row to compare the chosen runs against each other.
import { useEffect, useMemo, useState } from 'react';
import type { Run, RunStatus } from '../../../electron/shared/api.js';
import { runStatus } from '../../../electron/shared/api.js';
import { useBridge, useConnectionState } from '../bridge/context.js';
import { compareRoute } from '../shared/comparisons/compareRoute.js';
import { errorMessage, formatDuration, formatNumber, formatStartTime, runDurationMs } from '../shared/format.js';
import { useView, viewHash } from '../route.js';
import { useSweeps } from '../shared/sweepStore.js';
import { useNow } from '../shared/useNow.js';
import { NotesCell, TagsCell } from '../shared/runRecord/RunAnnotations.js';
import { ExitClassBadge, StatusBadge } from '../shared/StatusBadge.js';
import './compare.css';

/** The contract's largest page of runs.list: the table holds them all, the sidebar only the newest 500. */
const RUNS_TABLE_LIMIT = 10_000;
/** Rows drawn before "Show all": a table of thousands of rows is slow to draw and to read. */
const ROWS_SHOWN = 300;
/** The config variables every run of a workload has and that rarely differ: left out of the row's short config. */
const QUIET_VARIABLES = new Set(['seed', 'python', 'device', 'threads']);

type SortKey = 'id' | 'started' | 'workload' | 'status' | 'throughput' | 'duration';
interface Sort {
  key: SortKey;
  descending: boolean;
}

interface Filters {
  workload: string;
  sweep: string;
  status: string;
  tag: string;
  text: string;
}

const ALL = '';
const AD_HOC = '\u0000ad-hoc';
const NO_SWEEP = 'none';
const EMPTY_FILTERS: Filters = { workload: ALL, sweep: ALL, status: ALL, tag: ALL, text: '' };

/** Kept for the page's life: back from a comparison, the table is as it was left. */
let remembered: { filters: Filters; sort: Sort; selected: ReadonlySet<number> } = {
  filters: EMPTY_FILTERS,
  sort: { key: 'id', descending: true },
  selected: new Set(),
};

function searchText(run: Run): string {
  const config = Object.entries(run.config).map(([key, value]) => `${key}=${value}`);
  return [run.command.join(' '), ...config, run.notes, ...run.tags, run.workloadName ?? ''].join('\n').toLowerCase();
}

function matches(run: Run, filters: Filters, words: readonly string[], text: string): boolean {
  if (filters.workload !== ALL && (filters.workload === AD_HOC ? run.workloadName !== null : run.workloadName !== filters.workload)) return false;
  if (filters.sweep === NO_SWEEP ? run.sweepId !== null : filters.sweep !== ALL && String(run.sweepId) !== filters.sweep) return false;
  if (filters.status !== ALL && run.status !== filters.status) return false;
  if (filters.tag !== ALL && !run.tags.includes(filters.tag)) return false;
  return words.every((word) => text.includes(word));
}

function sortValue(run: Run, key: SortKey, now: number): number | string | null {
  switch (key) {
    case 'id':
      return run.id;
    case 'started':
      return Date.parse(run.startedAt);
    case 'workload':
      return (run.workloadName ?? '').toLowerCase();
    case 'status':
      return run.status;
    case 'throughput':
      return run.summary.throughput.median;
    case 'duration':
      return runDurationMs(run, now);
  }
}

function compareRuns(a: Run, b: Run, sort: Sort, now: number): number {
  const x = sortValue(a, sort.key, now);
  const y = sortValue(b, sort.key, now);
  // Unknown values last, whichever the direction: a column sorted by throughput starts with figures.
  if (x === null || y === null) return x === y ? b.id - a.id : x === null ? 1 : -1;
  const order = x < y ? -1 : x > y ? 1 : b.id - a.id;
  return sort.descending ? -order : order;
}

function shortConfig(run: Run): string {
  return Object.entries(run.config)
    .filter(([key]) => !QUIET_VARIABLES.has(key))
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}

function SortHeader({
  label,
  sortKey,
  sort,
  onSort,
  numeric = false,
}: {
  label: string;
  sortKey: SortKey;
  sort: Sort;
  onSort: (key: SortKey) => void;
  numeric?: boolean;
}) {
  const active = sort.key === sortKey;
  return (
    <th className={numeric ? 'num' : undefined} aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
      <button type="button" className="sort-button" data-testid={`sort-${sortKey}`} onClick={() => onSort(sortKey)}>
        {label}
        <span className="sort-mark" aria-hidden="true">
          {active ? (sort.descending ? '▾' : '▴') : ''}
        </span>
      </button>
    </th>
  );
}

function useAllRuns(): { runs: ReadonlyMap<number, Run>; loaded: boolean; error: string | null; put: (run: Run) => void } {
  const bridge = useBridge();
  const connection = useConnectionState();
  const [runs, setRuns] = useState<ReadonlyMap<number, Run>>(() => new Map());
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const put = (run: Run) =>
    setRuns((prev) => {
      const next = new Map(prev);
      next.set(run.id, run);
      return next;
    });
  useEffect(
    () =>
      bridge.on('runs.onDidChange', (run) =>
        setRuns((prev) => {
          const next = new Map(prev);
          next.set(run.id, run);
          return next;
        }),
      ),
    [bridge],
  );
  // On every (re)connect: whatever changed while the socket was down arrives only this way.
  useEffect(() => {
    if (connection !== 'open') return;
    let cancelled = false;
    bridge.api['runs.list']({ limit: RUNS_TABLE_LIMIT }).then(
      (list) => {
        if (cancelled) return;
        setRuns(new Map(list.map((run) => [run.id, run])));
        setLoaded(true);
        setError(null);
      },
      (failure: unknown) => {
        if (!cancelled) setError(errorMessage(failure));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [bridge, connection]);
  return { runs, loaded, error, put };
}

export function RunsTable() {
  const { runs, loaded, error, put } = useAllRuns();
  const { sweeps } = useSweeps();
  const [, navigate] = useView();
  const [filters, setFilters] = useState<Filters>(remembered.filters);
  const [sort, setSort] = useState<Sort>(remembered.sort);
  const [selected, setSelected] = useState<ReadonlySet<number>>(remembered.selected);
  const [showAll, setShowAll] = useState(false);
  const all = useMemo(() => [...runs.values()], [runs]);
  const now = useNow(all.some((run) => run.status === 'running'));

  useEffect(() => {
    remembered = { filters, sort, selected };
  }, [filters, sort, selected]);

  const workloads = useMemo(() => [...new Set(all.flatMap((run) => (run.workloadName === null ? [] : [run.workloadName])))].sort(), [all]);
  const hasAdHoc = all.some((run) => run.workloadName === null);
  const tags = useMemo(() => [...new Set(all.flatMap((run) => run.tags))].sort(), [all]);
  const sweepIds = useMemo(() => [...new Set(all.flatMap((run) => (run.sweepId === null ? [] : [run.sweepId])))].sort((a, b) => b - a), [all]);
  const sweepName = (id: number) => sweeps.find((sweep) => sweep.id === id)?.name ?? 'sweep';
  const searchIndex = useMemo(() => new Map(all.map((run) => [run.id, searchText(run)])), [all]);

  const shown = useMemo(() => {
    const words = filters.text.toLowerCase().split(/\s+/u).filter(Boolean);
    return all.filter((run) => matches(run, filters, words, searchIndex.get(run.id) ?? '')).sort((a, b) => compareRuns(a, b, sort, now));
  }, [all, filters, sort, now, searchIndex]);
  const drawn = showAll ? shown : shown.slice(0, ROWS_SHOWN);

  const setFilter = (key: keyof Filters) => (value: string) => setFilters((prev) => ({ ...prev, [key]: value }));
  const onSort = (key: SortKey) =>
    setSort((prev) =>
      prev.key === key ? { key, descending: !prev.descending } : { key, descending: key === 'id' || key === 'started' || key === 'throughput' },
    );
  const toggle = (id: number) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const allShownSelected = shown.length > 0 && shown.every((run) => selected.has(run.id));
  const toggleAllShown = () =>
    setSelected((prev) => {
      const next = new Set(prev);
      for (const run of shown) {
        if (allShownSelected) next.delete(run.id);
        else next.add(run.id);
      }
      return next;
    });
  // Oldest first: the first run chosen is the natural baseline, and a before/after reads left to right.
  const selectedIds = [...selected].filter((id) => runs.has(id)).sort((a, b) => a - b);
  const canCompare = selectedIds.length >= 2;
  const filtered = JSON.stringify(filters) !== JSON.stringify(EMPTY_FILTERS);
  const sweepFilter = filters.sweep !== ALL && filters.sweep !== NO_SWEEP ? Number(filters.sweep) : null;

  return (
    <section className="runs-table-view" aria-label="All runs" data-testid="runs-table-view">
      <header className="view-header">
        <h2>Runs</h2>
        <span className="hint" data-testid="runs-count">
          {filtered ? `${shown.length} of ${all.length}` : `${all.length}`} run{all.length === 1 ? '' : 's'}
        </span>
        <span className="spacer" />
        {sweepFilter !== null && (
          <a className="button small" data-testid="compare-sweep-filter" href={viewHash(compareRoute({ sweepIds: [sweepFilter] }))}>
            Compare sweep #{sweepFilter}
          </a>
        )}
        {selectedIds.length > 0 && (
          <button type="button" className="button small" data-testid="clear-selection" onClick={() => setSelected(new Set())}>
            Clear selection
          </button>
        )}
        <button
          type="button"
          className="button primary"
          data-testid="compare-selected"
          disabled={!canCompare}
          title={canCompare ? `Compare runs ${selectedIds.join(', ')}; the first is the baseline` : 'Tick two or more runs to compare them'}
          onClick={() => navigate(compareRoute({ runIds: selectedIds, groupBy: 'run' }))}
        >
          Compare selected{selectedIds.length > 0 ? ` (${selectedIds.length})` : ''}
        </button>
      </header>
      <div className="table-filters" role="search" aria-label="Filter runs">
        <label className="filter">
          <span className="label">Workload</span>
          <select data-testid="filter-workload" value={filters.workload} onChange={(e) => setFilter('workload')(e.target.value)}>
            <option value={ALL}>all</option>
            {workloads.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
            {hasAdHoc && <option value={AD_HOC}>ad-hoc commands</option>}
          </select>
        </label>
        <label className="filter">
          <span className="label">Sweep</span>
          <select data-testid="filter-sweep" value={filters.sweep} onChange={(e) => setFilter('sweep')(e.target.value)}>
            <option value={ALL}>all</option>
            <option value={NO_SWEEP}>not in a sweep</option>
            {sweepIds.map((id) => (
              <option key={id} value={String(id)}>
                #{id} {sweepName(id)}
              </option>
            ))}
          </select>
        </label>
        <label className="filter">
          <span className="label">Status</span>
          <select data-testid="filter-status" value={filters.status} onChange={(e) => setFilter('status')(e.target.value)}>
            <option value={ALL}>all</option>
            {runStatus.options.map((status: RunStatus) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </label>
        <label className="filter">
          <span className="label">Tag</span>
          <select
            data-testid="filter-tag"
            value={filters.tag}
            onChange={(e) => setFilter('tag')(e.target.value)}
            disabled={tags.length === 0 && filters.tag === ALL}
          >
            <option value={ALL}>{tags.length === 0 ? 'no tags yet' : 'all'}</option>
            {tags.map((tag) => (
              <option key={tag} value={tag}>
                {tag}
              </option>
            ))}
          </select>
        </label>
        <label className="filter grow">
          <span className="label">Search</span>
          <input
            type="search"
            data-testid="filter-text"
            placeholder="command, config (batch=16), notes"
            value={filters.text}
            onChange={(e) => setFilter('text')(e.target.value)}
          />
        </label>
        {filtered && (
          <button type="button" className="button small" data-testid="clear-filters" onClick={() => setFilters(EMPTY_FILTERS)}>
            Clear filters
          </button>
        )}
      </div>
      {error && (
        <p className="inline-error table-note" role="alert">
          Could not list the runs: {error}
        </p>
      )}
      {loaded && all.length === 0 && <p className="placeholder">No runs yet. Start one from “New run”, or run a sweep.</p>}
      {loaded && all.length > 0 && shown.length === 0 && <p className="hint table-note">No run matches these filters.</p>}
      {shown.length > 0 && (
        <div className="table-scroll table-body">
          <table className="data-table runs-table" data-testid="runs-table">
            <thead>
              <tr>
                <th className="check">
                  <input
                    type="checkbox"
                    aria-label="Select every run shown"
                    data-testid="select-all-shown"
                    checked={allShownSelected}
                    onChange={toggleAllShown}
                  />
                </th>
                <SortHeader label="#" sortKey="id" sort={sort} onSort={onSort} />
                <SortHeader label="Started" sortKey="started" sort={sort} onSort={onSort} />
                <SortHeader label="Workload" sortKey="workload" sort={sort} onSort={onSort} />
                <th>Sweep</th>
                <SortHeader label="Status" sortKey="status" sort={sort} onSort={onSort} />
                <th>Config</th>
                <SortHeader label="Throughput" sortKey="throughput" sort={sort} onSort={onSort} numeric />
                <SortHeader label="Duration" sortKey="duration" sort={sort} onSort={onSort} numeric />
                <th>Tags</th>
                <th>Notes</th>
              </tr>
            </thead>
            <tbody>
              {drawn.map((run) => {
                const config = shortConfig(run);
                const { median, unit } = run.summary.throughput;
                return (
                  <tr key={run.id} data-testid={`runs-table-row-${run.id}`} aria-selected={selected.has(run.id)}>
                    <td className="check">
                      <input
                        type="checkbox"
                        aria-label={`Select run ${run.id}`}
                        data-testid={`select-run-${run.id}`}
                        checked={selected.has(run.id)}
                        onChange={() => toggle(run.id)}
                      />
                    </td>
                    <td className="num">
                      <a href={viewHash({ kind: 'run', id: run.id })} data-testid="run-link">
                        {run.id}
                      </a>
                    </td>
                    <td className="nowrap">
                      <time dateTime={run.startedAt}>{formatStartTime(run.startedAt)}</time>
                    </td>
                    <td>{run.workloadName ?? <span className="hint">ad-hoc</span>}</td>
                    <td className="nowrap">
                      {run.sweepId === null ? (
                        <span className="hint">–</span>
                      ) : (
                        <a href={viewHash({ kind: 'sweep', id: run.sweepId })} title={sweepName(run.sweepId)}>
                          #{run.sweepId}
                          {run.configIndex !== null && <span className="hint"> c{run.configIndex}</span>}
                          {run.repeatIndex !== null && <span className="hint">·r{run.repeatIndex + 1}</span>}
                        </a>
                      )}
                    </td>
                    <td className="nowrap">
                      <StatusBadge status={run.status} />
                      <ExitClassBadge exitClass={run.exitClass} />
                    </td>
                    <td className="config-cell mono" title={run.command.join(' ')}>
                      <span className="clip">{config || <span className="hint">{run.command.slice(0, 3).join(' ')}</span>}</span>
                    </td>
                    <td className="num" data-testid="run-throughput">
                      {formatNumber(median)}
                      {median !== null && unit && <span className="unit"> {unit}</span>}
                    </td>
                    <td className="num">{formatDuration(runDurationMs(run, now))}</td>
                    <td className="tags-cell">
                      <TagsCell run={run} onSaved={put} />
                    </td>
                    <td className="notes-cell">
                      <NotesCell run={run} onSaved={put} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {!showAll && shown.length > ROWS_SHOWN && (
            <button type="button" className="button small show-all" onClick={() => setShowAll(true)}>
              Show all {shown.length} runs
            </button>
          )}
        </div>
      )}
    </section>
  );
}
