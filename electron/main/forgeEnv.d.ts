// Globals that Electron Forge's Vite plugin defines at build time for the renderer named `main_window`.
declare const MAIN_WINDOW_VITE_DEV_SERVER_URL: string | undefined;
declare const MAIN_WINDOW_VITE_NAME: string;
