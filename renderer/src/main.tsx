// Entry point: picks the transport once and renders the app around it.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { createBridge } from './bridge/index.js';
import { BridgeContext } from './bridge/context.js';
import { outputAcksFor } from './outputAcks.js';
import './styles.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

const bridge = createBridge();
// From the first event on, before any view: output of a run nobody looks at must be acknowledged too.
outputAcksFor(bridge);

createRoot(container).render(
  <StrictMode>
    <BridgeContext.Provider value={bridge}>
      <App />
    </BridgeContext.Provider>
  </StrictMode>,
);
