# The three controllers and the CLI in one image: `docker run olmv1 catalogd|operator-controller|olm-classic|kubectl-olm ...`
# (cmd/image.ts builds the same image without a container engine: make image-push-no-engine)
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY types ./types
COPY api ./api
COPY internal ./internal
COPY cmd ./cmd
# tsc (type errors fail the build; dist/cmd/kubectl-olm), then each controller bundled (dist/bin/<name>, what the
# entrypoint runs); node_modules stays for what loads on first use (logic-solver, @grpc/*).
RUN npx tsc -p tsconfig.build.json && node --import tsx cmd/bundle.ts && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY cmd/entrypoint.sh /usr/local/bin/olmv1
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/olmv1"]
