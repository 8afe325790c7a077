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
      comment: 'core/ is the glossary (source, manager, handle, policy): it knows no transport (rest, grpc), no runtime, executor, batching, service or server wiring.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(rest|grpc|runtimes|executors|batching|services|server|monitoring)/' },
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
      name: 'no-circular',
      comment: 'A cycle makes two modules one module in disguise; split what they share into a third.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
