// The one-way layering of src/ (STYLE.md, "What this means for tfgate" 2), checked by
// `npm run lint:layers` as part of `npm test`. A rule names what a folder must not import;
// the message says which room it belongs to, so a wrong import explains itself.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'config-imports-nothing',
      comment: 'config/ is parsed, defaulted, validated and frozen before anything runs: it depends on no other part of src/.',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: '^src/config/' },
    },
    {
      name: 'core-no-transport-or-runtime',
      comment: 'core/ is the glossary of the lifecycle (source, manager, handle, policy): it knows no transport (rest, grpc), no runtime, executor, batching, service, loader or server wiring.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(rest|grpc|runtimes|executors|batching|services|servables|server|monitoring)/' },
    },
    {
      name: 'errors-imports-nothing',
      comment: 'errors/ (status codes, ServingError, the message catalog) is below every layer: any room may throw or word an error, so it depends on no other part of src/.',
      severity: 'error',
      from: { path: '^src/errors/' },
      to: { path: '^src/', pathNot: '^src/errors/' },
    },
    {
      name: 'util-imports-nothing',
      comment: 'util/ holds helpers with no tfgate word in them (own-property lookups): it depends on no other part of src/.',
      severity: 'error',
      from: { path: '^src/util/' },
      to: { path: '^src/', pathNot: '^src/util/' },
    },
    {
      name: 'servables-only-from-wiring',
      comment: 'servables/ chains the loaders (executor, verifying, batching) that the manager calls: only the server wiring (server/) and the metrics it hands them (monitoring/) import it; the rooms it builds on never do.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(servables|server|monitoring)/' },
      to: { path: '^src/servables/' },
    },
    {
      name: 'storage-below-core',
      comment: 'storage/ is the file systems under the source (local folders, s3://, gs://): it knows folders, files and downloads, not models, loaders or transports; of src/ it reads only config/ (what a location is).',
      severity: 'error',
      from: { path: '^src/storage/' },
      to: { path: '^src/', pathNot: '^src/(storage|config)/' },
    },
    {
      name: 'savedmodel-no-runtime',
      comment: 'savedmodel/ reads the format; runtimes build on it, never the other way (SignatureSpec/TensorSpec live in savedmodel/signature_spec.ts).',
      severity: 'error',
      from: { path: '^src/savedmodel/' },
      to: { path: '^src/(runtimes|executors)/' },
    },
    {
      name: 'rest-not-grpc',
      comment: 'Transports never import each other: what REST and gRPC share lives in services/ or core/.',
      severity: 'error',
      from: { path: '^src/rest/' },
      to: { path: '^src/grpc/' },
    },
    {
      name: 'grpc-not-rest',
      comment: 'Transports never import each other: what REST and gRPC share lives in services/ or core/.',
      severity: 'error',
      from: { path: '^src/grpc/' },
      to: { path: '^src/rest/' },
    },
    {
      name: 'onnx-not-embedded',
      comment: 'The engines are siblings: what ONNX Runtime and the embedded runtime both use (tensor conversion, the ParseExample step, fake-quant nudging, the TF.js backend) lives in runtimes/shared/.',
      severity: 'error',
      from: { path: '^src/runtimes/onnx/' },
      to: { path: '^src/runtimes/embedded/' },
    },
    {
      name: 'embedded-not-onnx',
      comment: 'The engines are siblings: what ONNX Runtime and the embedded runtime both use lives in runtimes/shared/.',
      severity: 'error',
      from: { path: '^src/runtimes/embedded/' },
      to: { path: '^src/runtimes/onnx/' },
    },
    {
      name: 'shared-below-engines',
      comment: 'runtimes/shared/ is what every engine uses: it imports no engine (embedded, onnx, tfjs_node), or it would tie them together again.',
      severity: 'error',
      from: { path: '^src/runtimes/shared/' },
      to: { path: '^src/runtimes/(embedded|onnx|tfjs_node|verify)/' },
    },
    {
      name: 'tfjs-patches-stand-alone',
      comment: 'runtimes/tfjs_patches/ fixes the TF.js packages themselves (loaded through runtimes/tfjs_packages/); it knows no tfgate engine (a hook such as the TensorList closer is passed in).',
      severity: 'error',
      from: { path: '^src/runtimes/tfjs_patches/' },
      to: { path: '^src/runtimes/(?!tfjs_patches/|tfjs_packages/)' },
    },
    {
      name: 'tfjs-packages-required',
      comment:
        "TF.js's CommonJS bundles are loaded through runtimes/tfjs_packages/ (require): imported from an ES module, Node scans each bundle for its export names first, 0.5 s of CPU per thread for tfjs-core alone (type-only imports cost nothing and stay).",
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/runtimes/tfjs_packages/' },
      to: { path: '@tensorflow/tfjs-(core|converter|backend-cpu|backend-wasm)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      comment: 'A cycle makes two modules one module in disguise; split what they share into a third.',
      severity: 'error',
      from: { path: '^(src|bench)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
