export { readTensorBundle, TensorBundle, type BundleEntry } from './tensor_bundle_reader.js';
export { shardFileName } from './bundle_format.js';
export { writeTensorBundle } from './tensor_bundle_writer.js';
export { readTable } from './sstable_reader.js';
export { writeTable } from './sstable_writer.js';
export { crc32c, maskCrc, unmaskCrc } from './crc32c.js';
