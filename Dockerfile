# Pageworks: one image for every service; `PAGEWORKS_SERVICES` (or `serve --services`) picks which run.
# Build:  docker build -t pageworks .
# Run:    see deploy/compose.yaml and docs/deploy.md.

# ---- build: compile TypeScript, then keep only production dependencies ----
# Node 24 LTS on Debian 13 (trixie) in both stages. The store uses the built-in node:sqlite there, so
# nothing compiles: npm skips packages/sqlite-fallback (better-sqlite3, for Node 20 only) by its engines.
FROM node:24-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages ./packages
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: Debian's Chromium headless shell and fonts, tini as PID 1, a non-root user ----
FROM node:24-trixie-slim
# chromium-headless-shell: Chromium's headless-only build (the same printing code as the browser,
# without its UI: faster and smaller), which renders here; full chromium is not needed in the image.
# chromium-sandbox is the setuid sandbox helper (/usr/lib/chromium/chrome-sandbox, beside the shell's
# binary): it lets Chromium keep its sandbox as a non-root user without user namespaces (which
# Docker's default seccomp profile refuses).
# Fonts: Latin metric-compatible (Liberation), CJK, colour emoji, so documents print as written.
# icc-profiles-free: the sRGB profile a PDF/A file's OutputIntent embeds. qpdf: reading existing PDFs of every
# layout into an assembly (protection is done in process).
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium-headless-shell chromium-sandbox \
      fonts-liberation fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji fontconfig \
      icc-profiles-free qpdf tini ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
# The `node` user (uid 1000) comes with the base image; only the data directory is writable.
RUN mkdir -p /data/results && chown -R node:node /data
USER node
# CHROMIUM_PATH stays unset: the server finds the shell (src/render/browser/chromium-executable.ts).
ENV NODE_ENV=production \
    PAGEWORKS_HOST=0.0.0.0 \
    PAGEWORKS_DATA_DIR=/data
EXPOSE 3000 3001 3002
# Liveness of every service this container runs, whether chosen by `serve --services …` (the command)
# or PAGEWORKS_SERVICES: bin/healthcheck.js reads PID 1's command line. Plain HTTP, no curl in the image.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "/app/bin/healthcheck.js"]
# tini reaps orphaned Chromium helpers and forwards SIGTERM so `serve` drains before exiting.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/pageworks.js"]
CMD ["serve"]
