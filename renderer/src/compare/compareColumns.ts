// Which of the comparison table's optional columns are drawn: none that is empty in every row (GPU columns on a box
// without a GPU), and none a person hid (kept across reloads), so the table fits a 900 px window.
import { useState } from 'react';
import type { ComparisonRow } from '../../../electron/shared/api.js';

export interface OptionalColumn {
  /** Also the column's heading. */
  label: string;
  hasData: (row: ComparisonRow) => boolean;
}

/** In the table's order; Config, throughput, speedup, verdict, n and gate are always drawn (what a comparison is). */
export const OPTIONAL_COLUMNS = [
  { label: 'Step ms', hasData: (row) => row.stepTimeMs !== null },
  { label: 'VRAM', hasData: (row) => row.vramPeakMiB !== null },
  { label: 'Util %', hasData: (row) => row.utilMean !== null },
  { label: 'Power W', hasData: (row) => row.powerMeanW !== null },
  { label: 'J / 1k tok', hasData: (row) => row.energyPer1kTokensJ !== null },
  { label: 'Loss', hasData: (row) => row.finalLoss !== null },
  { label: 'Eval loss', hasData: (row) => row.evalLoss !== null },
  { label: 'Compared', hasData: (row) => row.compared !== null },
  { label: 'Δ', hasData: (row) => !row.isBaseline && row.lossDelta !== null },
  // Every run ended ok: a column of "ok" says nothing (and costs the table its last column's room).
  { label: 'Exit', hasData: (row) => row.exitClasses.some((exit) => exit !== 'ok') },
] as const satisfies readonly OptionalColumn[];

export type OptionalColumnLabel = (typeof OPTIONAL_COLUMNS)[number]['label'];

const HIDDEN_KEY = 'tuning-bench.compareHiddenColumns';

function readHidden(): ReadonlySet<string> {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(HIDDEN_KEY) ?? '[]');
    return new Set(Array.isArray(parsed) ? parsed.filter((label): label is string => typeof label === 'string') : []);
  } catch {
    // Storage switched off or another value: every column with data is drawn.
    return new Set();
  }
}

export interface CompareColumns {
  /** Whether the column is drawn: it has data in some row and is not hidden. */
  shows: (label: OptionalColumnLabel) => boolean;
  /** Columns with data, for the chooser: hidden or not. */
  withData: readonly { label: OptionalColumnLabel; hidden: boolean }[];
  /** Columns dropped because no row has a value in them. */
  empty: readonly OptionalColumnLabel[];
  setHidden: (label: OptionalColumnLabel, hidden: boolean) => void;
}

export function useCompareColumns(rows: readonly ComparisonRow[]): CompareColumns {
  const [hidden, setHiddenSet] = useState<ReadonlySet<string>>(readHidden);
  const has = new Set<string>(OPTIONAL_COLUMNS.filter((column) => rows.some((row) => column.hasData(row))).map((column) => column.label));
  const setHidden = (label: OptionalColumnLabel, hide: boolean) => {
    const next = new Set(hidden);
    if (hide) next.add(label);
    else next.delete(label);
    setHiddenSet(next);
    try {
      window.localStorage.setItem(HIDDEN_KEY, JSON.stringify([...next]));
    } catch {
      // Not remembered, and nothing else lost.
    }
  };
  return {
    shows: (label) => has.has(label) && !hidden.has(label),
    withData: OPTIONAL_COLUMNS.filter((column) => has.has(column.label)).map((column) => ({ label: column.label, hidden: hidden.has(column.label) })),
    empty: OPTIONAL_COLUMNS.filter((column) => !has.has(column.label)).map((column) => column.label),
    setHidden,
  };
}
