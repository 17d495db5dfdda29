// The app: picks the transport once (taking over the page's early WebSocket in headless mode) and renders around it.
// Loaded by boot.ts, the page's entry point.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import type { EarlySocket } from './bridge/earlySocket.js';
import { createBridge } from './bridge/index.js';
import { BridgeContext } from './bridge/context.js';
import { outputAcksFor } from './runs/terminal/outputAcks.js';

export function startApp(early: EarlySocket | null): void {
  const container = document.getElementById('root');
  if (!container) throw new Error('index.html has no #root element');

  const bridge = createBridge(early);
  // From the first event on, before any view: output of a run nobody looks at must be acknowledged too. Events the
  // early socket kept come in a microtask, after this line.
  outputAcksFor(bridge);

  createRoot(container).render(
    <StrictMode>
      <BridgeContext.Provider value={bridge}>
        <App />
      </BridgeContext.Provider>
    </StrictMode>,
  );
}
