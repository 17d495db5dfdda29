// One run's terminal: a toolbar over xterm, fed by OutputFeed; keys and size go to the pty while the run lives.
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { Terminal as XTerm } from '@xterm/xterm';
import './terminal.css';
import '@xterm/xterm/css/xterm.css';
import { useCallback, useEffect, useRef, useState } from 'react';
import { LIMITS } from '../../../../electron/shared/api.js';
import { focusAfter } from '../../shared/focusAfter.js';
import { useBridge } from '../../bridge/context.js';
import { darkScheme } from '../../shared/colourScheme.js';
import { errorMessage } from '../../shared/format.js';
import { outputAcksFor } from './outputAcks.js';
import { OutputFeed } from './outputFeed.js';
import { textToCopy } from './terminalText.js';
import { clampTerminalSize, TERMINAL_FONT_FAMILY, TERMINAL_FONT_SIZE_PX } from '../../shared/runFeed/terminalSize.js';
import { searchDecorations, terminalTheme } from './xtermThemes.js';
import { TerminalToolbar } from './TerminalToolbar.js';
import type { CopyStatus } from '../../shared/copyStatus.js';
import type { SearchDirection, SearchResults } from './TerminalSearch.js';

/** Lines kept above the screen; the store keeps everything, so this only bounds the view's memory. */
const SCROLLBACK_LINES = 5000;
/** A replay shows at most this many lines: within the scrollback with room for long lines that wrap, so its notice stays. */
const REPLAY_MAX_LINES = 4000;
/** Window resizes come in bursts; the pty needs only the size it settles on. */
const RESIZE_DEBOUNCE_MS = 100;
/** Long enough to read "Copied", short enough not to linger. */
const COPY_FEEDBACK_MS = 1500;
/** The addon's default: beyond it, it says "1000+" rather than decorating every match of a flood. */
const SEARCH_HIGHLIGHT_LIMIT = 1000;

/** Splits a paste into writes the contract accepts, never between the halves of a surrogate pair. */
function splitForWrite(data: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < data.length) {
    let end = Math.min(data.length, start + LIMITS.writeChars);
    const last = data.charCodeAt(end - 1);
    if (end < data.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    pieces.push(data.slice(start, end));
    start = end;
  }
  return pieces;
}

interface TerminalProps {
  runId: number;
  running: boolean;
}

/** Shortcuts taken from the pty while the terminal has focus, as in a desktop terminal: find and copy. */
function shortcut(event: KeyboardEvent): 'find' | 'copy' | null {
  if (!event.ctrlKey || event.altKey || event.metaKey) return null;
  const key = event.key.toLowerCase();
  if (key === 'f') return 'find';
  if (key === 'c' && event.shiftKey) return 'copy';
  return null;
}

export function Terminal({ runId, running }: TerminalProps) {
  const bridge = useBridge();
  const containerRef = useRef<HTMLDivElement>(null);
  const xtermRef = useRef<XTerm | null>(null);
  const searchRef = useRef<SearchAddon | null>(null);
  const feedRef = useRef<OutputFeed | null>(null);
  const runningRef = useRef(running);
  const wasRunningRef = useRef(running);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [timestamps, setTimestamps] = useState(false);
  const [searchResults, setSearchResults] = useState<SearchResults | null>(null);
  const [searchFocusRequest, setSearchFocusRequest] = useState(0);
  const [copyStatus, setCopyStatus] = useState<CopyStatus>('idle');

  const copy = useCallback((selectionOnly: boolean) => {
    const term = xtermRef.current;
    if (!term) return;
    const text = selectionOnly ? term.getSelection() : textToCopy(term);
    if (text === '') return;
    // Only a secure context has a clipboard (Electron's page and 127.0.0.1 are; a page proxied over plain HTTP is not).
    const clipboard = navigator.clipboard as Clipboard | undefined;
    if (!clipboard) {
      setCopyStatus('failed');
      return;
    }
    clipboard.writeText(text).then(
      () => setCopyStatus('copied'),
      (error: unknown) => {
        console.warn(`copy: ${errorMessage(error)}`);
        setCopyStatus('failed');
      },
    );
  }, []);

  useEffect(() => {
    if (copyStatus === 'idle') return;
    const timer = setTimeout(() => setCopyStatus('idle'), COPY_FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [copyStatus]);

  // --- the terminal itself: created once per run, with input, size and search; output comes from the feed below.
  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const { api } = bridge;
    const scheme = darkScheme();
    const term = new XTerm({
      // The store holds the program's bytes exactly and the pty does not turn LF into CRLF, so xterm must.
      convertEol: true,
      scrollback: SCROLLBACK_LINES,
      fontFamily: TERMINAL_FONT_FAMILY,
      fontSize: TERMINAL_FONT_SIZE_PX,
      theme: terminalTheme(),
      cursorBlink: false,
      // A finished run's terminal is a log to read and copy from; an outline cursor there would suggest otherwise.
      cursorInactiveStyle: 'none',
      disableStdin: !runningRef.current,
      // The search addon highlights matches with decorations, which xterm 6 still counts as proposed API.
      allowProposedApi: true,
    });
    const fit = new FitAddon();
    const search = new SearchAddon({ highlightLimit: SEARCH_HIGHLIGHT_LIMIT });
    term.loadAddon(fit);
    term.loadAddon(search);
    term.open(container);
    xtermRef.current = term;
    searchRef.current = search;
    let disposed = false;

    const onResults = search.onDidChangeResults((results) => setSearchResults(results));
    const onSchemeChange = () => {
      term.options.theme = terminalTheme();
    };
    scheme.addEventListener('change', onSchemeChange);

    term.attachCustomKeyEventHandler((event) => {
      // The keyboard is held only while the terminal is typed into: Esc leaves it (the program does not get that Esc),
      // and a finished run's terminal is a log, where Tab and Shift+Tab move on through the page as anywhere else.
      if (event.key === 'Escape' && !event.ctrlKey && !event.altKey && !event.metaKey && !event.shiftKey) {
        if (event.type === 'keydown' && !focusAfter(container)) term.blur();
        return false;
      }
      if (event.key === 'Tab' && !runningRef.current) return false;
      const action = shortcut(event);
      if (action === null) return true;
      if (event.type === 'keydown') {
        // Not the browser's own find, and not a key for the program.
        event.preventDefault();
        if (action === 'find') setSearchFocusRequest((n) => n + 1);
        else copy(true);
      }
      return false;
    });

    // --- input: keys and pastes go to the pty in order.
    let writes = Promise.resolve();
    const onData = term.onData((data) => {
      if (!runningRef.current) return;
      for (const piece of splitForWrite(data)) {
        writes = writes
          .then(() => api['runs.write']({ id: runId, data: piece }))
          .then(
            () => undefined,
            // The run may end between a key press and its delivery; that is not worth a dialog.
            (error: unknown) => console.warn(`runs.write #${runId}: ${errorMessage(error)}`),
          );
      }
    });

    // --- size: refit to the container and tell the pty, so full-screen programs (tqdm bars) wrap right.
    let resizeTimer: ReturnType<typeof setTimeout> | undefined;
    const sendSize = () => {
      if (!runningRef.current) return;
      const size = clampTerminalSize({ cols: term.cols, rows: term.rows });
      api['runs.resize']({ id: runId, ...size }).catch((error: unknown) => console.warn(`runs.resize #${runId}: ${errorMessage(error)}`));
    };
    const onResize = term.onResize(() => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(sendSize, RESIZE_DEBOUNCE_MS);
    });
    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        // A hidden or collapsed container proposes no size; fitting then would shrink the terminal to nothing.
        if (!disposed && container.clientWidth > 0 && container.clientHeight > 0) fit.fit();
      });
    });
    observer.observe(container);
    if (container.clientWidth > 0 && container.clientHeight > 0) fit.fit();
    // The pty was started with an estimated size; give it the real one.
    sendSize();
    if (runningRef.current) term.focus();

    return () => {
      disposed = true;
      xtermRef.current = null;
      searchRef.current = null;
      observer.disconnect();
      cancelAnimationFrame(frame);
      clearTimeout(resizeTimer);
      scheme.removeEventListener('change', onSchemeChange);
      onResults.dispose();
      onData.dispose();
      onResize.dispose();
      term.dispose();
    };
  }, [bridge, runId, copy]);

  // --- output: one feed per terminal and view mode; the timestamps view starts over from the stored output.
  useEffect(() => {
    const term = xtermRef.current;
    if (!term) return;
    const acks = outputAcksFor(bridge).watch(runId);
    const feed = new OutputFeed({
      runId,
      maxLines: REPLAY_MAX_LINES,
      api: bridge.api,
      terminal: term,
      acks,
      timestamps,
      onError: setLoadError,
    });
    feedRef.current = feed;
    // Subscribed before the replay is fetched, so nothing produced while it is in flight is lost.
    const offOutput = bridge.on('runs.onOutput', (event) => {
      if (event.runId === runId) feed.live(event);
    });
    // Events sent while the socket was down are gone; the store has them.
    let connectionLost = false;
    const offConnection = bridge.onConnectionState((state) => {
      if (state === 'reconnecting') connectionLost = true;
      if (state === 'open' && connectionLost) {
        connectionLost = false;
        feed.catchUp();
      }
    });
    feed.start();
    return () => {
      offOutput();
      offConnection();
      feed.dispose();
      acks.dispose();
      if (feedRef.current === feed) feedRef.current = null;
    };
  }, [bridge, runId, timestamps]);

  useEffect(() => {
    runningRef.current = running;
    const term = xtermRef.current;
    if (term) {
      term.options.disableStdin = !running;
      if (!running) term.blur();
    }
    // The run's last output may have been held back from this view; the store has all of it now.
    if (wasRunningRef.current && !running) feedRef.current?.catchUp();
    wasRunningRef.current = running;
  }, [running]);

  const find = useCallback((query: string, direction: SearchDirection, incremental: boolean) => {
    const search = searchRef.current;
    if (!search) return;
    const options = { incremental, decorations: searchDecorations() };
    if (direction === 'next') search.findNext(query, options);
    else search.findPrevious(query, options);
  }, []);

  const clearSearch = useCallback(() => {
    searchRef.current?.clearDecorations();
    setSearchResults(null);
  }, []);

  /** The new feed clears the terminal and replays it with or without times; matches found before would point nowhere. */
  const setTimestampsView = (on: boolean) => {
    clearSearch();
    setTimestamps(on);
  };

  return (
    <div className="terminal-frame">
      <TerminalToolbar
        runId={runId}
        searchResults={searchResults}
        searchFocusRequest={searchFocusRequest}
        onFind={find}
        onClearSearch={clearSearch}
        onLeaveSearch={() => xtermRef.current?.focus()}
        copyStatus={copyStatus}
        onCopy={() => copy(false)}
        timestamps={timestamps}
        onTimestampsChange={setTimestampsView}
      />
      {loadError && (
        <div className="terminal-error" role="alert">
          Could not load the stored output: {loadError}
        </div>
      )}
      <div
        className="terminal-host"
        data-testid="terminal"
        ref={containerRef}
        title={running ? 'Keys go to the run, Tab too; Esc leaves the terminal' : undefined}
      />
    </div>
  );
}
