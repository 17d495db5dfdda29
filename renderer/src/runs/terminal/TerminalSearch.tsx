// The terminal toolbar's search box: type to highlight matches, Enter for the next, Shift+Enter the previous, Esc to leave.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import './terminal.css';

export type SearchDirection = 'next' | 'previous';

/** As the search addon reports them: resultIndex is -1 when there are more matches than it highlights. */
export interface SearchResults {
  resultIndex: number;
  resultCount: number;
}

interface TerminalSearchProps {
  results: SearchResults | null;
  /** Bumped by Ctrl+F in the terminal: focus the box. */
  focusRequest: number;
  onFind: (query: string, direction: SearchDirection, incremental: boolean) => void;
  onClear: () => void;
  /** Esc: back to the terminal. */
  onLeave: () => void;
}

function resultsText(results: SearchResults | null): string {
  if (!results) return '';
  if (results.resultCount === 0) return 'No match';
  if (results.resultIndex < 0) return `${results.resultCount}+ matches`;
  return `${results.resultIndex + 1} of ${results.resultCount}`;
}

export function TerminalSearch({ results, focusRequest, onFind, onClear, onLeave }: TerminalSearchProps) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');

  useEffect(() => {
    if (focusRequest === 0) return;
    inputRef.current?.focus();
    inputRef.current?.select();
  }, [focusRequest]);

  const change = (value: string) => {
    setQuery(value);
    // Incremental: the match grows with the typing instead of jumping to the next one at each key.
    if (value === '') onClear();
    else onFind(value, 'next', true);
  };

  const keyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      if (query !== '') onFind(query, event.shiftKey ? 'previous' : 'next', false);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      setQuery('');
      onClear();
      onLeave();
    }
  };

  const find = (direction: SearchDirection) => {
    if (query !== '') onFind(query, direction, false);
  };

  return (
    <div className="terminal-search" role="search">
      <input
        ref={inputRef}
        className="mono"
        data-testid="terminal-search"
        aria-label="Search the output"
        placeholder="Search output (Ctrl+F)"
        spellCheck={false}
        value={query}
        onChange={(event) => change(event.target.value)}
        onKeyDown={keyDown}
      />
      <button
        type="button"
        className="button small icon"
        data-testid="search-prev"
        title="Previous match (Shift+Enter)"
        aria-label="Previous match"
        disabled={query === ''}
        onClick={() => find('previous')}
      >
        ↑
      </button>
      <button
        type="button"
        className="button small icon"
        data-testid="search-next"
        title="Next match (Enter)"
        aria-label="Next match"
        disabled={query === ''}
        onClick={() => find('next')}
      >
        ↓
      </button>
      <span className="search-results" data-testid="search-results" aria-live="polite">
        {query === '' ? '' : resultsText(results)}
      </span>
    </div>
  );
}
