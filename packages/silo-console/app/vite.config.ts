import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  // Relative asset URLs: the middleware rewrites index.html to its base path, whatever it is.
  base: './',
  // silo-query and koa-silo's model from their sources, so the console never needs their tsc output first.
  resolve: { alias: { 'silo-query': here('../../silo-query/src/index.ts'), 'koa-silo/model': here('../../koa-silo/src/model/index.ts') } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('../dist/app'),
    emptyOutDir: true,
    target: 'es2022',
    // No inline scripts or data: URLs in the output: the CSP forbids inline scripts.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: true,
  },
  server: {
    // `npm run dev -w silo-console` against a running `npm start` on 8080.
    proxy: { '/console/api': 'http://localhost:8080', '/api': 'http://localhost:8080' },
  },
});
