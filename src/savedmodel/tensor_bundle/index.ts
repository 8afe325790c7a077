export { readTensorBundle, TensorBundle, shardFileName, type BundleEntry } from './tensor_bundle_reader.js';
export { crc32c, maskCrc, unmaskCrc } from './crc32c.js';
