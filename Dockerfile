# cardwright as a container: `docker build -t cardwright .`, then see compose.yaml and
# deploy/kubernetes/ for running several replicas (docs/scaling.md).
#
# Build stage: install every dependency (the compiler included), compile to dist/, then drop the
# development dependencies so the runtime stage copies only what the service needs.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: "prepare" (the build) needs the sources, which come next.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY themes ./themes
# The font packages ship every face as WOFF2 and WOFF; the service declares and serves the WOFF2
# files only (src/cards/themes/fonts.ts), so the 424 MB of WOFF files stay out of the image.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund \
  && find node_modules -type f -name '*.woff' -delete

# Runtime stage: Debian slim, the headless Chromium that ships inside the @sparticuz/chromium
# package (unpacked into /tmp on first start; it needs only libnss3 from Debian), run as the
# image's unprivileged "node" user.
FROM node:24-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends libnss3 ca-certificates tini \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY themes ./themes
COPY web ./web
RUN mkdir -p /data && chown node:node /data
USER node
ENV PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/data
# glibc's malloc raises its mmap threshold each time a large buffer (a capture) is freed, and
# then keeps such buffers in its heap, which fragments: fixed, the service holds 30-60 MB less
# (docs/performance.md#memory). npm start sets the same.
ENV MALLOC_MMAP_THRESHOLD_=131072
EXPOSE 3000
# Liveness only: /ready (store reachable, browser up, queue not full) is for the load balancer.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains: requests in flight finish within SHUTDOWN_GRACE_MS (default 25 s).
STOPSIGNAL SIGTERM
# tini is process 1: it reaps the helper processes of each closed or crashed Chromium, which
# are handed to process 1 when their browser exits (Node, as process 1, would leave them as
# zombies), and passes SIGTERM on to Node.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/server.js"]
