// The web application: Preact (JSX through esbuild, no plugin), every asset hashed under /assets/
// (the facade serves them with long-lived caching), no inline script or style in the output.
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: false,
  },
  worker: { format: 'es' },
});
