# tfgate, CPU image. Same conventions as TF Serving's image: models under /models,
# MODEL_NAME selects /models/$MODEL_NAME, gRPC port 8500 and REST port 8501, and any
# extra arguments are passed to the server.
#   docker build -t tfgate .
#   docker run -p 8501:8501 -v "$PWD/model_repository/half_plus_two:/models/half_plus_two" -e MODEL_NAME=half_plus_two tfgate
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json .npmrc ./
COPY src ./src
COPY test ./test
COPY test_util ./test_util
COPY bench ./bench
COPY bin ./bin
# npm ci runs `prepare` (the TypeScript build); .npmrc skips onnxruntime-node's download of
# its CUDA libraries (the CPU engine ships in the package). The optional libtensorflow
# packages are left out here, then only the CPU one is tried: its install downloads
# libtensorflow, and where that fails the image runs on ONNX Runtime with the embedded WASM
# runtime behind it (--runtime=auto logs which runtime it took and why).
# onnxruntime-node carries every platform's binaries (~290 MB); only this one's are kept.
RUN npm ci --omit=optional && npm prune --omit=dev --omit=optional \
 && (npm install --no-save --omit=dev @tensorflow/tfjs-node@4.22.0 \
     || echo "tfjs-node did not install: the image runs on ONNX Runtime and the embedded runtime") \
 && keep="$(node -p 'process.platform + "/" + process.arch')" \
 && for d in node_modules/onnxruntime-node/bin/napi-v*/*/*; do case "$d" in */"$keep") ;; *) rm -rf "$d" ;; esac; done

FROM node:20-slim
ENV NODE_ENV=production \
    MODEL_BASE_PATH=/models \
    MODEL_NAME=model
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/src/proto ./src/proto
COPY package.json ./
RUN mkdir -p /models && chown node:node /models
USER node
EXPOSE 8500 8501
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s CMD node -e "fetch('http://127.0.0.1:8501/monitoring/tfgate/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# As TF Serving's image: tensorflow_model_server --port=8500 --rest_api_port=8501
#   --model_name=${MODEL_NAME} --model_base_path=${MODEL_BASE_PATH}/${MODEL_NAME} "$@"
ENTRYPOINT ["/bin/sh", "-c", "exec node /app/bin/tensorflow_model_server --port=8500 --rest_api_port=8501 --model_name=\"${MODEL_NAME}\" --model_base_path=\"${MODEL_BASE_PATH}/${MODEL_NAME}\" \"$@\"", "--"]
