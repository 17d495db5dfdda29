// Electron Forge: runs the desktop app in development (`npm start`); installers come from electron-builder.
import { VitePlugin } from '@electron-forge/plugin-vite';
import type { ForgeConfig } from '@electron-forge/shared-types';

const config: ForgeConfig = {
  packagerConfig: {
    name: 'tuning-bench',
    executableName: 'tuning-bench',
    asar: { unpack: '**/{*.node,resources/**}' },
    extraResource: ['resources'],
  },
  rebuildConfig: {},
  makers: [],
  plugins: [
    new VitePlugin({
      build: [
        { entry: 'electron/main/main.ts', config: 'vite.main.config.ts', target: 'main' },
        { entry: 'electron/preload/preload.ts', config: 'vite.preload.config.ts', target: 'preload' },
      ],
      renderer: [{ name: 'main_window', config: 'vite.renderer.config.ts' }],
    }),
  ],
};

export default config;
