#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm run build` or `npm start`).
import('../dist/cli.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli.js')) {
    console.error('pageworks: not built yet; run `npm run setup` (or `npm start`) first');
    process.exit(1);
  }
  throw err;
});
