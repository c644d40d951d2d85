# syntax=docker/dockerfile:1
# One image for the worker, the callback receiver and the sandbox: docker-compose.yml picks the command
# (node dist/worker.js, node dist/callbacks/main.js, node packages/sandbox/dist/main.js).
# Debian (glibc), not Alpine: the Temporal SDK's native core bridge ships glibc builds. Node 24: the
# current LTS line (Node 20 is past its end of life).

# ---- build: compile src/ to dist/ with tsc, then bundle the workflow code once ----------------------
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The workspaces (the sandbox, the tools) share the one lockfile: npm ci needs their manifests.
COPY packages/sandbox/package.json ./packages/sandbox/
COPY bench/package.json ./bench/
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# After src/: the sandbox's src/public-host.ts is a link to src/model/public-host.ts.
COPY packages/sandbox ./packages/sandbox
# `npm run build` builds the sandbox (packages/sandbox/dist), then runs `tsc -p tsconfig.build.json`
# (rootDir src, outDir dist), after copying src/codec/failure-converter.cjs (plain CommonJS, loaded by
# path) to dist/codec/.
RUN npm run build
# dist/workflow-bundle.js (+ .otel.js, with the tracing interceptors, and .encrypted.js / .otel.encrypted.js
# for payload encryption): the worker loads the one that fits instead of running webpack at every start, as
# in Temporal's production sample.
RUN node dist/bundle-workflows.js dist/workflow-bundle.js

# ---- runtime: production dependencies + dist/, run as the unprivileged `node` user -------------------
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/sandbox/package.json ./packages/sandbox/
COPY bench/package.json ./bench/
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
# The sandbox profile's command (its dependencies are the library's own, installed above).
COPY --from=build /app/packages/sandbox/dist ./packages/sandbox/dist
# Files stay root-owned and read-only for the process; nothing here writes to the image.
USER node
# A 256 MiB V8 heap per thread: V8 then collects what evicted workflows leave long before its default limit
# would make it, and the worker stays within its memory budget (BENCHMARKS.md, worker memory).
CMD ["node", "--max-old-space-size=256", "dist/worker.js"]
