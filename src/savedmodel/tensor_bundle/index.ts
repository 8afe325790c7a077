// TensorBundle (TF checkpoint V2: `variables.index` + `variables.data-K-of-N`) and the
// LevelDB-format table its index is stored in. The writers are test support: test_util/savedmodel/tensor_bundle/.
export { readTensorBundle, readTensorBundleSync, TensorBundle } from './tensor_bundle_reader.js';
export { shardFileName } from './bundle_format.js';
export { SSTable, readTable } from './sstable_reader.js';
export { TABLE_MAGIC, FOOTER_SIZE, BLOCK_TRAILER_SIZE } from './sstable_format.js';
export { crc32c, maskCrc, unmaskCrc } from './crc32c.js';
