# Hearth's image: `hearth serve` on PostgreSQL (DATABASE_URL) or on its embedded database in /data.
# docs/operations.md says what was verified of it, and how compose.yaml runs it with PostgreSQL 15.

# Build stage: the production dependencies, exactly as the lockfile says (no compiler is needed: the
# embedded database is WebAssembly, and esbuild ships its binary as a package). The workspace packages
# (packages/client, the SDK) are not part of the server: without their folders, npm ci leaves them out.
FROM node:20.20.2-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:20.20.2-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    HEARTH_DATA_DIR=/data
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY bin ./bin
COPY src ./src
# The web console, built and committed: the server serves it from here (src/modules/console).
COPY console/dist ./console/dist
# Bundle the sources now (bin/hearth.mjs would on the first run), so every start loads one file and the
# code stays read-only for the user that runs it. /data is that user's alone (0700): Hearth refuses a
# data directory other users may enter, and a new named volume takes this mode and owner.
RUN node bin/hearth.mjs --help > /dev/null \
 && mkdir -p /data \
 && chown node:node /data \
 && chmod 700 /data
USER node
EXPOSE 3000
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/hearth.mjs"]
CMD ["serve"]
