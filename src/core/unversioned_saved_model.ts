// A SavedModel put directly in a base path, with no version folder: `<base>/saved_model.pb`.
// KServe's storage initializer copies whatever its storageUri holds into /mnt/models, so a
// storageUri that names the SavedModel itself (rather than a folder holding `1/`, `0001/` …)
// leaves exactly this. TF Serving finds no version there and serves nothing; tfgate serves
// it as version 1 (version_dirs.ts). Version folders, when there are any, win and the stray
// file is ignored, as TF Serving ignores it.

/** The version an unversioned SavedModel is served as. */
export const UNVERSIONED_SAVED_MODEL_VERSION = 1;
