// Vite build of the preload script: one CommonJS file, as a sandboxed preload must be.
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    rollupOptions: {
      output: { format: 'cjs', entryFileNames: 'preload.cjs', inlineDynamicImports: true },
    },
  },
});
