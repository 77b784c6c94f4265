# Pageworks: one image for every service; `PAGEWORKS_SERVICES` (or `serve --services`) picks which run.
# Build:  docker build -t pageworks .
# Run:    see deploy/compose.yaml and docs/deploy.md.

# ---- build: compile TypeScript, then keep only production dependencies ----
FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles from source when no prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: Debian's Chromium and fonts, tini as PID 1, a non-root user ----
FROM node:20-bookworm-slim
# chromium-sandbox is the setuid sandbox helper: it lets Chromium keep its sandbox as a non-root
# user without user namespaces (which Docker's default seccomp profile refuses).
# Fonts: Latin metric-compatible (Liberation), CJK, colour emoji, so documents print as written.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium chromium-sandbox \
      fonts-liberation fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji fontconfig \
      tini ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
# The `node` user (uid 1000) comes with the base image; only the data directory is writable.
RUN mkdir -p /data/results && chown -R node:node /data
USER node
ENV NODE_ENV=production \
    PAGEWORKS_HOST=0.0.0.0 \
    PAGEWORKS_DATA_DIR=/data \
    CHROMIUM_PATH=/usr/bin/chromium
EXPOSE 3000 3001 3002
# Liveness of the first service this container runs (plain HTTP, no curl needed in the image).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const s=(process.env.PAGEWORKS_SERVICES||'dashboard').split(',')[0].trim();const p={dashboard:process.env.DASHBOARD_PORT||3000,render:process.env.RENDER_PORT||3001,'render-worker':process.env.RENDER_PORT||3001,metadata:process.env.METADATA_PORT||3002}[s];fetch('http://127.0.0.1:'+p+'/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# tini reaps orphaned Chromium helpers and forwards SIGTERM so `serve` drains before exiting.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/pageworks.js"]
CMD ["serve"]
