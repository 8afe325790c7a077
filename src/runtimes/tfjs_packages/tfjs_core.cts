// TF.js's packages loaded with require(), not import: imported from ES modules, Node first scans
// each CommonJS bundle for its export names (cjs-module-lexer), which took 0.5–0.6 s of CPU for
// tfjs-core's 1.2 MB bundle alone against 0.14 s to require it — in every executor thread and load
// probe. `module.exports = tf` names no exports for that scan to look for; TypeScript still types
// the default import as the package's namespace (values and types: `tf.tensor`, `tf.Tensor`).
import tf = require('@tensorflow/tfjs-core');
export = tf;
