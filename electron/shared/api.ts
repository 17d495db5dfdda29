// The one contract between the engine and every face: each method and event, with zod schemas, by domain.
// Imports nothing outside electron/shared and nothing of Node or the DOM, so main, server, preload and renderer can all use it.
export {
  DEFAULT_MAX_WAIT_SECONDS,
  IMPORT_PIECE_CHARS,
  LIMITS,
  MAX_IMPORT_CHARS,
  MAX_IMPORT_FILE_BYTES,
  MAX_RUN_SECONDS,
  MAX_WAIT_SECONDS,
  varName,
} from './api/common.js';
export * from './api/workloads.js';
export * from './api/runs.js';
export * from './api/compare.js';
export * from './api/sweeps.js';
export * from './api/gpu.js';
export * from './api/git.js';
export * from './api/mlflow.js';
export * from './api/tune.js';
export * from './api/contract.js';
