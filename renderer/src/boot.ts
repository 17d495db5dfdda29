// The page's entry point, a few hundred bytes: in headless mode it opens the WebSocket at once, so the handshake runs
// while the app's code (about 700 kB) downloads and parses; then it loads the app, which takes that socket over.
// Inside Electron the preload's IPC needs no connection, and the app is loaded straight away.
import { openEarlySocket } from './bridge/earlySocket.js';
import { callKey } from './bridge/callKey.js';
import { earlyCallsFor } from './compare/compareRequests.js';
import './shared/base.css';

const early = window.tuningBench ? null : openEarlySocket(window.location);
// A comparison's two queries go out with the handshake: the engine computes them while the app's code loads.
early?.sendEarly(earlyCallsFor(window.location.hash).map((call) => ({ ...call, key: callKey(call.method, call.input) })));

import('./main.js').then(
  ({ startApp }) => startApp(early),
  (error: unknown) => {
    const root = document.getElementById('root');
    if (root) root.textContent = `Tuning Bench could not load its code: ${error instanceof Error ? error.message : String(error)}. Reload the page.`;
  },
);
