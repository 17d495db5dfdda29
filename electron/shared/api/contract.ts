// The table of methods and events, and the one way every face calls it: dispatch and the typed client.
import { z } from 'zod';
import { empty, runId } from './common.js';
import { compareMethods } from './compare.js';
import { gitMethods } from './git.js';
import { gpuMethods } from './gpu.js';
import { mlflowMethods, publication } from './mlflow.js';
import { gpuTelemetryPoint, hostTelemetryPoint, metricPoint, run, runMethods } from './runs.js';
import { sweep, sweepMethods } from './sweeps.js';
import { tuneMethods, tuneRecord } from './tune.js';
import { workload, workloadMethods } from './workloads.js';

/** The app itself: `app.*`. */
export const appMethods = {
  'app.info': {
    input: empty,
    output: z.object({
      version: z.string(),
      face: z.enum(['electron', 'headless']),
      dbPath: z.string(),
      platform: z.string(),
      /** Where the engine was started (the directory the person stood in): a typed command runs there unless told. */
      cwd: z.string().default(''),
    }),
  },
} as const;

/** Every method: `domain.verb`, its input and its output. */
export const methods = {
  ...appMethods,
  ...workloadMethods,
  ...runMethods,
  ...gpuMethods,
  ...sweepMethods,
  ...compareMethods,
  ...gitMethods,
  ...mlflowMethods,
  ...tuneMethods,
} as const;

/** Every event the engine pushes to the faces: `domain.onEvent`. */
export const events = {
  /** Live output, merged over a few milliseconds; `seq` matches the stored chunk. */
  'runs.onOutput': z.object({ runId, seq: z.number().int().nonnegative(), tMs: z.number().nonnegative(), data: z.string() }),
  /** A run started, changed status or ended. */
  'runs.onDidChange': run,
  /** Telemetry news of a run: no GPU, nvidia-smi restarted, a field unsupported, the GPU lost. */
  'runs.onTelemetryStatus': z.object({ runId, level: z.enum(['info', 'warning', 'error']), message: z.string() }),
  /** A telemetry sample of a running run (GPU every 250 ms, host every 500 ms by default). */
  'runs.onTelemetry': z.object({ runId, gpu: gpuTelemetryPoint.optional(), host: hostTelemetryPoint.optional() }),
  /** The desktop menu or a shortcut asked for a view (Electron only). */
  'app.onMenuCommand': z.object({ command: z.enum(['new-run', 'new-sweep', 'import-log', 'runs', 'sweeps', 'compare', 'gpu-control']) }),
  /** A sweep changed: progress, a config's status, paused, ended. */
  'sweeps.onDidChange': sweep,
  /** New metric samples of a running run (for live charts), batched. */
  'runs.onMetrics': z.object({ runId, points: z.array(metricPoint) }),
  /** A run's parsed metrics were replaced (it was parsed again): whatever shows them fetches them anew. */
  'runs.onMetricsReplaced': z.object({ runId }),
  /** The registered workloads changed (one was added, edited or removed). */
  'workloads.onDidChange': z.object({ workloads: z.array(workload) }),
  /** A tune started, decided a step, or ended. */
  'tunes.onDidChange': tuneRecord,
  /** A run, sweep or comparison was published to MLflow (or its pending or failed publication changed). */
  'mlflow.onDidPublish': publication,
} as const;

export type Methods = typeof methods;

export type MethodName = keyof Methods;

export type EventName = keyof typeof events;

export type MethodInput<M extends MethodName> = z.input<Methods[M]['input']>;

export type ParsedInput<M extends MethodName> = z.output<Methods[M]['input']>;

export type MethodOutput<M extends MethodName> = z.output<Methods[M]['output']>;

export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

/**
 * An event and its payload as one pair: a listener written `(event, payload) => ...` has its payload
 * narrowed by checking the event's name, with no cast.
 */
export type EventArgs = { [E in EventName]: [event: E, payload: EventPayload<E>] }[EventName];

export const methodNames = Object.keys(methods) as MethodName[];

export const eventNames = Object.keys(events) as EventName[];

/** Errors cross every boundary as data, never as a thrown object (Electron keeps only a message). */
export type ApiErrorCode = 'invalid_input' | 'not_found' | 'conflict' | 'unavailable' | 'internal' | 'unknown_method';

export interface ApiError {
  code: ApiErrorCode;
  message: string;
}

export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/** Who is calling: the face's subscriber id, so per-view state (output acknowledgements) has an owner. */
export interface CallContext {
  subscriberId: number | null;
}

/** What the engine implements: a method without a handler fails to compile. */
export type ApiHandlers = {
  [M in MethodName]: (input: ParsedInput<M>, context: CallContext) => Promise<MethodOutput<M>> | MethodOutput<M>;
};

/** What a face calls: typed by the contract, transport-agnostic. */
export type ApiClient = {
  [M in MethodName]: (input: MethodInput<M>) => Promise<MethodOutput<M>>;
};

export function isMethodName(value: unknown): value is MethodName {
  return typeof value === 'string' && Object.hasOwn(methods, value);
}

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && Object.hasOwn(events, value);
}

/** Turns a zod failure into one line a person can act on. */
export function describeZodError(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
}

/** Throw one of these in a handler to send a specific code; anything else becomes `internal`. */
export class ApiFailure extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

/**
 * Parses the input against the contract and runs the handler; every outcome becomes an ApiResult.
 * Each face (IPC, WebSocket, CLI) calls this, so validation happens once, in one place.
 */
export async function dispatch(
  handlers: ApiHandlers,
  method: unknown,
  input: unknown,
  context: CallContext = { subscriberId: null },
): Promise<ApiResult<unknown>> {
  if (!isMethodName(method)) {
    return { ok: false, error: { code: 'unknown_method', message: `unknown method ${String(method)}` } };
  }
  const parsed = methods[method].input.safeParse(input ?? {});
  if (!parsed.success) {
    return { ok: false, error: { code: 'invalid_input', message: `${method}: ${describeZodError(parsed.error)}` } };
  }
  try {
    // The mapped type guarantees the handler matches the method; TypeScript cannot correlate the union here.
    const handler = handlers[method] as (input: unknown, context: CallContext) => Promise<unknown> | unknown;
    return { ok: true, value: await handler(parsed.data, context) };
  } catch (error) {
    if (error instanceof ApiFailure) return { ok: false, error: { code: error.code, message: error.message } };
    return { ok: false, error: { code: 'internal', message: error instanceof Error ? error.message : String(error) } };
  }
}

/** Builds a typed client from one `call` function: the IPC and WebSocket clients are both made this way. */
export function createClient(call: (method: MethodName, input: unknown) => Promise<ApiResult<unknown>>): ApiClient {
  const client: Partial<Record<MethodName, (input: unknown) => Promise<unknown>>> = {};
  for (const method of methodNames) {
    client[method] = async (input: unknown) => {
      const result = await call(method, input);
      if (!result.ok) throw new ApiFailure(result.error.code, result.error.message);
      return result.value;
    };
  }
  return client as ApiClient;
}
