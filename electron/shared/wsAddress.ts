// Where the headless WebSocket lives: constants with no imports, so the page's first script can connect before the app loads.

/** Path of the WebSocket endpoint, relative to the page. */
export const WS_PATH = '/api';
/**
 * Query parameter that carries the headless server's token. There is no cookie: cookies ignore the port, so
 * any other web server on 127.0.0.1 that the browser visits would receive it.
 */
export const TOKEN_PARAM = 'token';
