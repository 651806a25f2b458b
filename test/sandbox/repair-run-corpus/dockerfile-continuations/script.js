await writeFile({ path: "Dockerfile", content: `FROM node:22-slim
ARG VERSION=dev
ENV APP_VERSION=${VERSION}
WORKDIR /app
COPY . .
RUN npm ci \
 && npm run build \
 && echo "built `node -p 'require(\"./package.json\").version'`"
CMD ["node", "dist/server.js"]
` })
