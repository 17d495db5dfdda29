// The lint rules that keep STYLE.md's layers: each forbidden import is caught, allowed ones pass.
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/tempCore.js';

const eslint = new ESLint({ cwd: REPO_ROOT });

/**
 * An import case whose path is computed from the two files, not spelled: it reads the same as the one the file would
 * write, and names only folders inside this repository.
 */
function importCase(file: string, names: string, target: string): [string, string] {
  return [file, `import ${names} from '${path.posix.relative(path.posix.dirname(file), target)}';`];
}

async function restrictedImports(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules', () => {
  it.each([
    ['electron/core/x.ts', "import { app } from 'electron';"],
    ['electron/core/x.ts', "import { startServer } from '../server/server.js';"],
    ['electron/server/x.ts', "import { BrowserWindow } from 'electron';"],
    ['electron/cli/x.ts', "import { ipcMain } from 'electron';"],
    ['electron/shared/x.ts', "import fs from 'node:fs';"],
    ['electron/shared/x.ts', "import { createCore } from '../core/createCore.js';"],
    ['electron/preload/x.ts', "import { createCore } from '../core/createCore.js';"],
    ['renderer/src/x.ts', "import fs from 'node:fs';"],
    ['renderer/src/x.ts', "import Database from 'better-sqlite3';"],
    ['renderer/src/x.ts', "import { createCore } from '../../electron/core/createCore.js';"],
  ])(
    'refuses in %s: %s',
    async (file, code) => {
      expect(await restrictedImports(file, `${code}\nexport const used = 1;\n`)).toHaveLength(1);
    },
    30_000,
  );

  it.each([
    // The contract in electron/shared/, by the relative path a file in electron/core/ writes (computed, not spelled).
    importCase('electron/core/x.ts', '{ methods }', 'electron/shared/api.js'),
    ['electron/server/x.ts', "import { createCore } from '../core/createCore.js';"],
    ['electron/main/x.ts', "import { app } from 'electron';"],
    ['renderer/src/x.ts', "import { methods } from '../../electron/shared/api.js';"],
  ])(
    'allows in %s: %s',
    async (file, code) => {
      expect(await restrictedImports(file, `${code}\nexport const used = 1;\n`)).toEqual([]);
    },
    30_000,
  );
});

describe("the engine's layers (docs/architecture.md)", () => {
  it.each([
    ['electron/core/store/x.ts', "import { MetricsCollector } from '../metrics/collector.js';"],
    ['electron/core/store/x.ts', "import type { TimedGpuSample } from '../telemetry/nvidiaSmiSampler.js';"],
    ['electron/core/store/x.ts', "import { OutputWriter } from '../ingest/outputWriter.js';"],
    ['electron/core/store/x.ts', "import { isAlive } from '../system/procStat.js';"],
    ['electron/core/system/x.ts', "import type { Store } from '../store/store.js';"],
    ['electron/core/metrics/x.ts', "import { gpuPoint } from '../telemetry/points.js';"],
    ['electron/core/metrics/parsers/x.ts', "import { OutputWriter } from '../../ingest/outputWriter.js';"],
    ['electron/core/telemetry/x.ts', "import { RunManager } from '../runner/runManager.js';"],
    ['electron/core/ingest/x.ts', "import { RunManager } from '../runner/runManager.js';"],
    ['electron/core/runner/x.ts', "import type { GpuLease } from '../gpu-control/gpuControl.js';"],
    ['electron/core/runner/x.ts', "import { compareRuns } from '../compare/compare.js';"],
    ['electron/core/runner/x.ts', "import { StepProfiler } from '../profile/stepProfiler.js';"],
    ['electron/core/gpu-control/x.ts', "import { SweepQueue } from '../experiments/sweepQueue.js';"],
    ['electron/core/ingest/x.ts', "import { createCore } from '../createCore.js';"],
    ['electron/core/compare/x.ts', "import { Publisher } from '../publish/publisher.js';"],
    ['electron/core/publish/x.ts', "import { SweepQueue } from '../experiments/sweepQueue.js';"],
    ['electron/core/runner/x.ts', "import { apiHandlers } from '../app/handlers.js';"],
    ['electron/core/tune/x.ts', "import { requireRun } from '../app/lookups.js';"],
    // What a method does (its refusals, the contract's shapes) is the application layer's, not the composition root's.
    importCase('electron/core/createCore.ts', '{ ApiFailure }', 'electron/shared/api.js'),
  ])(
    'refuses in %s: %s',
    async (file, code) => {
      expect(await restrictedImports(file, `${code}\nexport const used = 1;\n`)).toHaveLength(1);
    },
    30_000,
  );

  it.each([
    ['electron/core/metrics/x.ts', "import type { MetricSample } from '../store/records.js';"],
    ['electron/core/telemetry/x.ts', "import { runNvidiaSmi } from '../system/nvidiaSmi.js';"],
    ['electron/core/ingest/x.ts', "import { MetricsCollector } from '../metrics/collector.js';"],
    ['electron/core/runner/x.ts', "import { OutputWriter } from '../ingest/outputWriter.js';"],
    ['electron/core/gpu-control/x.ts', "import type { RunGpuLease } from '../runner/collaborators.js';"],
    ['electron/core/experiments/x.ts', "import type { GpuLease } from '../gpu-control/gpuControl.js';"],
    ['electron/core/metrics/x.ts', "import type { EventHub } from '../events.js';"],
    ['electron/core/store/x.ts', "import { systemClock } from '../clock.js';"],
    ['electron/core/x.ts', "import { RunManager } from './runner/runManager.js';"],
    ['electron/core/publish/x.ts', "import type { CompareService } from '../compare/compareService.js';"],
    ['electron/core/app/handlers/x.ts', "import type { SweepQueue } from '../../experiments/sweepQueue.js';"],
    importCase('electron/core/app/x.ts', '{ ApiFailure }', 'electron/shared/api.js'),
  ])(
    'allows in %s: %s',
    async (file, code) => {
      expect(await restrictedImports(file, `${code}\nexport const used = 1;\n`)).toEqual([]);
    },
    30_000,
  );
});

describe('the composition root only wires', () => {
  it('refuses a createCore.ts over 150 lines, and a handler module over 150', async () => {
    const long = `${Array.from({ length: 151 }, (_, i) => `export const line${i} = ${i};`).join('\n')}\n`;
    for (const file of ['electron/core/createCore.ts', 'electron/core/app/handlers/runs.ts']) {
      const [result] = await eslint.lintText(long, { filePath: path.join(REPO_ROOT, file) });
      expect(result!.messages.map((m) => m.ruleId)).toContain('max-lines');
    }
  }, 30_000);
});

describe("the renderer's borders (docs/architecture.md)", () => {
  it.each([
    ['renderer/src/runs/x.ts', "import { SweepView } from '../sweeps/SweepView.js';"],
    ['renderer/src/compare/x.ts', "import '../sweeps/sweeps.css';"],
    ['renderer/src/runs/terminal/x.ts', "import { CompareView } from '../../compare/CompareView.js';"],
    ['renderer/src/gpu/x.ts', "import { RunView } from '../runs/RunView.js';"],
    ['renderer/src/shared/x.ts', "import { GpuControl } from '../gpu/GpuControl.js';"],
    ['renderer/src/shared/runRecord/x.ts', "import { RunView } from '../../runs/RunView.js';"],
    // No feature leans on another, whichever way: what two need is in shared/.
    ['renderer/src/sweeps/x.ts', "import { CompareView } from '../compare/CompareView.js';"],
    ['renderer/src/runs/x.ts', "import { GpuControl } from '../gpu/GpuControl.js';"],
    ['renderer/src/compare/x.ts', "import { RunView } from '../runs/RunView.js';"],
    // The transport uses no feature.
    ['renderer/src/bridge/x.ts', "import { earlyCallsFor } from '../compare/compareRequests.js';"],
  ])(
    'refuses in %s: %s',
    async (file, code) => {
      expect(await restrictedImports(file, `${code}\nexport const used = 1;\n`)).toHaveLength(1);
    },
    30_000,
  );

  it.each([
    importCase('renderer/src/sweeps/x.ts', '{ RevisionDiff }', 'renderer/src/shared/comparisons/RevisionDiff.js'),
    importCase('renderer/src/runs/x.ts', '{ describeRunSettings }', 'renderer/src/shared/gpuSettings/gpuText.js'),
    ['renderer/src/shared/runRecord/x.ts', "import { describeRunSettings } from '../gpuSettings/gpuText.js';"],
    importCase('renderer/src/compare/x.ts', '{ useSweeps }', 'renderer/src/shared/sweepStore.js'),
    ['renderer/src/App.tsx', "import { SweepPages } from './sweeps/SweepPages.js';"],
    ['renderer/src/runs/RunView.tsx', "import { Terminal } from './terminal/Terminal.js';"],
  ])(
    'allows in %s: %s',
    async (file, code) => {
      expect(await restrictedImports(file, `${code}\nexport const used = 1;\n`)).toEqual([]);
    },
    30_000,
  );
});
