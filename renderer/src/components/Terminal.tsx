// One run's terminal: stored output first, then live output deduplicated by seq; keys and size go to the pty while it runs.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal as XTerm, type ITheme } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import { LIMITS } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage } from '../format.js';
import { clampTerminalSize, TERMINAL_FONT_FAMILY, TERMINAL_FONT_SIZE_PX } from '../terminalSize.js';

/** Lines kept above the screen; the store keeps everything, so this only bounds the view's memory. */
const SCROLLBACK_LINES = 5000;
/** Pages of stored output fetched in one catch-up at most; ends a loop against a server that never says "complete". */
const MAX_OUTPUT_PAGES = 1000;
/** Window resizes come in bursts; the pty needs only the size it settles on. */
const RESIZE_DEBOUNCE_MS = 100;

const DARK_THEME: ITheme = {
  background: '#0d1117',
  foreground: '#d6dde6',
  cursor: '#d6dde6',
  cursorAccent: '#0d1117',
  selectionBackground: '#2f4a6d',
  black: '#1b1f24',
  red: '#f47067',
  green: '#57c47a',
  yellow: '#e0b341',
  blue: '#539bf5',
  magenta: '#c38fff',
  cyan: '#39c5cf',
  white: '#c9d1d9',
  brightBlack: '#6e7681',
  brightRed: '#ff938a',
  brightGreen: '#7ee2a0',
  brightYellow: '#f2cc60',
  brightBlue: '#79b8ff',
  brightMagenta: '#dcbdfb',
  brightCyan: '#56d4dd',
  brightWhite: '#f0f6fc',
};

const LIGHT_THEME: ITheme = {
  background: '#fbfcfd',
  foreground: '#1f2328',
  cursor: '#1f2328',
  cursorAccent: '#fbfcfd',
  selectionBackground: '#b6d3f7',
  black: '#24292f',
  red: '#cf222e',
  green: '#1a7f37',
  yellow: '#9a6700',
  blue: '#0969da',
  magenta: '#8250df',
  cyan: '#1b7c83',
  white: '#6e7781',
  brightBlack: '#57606a',
  brightRed: '#a40e26',
  brightGreen: '#116329',
  brightYellow: '#7d4e00',
  brightBlue: '#0550ae',
  brightMagenta: '#6639ba',
  brightCyan: '#136061',
  brightWhite: '#8c959f',
};

const darkScheme = () => window.matchMedia('(prefers-color-scheme: dark)');

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

export function Terminal({ runId, running }: TerminalProps) {
  const bridge = useBridge();
  const containerRef = useRef<HTMLDivElement>(null);
  const xtermRef = useRef<XTerm | null>(null);
  const runningRef = useRef(running);
  const [loadError, setLoadError] = useState<string | null>(null);

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
      theme: scheme.matches ? DARK_THEME : LIGHT_THEME,
      cursorBlink: false,
      // A finished run's terminal is a log to read and copy from; an outline cursor there would suggest otherwise.
      cursorInactiveStyle: 'none',
      disableStdin: !runningRef.current,
      allowProposedApi: false,
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(container);
    xtermRef.current = term;
    let disposed = false;

    const onSchemeChange = () => {
      term.options.theme = scheme.matches ? DARK_THEME : LIGHT_THEME;
    };
    scheme.addEventListener('change', onSchemeChange);

    // --- output: stored chunks, then live events; `lastSeq` makes the two meet without gaps or repeats.
    let lastSeq = -1;
    let catchingUp = 0;
    let buffered: { seq: number; data: string }[] = [];
    const apply = (seq: number, data: string) => {
      if (seq <= lastSeq) return;
      lastSeq = seq;
      term.write(data);
    };
    const catchUp = async () => {
      catchingUp += 1;
      try {
        for (let page = 0; page < MAX_OUTPUT_PAGES; page += 1) {
          const { chunks, complete } = await api['runs.output']({ id: runId, afterSeq: lastSeq });
          if (disposed) return;
          for (const chunk of chunks) apply(chunk.seq, chunk.data);
          if (complete || chunks.length === 0) break;
        }
        setLoadError(null);
      } catch (error) {
        if (!disposed) setLoadError(errorMessage(error));
      } finally {
        catchingUp -= 1;
        if (catchingUp === 0 && !disposed) {
          const pending = buffered.sort((a, b) => a.seq - b.seq);
          buffered = [];
          for (const event of pending) apply(event.seq, event.data);
        }
      }
    };
    // Subscribed before the first fetch, so nothing produced while it is in flight is lost.
    const offOutput = bridge.on('runs.onOutput', (event) => {
      if (event.runId !== runId) return;
      if (catchingUp > 0) buffered.push(event);
      else apply(event.seq, event.data);
    });
    void catchUp();
    // Events sent while the socket was down are gone; the store has them.
    let connectionLost = false;
    const offConnection = bridge.onConnectionState((state) => {
      if (state === 'reconnecting') connectionLost = true;
      if (state === 'open' && connectionLost) {
        connectionLost = false;
        void catchUp();
      }
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
      api['runs.resize']({ id: runId, ...size }).catch((error: unknown) =>
        console.warn(`runs.resize #${runId}: ${errorMessage(error)}`),
      );
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
      observer.disconnect();
      cancelAnimationFrame(frame);
      clearTimeout(resizeTimer);
      scheme.removeEventListener('change', onSchemeChange);
      offOutput();
      offConnection();
      onData.dispose();
      onResize.dispose();
      term.dispose();
    };
  }, [bridge, runId]);

  useEffect(() => {
    runningRef.current = running;
    const term = xtermRef.current;
    if (!term) return;
    term.options.disableStdin = !running;
    if (!running) term.blur();
  }, [running]);

  return (
    <div className="terminal-frame">
      {loadError && (
        <div className="terminal-error" role="alert">
          Could not load the stored output: {loadError}
        </div>
      )}
      <div className="terminal-host" data-testid="terminal" ref={containerRef} />
    </div>
  );
}
