// TensorBundle (TF checkpoint V2: `variables.index` + `variables.data-K-of-N`) and the
// LevelDB-format table its index is stored in. The writers are test support: test_util/savedmodel/tensor_bundle/.
export {
  readTensorBundle,
  readTensorBundleSync,
  parseTensorBundleIndex,
  TensorBundle,
  type BundleEntry,
  type BundleHeader,
} from './tensor_bundle_reader.js';
export {
  shardFileName,
  indexFileName,
  encodeStringTensor,
  decodeStringTensor,
  HEADER_ENTRY_KEY,
  TENSOR_BUNDLE_VERSION,
} from './bundle_format.js';
export { SSTable, readTable, readBlock, readFooter, TableFormatError, type TableBlockInfo, type TableFooter } from './sstable_reader.js';
export { BlockBuilder, parseBlock, type BlockEntry, type ParsedBlock } from './block.js';
export { TABLE_MAGIC, FOOTER_SIZE, BLOCK_TRAILER_SIZE, CompressionType, DEFAULT_BLOCK_SIZE, DEFAULT_RESTART_INTERVAL, type BlockHandle } from './sstable_format.js';
export { crc32c, maskCrc, unmaskCrc } from './crc32c.js';
