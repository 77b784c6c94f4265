#!/usr/bin/env node
// The container's HEALTHCHECK: probes `/v1/health` of every service this container runs, however they
// were chosen: `serve --services …` in the container's command (read from PID 1's command line, which
// in the image is `tini -- node /app/bin/pageworks.js serve …`), else PAGEWORKS_SERVICES, else the
// default set. Exit 0 when all answer 200 within 2 s, 1 otherwise. Plain Node, no build, no curl.
import fs from 'node:fs';

const PORTS = {
  dashboard: ['DASHBOARD_PORT', 3000],
  render: ['RENDER_PORT', 3001],
  metadata: ['METADATA_PORT', 3002],
  // Works render jobs; on RENDER_PORT it answers only /v1/health, /v1/ready and /metrics.
  'render-worker': ['RENDER_PORT', 3001],
};

/** The `--services` value of PID 1's command line, or undefined when it has none. */
function servicesFromCommandLine() {
  let args;
  try {
    args = fs.readFileSync('/proc/1/cmdline', 'utf8').split('\0');
  } catch {
    return undefined;
  }
  const serve = args.indexOf('serve');
  if (serve < 0) return undefined;
  for (let i = serve + 1; i < args.length; i++) {
    if (args[i] === '--services') return args[i + 1];
    if (args[i].startsWith('--services=')) return args[i].slice('--services='.length);
  }
  return undefined;
}

const chosen = servicesFromCommandLine() || process.env.PAGEWORKS_SERVICES || 'dashboard,render,metadata';
const services = chosen
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const bind = process.env.PAGEWORKS_HOST || '127.0.0.1';
// A wildcard listen address answers on loopback; a specific one only on itself.
const host = bind === '0.0.0.0' || bind === '::' ? '127.0.0.1' : bind.includes(':') ? `[${bind}]` : bind;

async function healthy(service) {
  const port = PORTS[service];
  if (!port) return false;
  const url = `http://${host}:${process.env[port[0]] || port[1]}/v1/health`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return res.status === 200;
  } catch {
    return false;
  }
}

const results = await Promise.all(services.map(healthy));
const down = services.filter((_, i) => !results[i]);
if (down.length > 0) process.stderr.write(`unhealthy: ${down.join(', ')}\n`);
process.exit(down.length === 0 && services.length > 0 ? 0 : 1);
