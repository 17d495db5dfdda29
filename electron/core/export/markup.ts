// Markdown and HTML building blocks the exports share: escaping, tables that leave out empty columns, and the head of a self-contained page.

/** Text for a Markdown table cell or line: a `|` would end the cell and a line break the row. */
export function escapeMarkdown(text: string): string {
  return text.replace(/\|/gu, '\\|').replace(/\n/gu, ' ');
}

/** Text as HTML text or attribute value: nothing from a run (a command, a config name) becomes markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/gu, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A column of a table: its header, its cell for an item, and whether its figures are right-aligned. */
export interface Column<T> {
  title: string;
  cell: (item: T) => string;
  numeric?: boolean;
  /** HTML only: kept on one line though not a figure (short values such as `3e-4`, which a browser would break at the hyphen). */
  whole?: boolean;
  /** HTML only: a second, smaller line under the cell (an interval under its figure) and under the title (its name). */
  detail?: (item: T) => string;
  subtitle?: string;
}

/**
 * The columns with something to show: a column empty in every row (VRAM, power and energy on a box without a GPU,
 * fairness when every run was fair) says nothing and only widens the table. The first column always stays.
 */
export function columnsWithData<T>(columns: ReadonlyArray<Column<T>>, items: readonly T[]): Array<Column<T>> {
  return columns.filter((column, i) => i === 0 || items.some((item) => column.cell(item) !== '' || (column.detail?.(item) ?? '') !== ''));
}

/** A cell's text and, under it, its detail in a smaller line; figures stay whole, words may break (below). */
function twoLines(main: string, detail: string | undefined, numeric: boolean): string {
  const html = numeric ? escapeHtml : breakable;
  return detail === undefined || detail === '' ? html(main) : `${html(main)}<br><span class="sub">${html(detail)}</span>`;
}

/**
 * Text that may break after `_`, `=` and `/` (a `<wbr>` there), escaped: `gradient_accumulation_steps=4` or a path
 * would otherwise be as wide as the whole word, and a table of such names wider than the window.
 */
function breakable(text: string): string {
  return escapeHtml(text).replace(/([_=/])(?=\S)/gu, '$1<wbr>');
}

/** A table whose empty columns are left out ('' when only the first column would be left); numeric cells right-aligned and kept on one line. */
export function htmlTable<T>(columns: ReadonlyArray<Column<T>>, items: readonly T[], rowClass: (item: T) => string, testId: string): string {
  const shown = columnsWithData(columns, items);
  if (shown.length < 2) return '';
  const cellClass = (column: Column<T>) => (column.numeric ? ' class="num"' : column.whole ? ' class="whole"' : '');
  const head = shown.map((c) => `<th${cellClass(c)}>${twoLines(c.title, c.subtitle, false)}</th>`).join('');
  const body = items
    .map((item) => {
      const cls = rowClass(item);
      return `<tr${cls === '' ? '' : ` class="${cls}"`}>${shown.map((c) => `<td${cellClass(c)}>${twoLines(c.cell(item), c.detail?.(item), c.numeric === true)}</td>`).join('')}</tr>`;
    })
    .join('\n');
  return `<div class="table"><table data-testid="${testId}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

/** A GitHub table of the given columns, as lines: its header, its rule (figures right-aligned) and a line per item. */
export function markdownTable<T>(columns: ReadonlyArray<Column<T>>, items: readonly T[]): string[] {
  const line = (cells: string[]) => `| ${cells.map(escapeMarkdown).join(' | ')} |`;
  const rule = `|${columns.map((c) => (c.numeric ? ' ---: ' : ' --- ')).join('|')}|`;
  return [line(columns.map((c) => c.title)), rule, ...items.map((item) => line(columns.map((c) => c.cell(item))))];
}

/** The report pages' style: light and dark, tables that scroll rather than overflow the window. */
const PAGE_STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem;color:#1b1f24;background:#fff}
p,li{overflow-wrap:anywhere}.row-notes{padding-left:1.2rem;margin:.4rem 0}
.table{max-width:100%;overflow-x:auto;margin:1rem 0}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #d0d7de;padding:.25rem .4rem;text-align:left;vertical-align:top}
th{font-weight:600}td.num,th.num{text-align:right}td.num,td.whole{white-space:nowrap}.sub{font-size:11px;font-weight:400;color:#57606a}
tr.best{background:#e6f4ea}tr.fail td{color:#a40e26}
figure{display:inline-block;vertical-align:top;margin:0 1.5rem 1.5rem 0;max-width:100%}figure.wide{display:block}
figure svg{max-width:100%;height:auto}figcaption{font-weight:600;margin-bottom:.3rem}.notes{color:#57606a}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}td,th{border-color:#30363d}tr.best{background:#12361f}.notes,.sub{color:#8b949e}}`;

/**
 * A self-contained page up to its `<body>`: no external resource (the CSP allows inline style and data: images only),
 * with `extraStyle` after the shared style.
 */
export function htmlPageStart(title: string, extraStyle = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>
${PAGE_STYLE}${extraStyle === '' ? '' : `\n${extraStyle}`}
</style></head><body>`;
}
