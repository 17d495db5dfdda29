// Vite build of the Electron main process (run by Electron Forge); CommonJS because the package is ESM.
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    lib: {
      // The output path's writer and parser run in worker threads, so each is a file of its own beside main.cjs.
      entry: {
        main: 'electron/main/main.ts',
        outputWriterWorker: 'electron/core/ingest/outputWriterWorker.ts',
        outputParserWorker: 'electron/core/ingest/outputParserWorker.ts',
        ingestTaskWorker: 'electron/core/ingest/ingestTaskWorker.ts',
      },
      formats: ['cjs'],
      fileName: (_format, name) => `${name}.cjs`,
    },
    rollupOptions: {
      // Native modules load from node_modules at run time; they cannot be bundled.
      external: ['better-sqlite3', 'node-pty'],
    },
  },
});
