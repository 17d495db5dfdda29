// Every method of the contract, from one handler module per domain; the compiler checks none is missing.
import type { ApiHandlers, CallContext } from '../../shared/api.js';
import { explainCorruption } from '../store/open.js';
import { compareHandlers } from './handlers/compare.js';
import { experimentHandlers } from './handlers/experiments.js';
import { gpuHandlers } from './handlers/gpu.js';
import { importHandlers } from './handlers/imports.js';
import { mlflowHandlers } from './handlers/mlflow.js';
import { profileHandlers } from './handlers/profiles.js';
import { runRecordHandlers } from './handlers/runRecords.js';
import { runHandlers } from './handlers/runs.js';
import { tuneHandlers } from './handlers/tune.js';
import { workloadHandlers } from './handlers/workloads.js';
import type { EngineServices } from './services.js';

export function apiHandlers(services: EngineServices): ApiHandlers {
  const { config } = services;
  const handlers: ApiHandlers = {
    'app.info': () => ({
      version: config.version,
      face: config.face,
      dbPath: config.dbPath,
      platform: `${process.platform}-${process.arch}`,
      cwd: config.startedIn,
    }),
    ...workloadHandlers(services),
    ...runHandlers(services),
    ...runRecordHandlers(services),
    ...importHandlers(services),
    ...profileHandlers(services),
    ...gpuHandlers(services),
    ...experimentHandlers(services),
    ...compareHandlers(services),
    ...tuneHandlers(services),
    ...mlflowHandlers(services),
  };
  return namingDamage(handlers, config.dbPath);
}

/** The handlers, each saying a damaged page it meets as DatabaseCorruptError (the file, and what to do) rather than SQLite's bare message. */
function namingDamage(handlers: ApiHandlers, dbPath: string): ApiHandlers {
  const named: Partial<Record<keyof ApiHandlers, unknown>> = {};
  for (const [method, handler] of Object.entries(handlers) as Array<[keyof ApiHandlers, (input: unknown, context: CallContext) => unknown]>) {
    // A handler that answers at once still does (callers may use its value directly); a promise is followed.
    named[method] = (input: unknown, context: CallContext) => {
      let answer: unknown;
      try {
        answer = handler(input, context);
      } catch (error) {
        throw explainCorruption(error, dbPath);
      }
      return answer instanceof Promise ? answer.catch((error: unknown) => Promise.reject(explainCorruption(error, dbPath))) : answer;
    };
  }
  // Each entry wraps the handler of the same method with the same signature: TypeScript cannot correlate the union here.
  return named as ApiHandlers;
}
