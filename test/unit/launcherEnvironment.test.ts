import { describe, expect, it } from 'vitest';
import { launcherEnvironment } from '../../electron/core/runner/ptySession.js';

function handoff(env: Record<string, string>): { remove: string[]; restore: Record<string, string> } {
  return JSON.parse(env.TUNING_BENCH_WRAPPER_HANDOFF!) as { remove: string[]; restore: Record<string, string> };
}

describe('launcherEnvironment', () => {
  it("gives Electron's run-as-Node switch to the launcher and takes it away from the program", () => {
    const env = launcherEnvironment({ PATH: '/usr/bin' }, { node: '/opt/app/tuning-bench', env: { ELECTRON_RUN_AS_NODE: '1' } });
    expect(env).toMatchObject({ PATH: '/usr/bin', ELECTRON_RUN_AS_NODE: '1' });
    expect(handoff(env)).toEqual({ remove: ['ELECTRON_RUN_AS_NODE'], restore: {} });
  });

  it("keeps the program's own value of a variable the launcher needs, to give it back", () => {
    const env = launcherEnvironment({ ELECTRON_RUN_AS_NODE: '1' }, { node: '/opt/app/tuning-bench', env: { ELECTRON_RUN_AS_NODE: '1' } });
    expect(handoff(env)).toEqual({ remove: [], restore: { ELECTRON_RUN_AS_NODE: '1' } });
  });

  it("keeps NODE_OPTIONS away from the launcher's own start", () => {
    const env = launcherEnvironment({ NODE_OPTIONS: '--require ./trace.js' }, { node: '/usr/bin/node', env: {} });
    expect(env.NODE_OPTIONS).toBeUndefined();
    expect(handoff(env)).toEqual({ remove: [], restore: { NODE_OPTIONS: '--require ./trace.js' } });
  });
});
