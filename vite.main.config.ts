// Vite build of the Electron main process (run by Electron Forge); CommonJS because the package is ESM.
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    lib: { entry: 'electron/main/main.ts', formats: ['cjs'], fileName: () => 'main.cjs' },
    rollupOptions: {
      // Native modules load from node_modules at run time; they cannot be bundled.
      external: ['better-sqlite3', 'node-pty'],
    },
  },
});
