// Builds the React renderer: one page that Electron loads from disk and the headless server serves.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const repoRoot = fileURLToPath(new URL('.', import.meta.url));

/**
 * The dev server's React Fast Refresh needs one inline module script, which the page's strict CSP forbids.
 * Relax script-src for `vite` serve only; the built page keeps the strict policy.
 */
function devServerCsp(): Plugin {
  return {
    name: 'tuning-bench:dev-server-csp',
    apply: 'serve',
    transformIndexHtml: (html) => html.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'"),
  };
}

/**
 * The app's chunk (main.tsx, imported by the entry boot.ts once it has opened the WebSocket) is fetched from the start,
 * beside the entry, rather than after the entry has run: a `modulepreload` link for it and for the chunks it imports.
 */
function preloadApp(): Plugin {
  return {
    name: 'tuning-bench:preload-app',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const chunks = Object.values(ctx.bundle ?? {});
        const app = chunks.find((chunk) => chunk.type === 'chunk' && chunk.facadeModuleId?.endsWith('/renderer/src/main.tsx'));
        if (!app || app.type !== 'chunk') throw new Error('tuning-bench:preload-app: no chunk for renderer/src/main.tsx');
        const entry = ctx.chunk?.fileName;
        const files = [app.fileName, ...app.imports.filter((file) => file !== entry)];
        return files.map((file) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `./${file}` }, injectTo: 'head' as const }));
      },
    },
  };
}

export default defineConfig((env) => {
  // Electron Forge loads this file too, adding `forgeConfigSelf`; its main process reads the page from
  // .vite/renderer/<name>, the only folder Forge packages. Everyone else (`npm run build`, the server) uses dist/renderer.
  const forgeRendererName = (env as { forgeConfigSelf?: { name?: string } }).forgeConfigSelf?.name;
  const outDir = forgeRendererName ? `${repoRoot}.vite/renderer/${forgeRendererName}` : `${repoRoot}dist/renderer`;
  return {
    root: `${repoRoot}renderer`,
    // Relative asset URLs, so the same build works from file:// (Electron) and from the headless server's root.
    base: './',
    plugins: [react(), devServerCsp(), preloadApp()],
    build: {
      outDir,
      emptyOutDir: true,
      // Electron 41's Chromium and Debian's Chromium both run ES2022 natively.
      target: 'es2022',
      // The entry (boot.ts) is a few kB; xterm is split off (RunView loads it lazily); the app's chunk (React, chart.js,
      // zod) is about 700 kB, loaded from disk or 127.0.0.1.
      chunkSizeWarningLimit: 1024,
    },
    server: {
      // The renderer imports the contract from ../electron/shared, outside Vite's root.
      fs: { allow: [repoRoot] },
    },
  };
});
