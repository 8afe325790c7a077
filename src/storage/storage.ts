// The storage seam: what the file-system source and the loaders need from wherever model
// versions live — a local folder, an S3 bucket, a GCS bucket. One small interface, one
// implementation per place (local_storage.ts, s3_storage.ts, gcs_storage.ts); storage_router.ts
// picks one by the location's scheme. As TF's FileSystem, it knows folders and files, not
// models: which folder is a version is core/version_dirs.ts's rule, the same everywhere.
import type { Readable } from 'node:stream';

/** A folder's direct children, by name. */
export interface FolderListing {
  /** Sub-folders (on an object store: the common prefixes below the folder's prefix). */
  readonly folders: readonly string[];
  /** Files (objects) directly in the folder. */
  readonly files: readonly string[];
}

/** One object below a folder: its path relative to that folder ('/'-separated) and its size. */
export interface StoredObject {
  readonly path: string;
  readonly bytes: number;
}

/**
 * A place where model versions live. Every method may be called concurrently; none caches.
 * Failures are StorageErrors (storage_error.ts): code 'ENOENT' with `path` set to the location
 * when it does not exist, the provider's error name otherwise (NoSuchBucket, AccessDenied,
 * CredentialsProviderError …), so that a caller can say once what went wrong and keep what
 * it has.
 */
export interface Storage {
  /** The children of `folder`. A folder with nothing in it and one that does not exist are alike on an object store: both ENOENT. */
  list(folder: string): Promise<FolderListing>;
  /** Every file below `folder`, at any depth, with its size. */
  listTree(folder: string): Promise<StoredObject[]>;
  /** The bytes of one file, streamed (the stream fails with a StorageError). */
  open(file: string): Promise<Readable>;
}
