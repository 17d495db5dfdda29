// Hands the one Bridge to every component, and exposes its connection state as React state.
import { createContext, useCallback, useContext, useSyncExternalStore } from 'react';
import type { Bridge, ConnectionState } from './types.js';

export const BridgeContext = createContext<Bridge | null>(null);

export function useBridge(): Bridge {
  const bridge = useContext(BridgeContext);
  if (!bridge) throw new Error('useBridge() needs a <BridgeContext.Provider> above it');
  return bridge;
}

export function useConnectionState(): ConnectionState {
  const bridge = useBridge();
  // Stable callbacks, or React would resubscribe on every render.
  const subscribe = useCallback((onChange: () => void) => bridge.onConnectionState(onChange), [bridge]);
  const getSnapshot = useCallback(() => bridge.connectionState(), [bridge]);
  return useSyncExternalStore(subscribe, getSnapshot);
}
