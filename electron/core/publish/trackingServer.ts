// Which MLflow tracking server, and how to sign in to it: the address as given, the same without credentials (what
// is stored and shown), the Authorization header from MLflow's own environment variables, and links into its UI.

export interface TrackingServer {
  /** The address without credentials, query or trailing slash: what is stored, shown and linked to. */
  readonly uri: string;
  /** The Authorization header's value, or null for a server without auth. Never stored. */
  readonly authorization: string | null;
  /** Which kind of credentials were given, for messages (never their values). */
  readonly credentials: 'basic' | 'token' | null;
  /** The user name of basic auth, for messages. */
  readonly user: string | null;
}

export class TrackingUriError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TrackingUriError';
  }
}

/**
 * MLflow's clients read these; so does Tuning Bench, so one shell set-up serves both. A token wins over a user
 * name and password (MLflow's own order).
 */
export function credentialsFromEnv(env: NodeJS.ProcessEnv): { authorization: string | null; credentials: 'basic' | 'token' | null; user: string | null } {
  const token = env.MLFLOW_TRACKING_TOKEN;
  if (token) return { authorization: `Bearer ${token}`, credentials: 'token', user: null };
  const user = env.MLFLOW_TRACKING_USERNAME;
  const password = env.MLFLOW_TRACKING_PASSWORD;
  if (user && password !== undefined) return { authorization: basic(user, password), credentials: 'basic', user };
  return { authorization: null, credentials: null, user: null };
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

/**
 * The server an address names. Credentials written into it (`http://user:pass@host`) are used and dropped from
 * what is kept; otherwise MLflow's variables give them.
 */
export function trackingServer(address: string, env: NodeJS.ProcessEnv): TrackingServer {
  let url: URL;
  try {
    url = new URL(address.trim());
  } catch {
    throw new TrackingUriError(`"${address}" is not an address; give the tracking server as http://HOST:PORT (e.g. http://127.0.0.1:5000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const store = ['file:', 'sqlite:', 'postgresql:', 'mysql:', 'mssql:', 'databricks:'].includes(url.protocol);
    throw new TrackingUriError(
      store
        ? `"${url.protocol}" tracking URIs are MLflow's own stores, not a server; Tuning Bench publishes to a tracking server over http(s): start one with \`mlflow server\` and give its address`
        : `"${address}" is not an http(s) address; give the tracking server as http://HOST:PORT (e.g. http://127.0.0.1:5000)`,
    );
  }
  const fromEnv = credentialsFromEnv(env);
  const inAddress =
    url.username !== ''
      ? {
          authorization: basic(decodeURIComponent(url.username), decodeURIComponent(url.password)),
          credentials: 'basic' as const,
          user: decodeURIComponent(url.username),
        }
      : null;
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  const uri = url.toString().replace(/\/+$/u, '');
  return { uri, ...(inAddress ?? fromEnv) };
}

/** An address with any credentials in it removed, for messages and the record. */
export function withoutCredentials(address: string): string {
  try {
    const url = new URL(address.trim());
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/+$/u, '');
  } catch {
    return address.replace(/\/\/[^/@\s]*@/u, '//');
  }
}

export function hasCredentials(address: string): boolean {
  try {
    const url = new URL(address.trim());
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
}

/** The experiment's page in MLflow's UI (a hash route in MLflow 1.x to 3.x). */
export function experimentUrl(uri: string, experimentId: string): string {
  return `${uri}/#/experiments/${encodeURIComponent(experimentId)}`;
}

/** The run's page in MLflow's UI. */
export function runUrl(uri: string, experimentId: string, mlflowRunId: string): string {
  return `${experimentUrl(uri, experimentId)}/runs/${encodeURIComponent(mlflowRunId)}`;
}
