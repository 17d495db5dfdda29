// Types for what Vite lets the renderer import besides TypeScript.
declare module '*.css';
