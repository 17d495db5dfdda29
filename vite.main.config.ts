// Vite build of the Electron main process (run by Electron Forge); CommonJS because the package is ESM.
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    lib: {
      // The output writer runs in a worker thread, so it is a file of its own beside main.cjs.
      entry: { main: 'electron/main/main.ts', outputWriterWorker: 'electron/core/ingest/outputWriterWorker.ts' },
      formats: ['cjs'],
      fileName: (_format, name) => `${name}.cjs`,
    },
    rollupOptions: {
      // Native modules load from node_modules at run time; they cannot be bundled.
      external: ['better-sqlite3', 'node-pty'],
    },
  },
});
