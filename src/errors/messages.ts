// The error catalog: TF Serving's (and TensorFlow's) error texts, word for word, in one
// place, for every transport (REST answers them as {"error": …}, gRPC as the status details).
// Sources, tensorflow/serving @ 9d981c5c unless named otherwise: util/json_tensor.cc (the REST
// request and response codec), RapidJSON 1.1.0's error/en.h (parse errors, which
// json_tensor.cc wraps as "JSON Parse error: <text> at offset: N"), model_servers/ (routing,
// model specs, status), servables/tensorflow/ (predict, classify, regress, multi-inference)
// and TensorFlow's cc/saved_model/util.cc and core/framework/function.cc (feeds),
// cc/saved_model/reader.cc and core/platform/env.cc (reading a SavedModel).
// Where a text is a function, `dbg` is a JSON value printed as json_tensor.cc's
// JsonValueToDebugString prints it (see debugJson in rest/rapidjson_writer.ts).
// Texts that tfgate adds (limits, which TF Serving does not have) are marked as such.

/** RapidJSON's GetParseError_En texts, by error. Each ends with a full stop, as RapidJSON's do. */
export const RAPIDJSON = {
  documentEmpty: 'The document is empty.',
  rootNotSingular: 'The document root must not be followed by other values.',
  valueInvalid: 'Invalid value.',
  objectMissName: 'Missing a name for object member.',
  objectMissColon: 'Missing a colon after a name of object member.',
  objectMissCommaOrCurlyBracket: "Missing a comma or '}' after an object member.",
  arrayMissCommaOrSquareBracket: "Missing a comma or ']' after an array element.",
  stringUnicodeEscapeInvalidHex: 'Incorrect hex digit after \\u escape in string.',
  stringUnicodeSurrogateInvalid: 'The surrogate pair in string is invalid.',
  stringEscapeInvalid: 'Invalid escape character in string.',
  stringMissQuotationMark: 'Missing a closing quotation mark in string.',
  stringInvalidEncoding: 'Invalid encoding in string.',
  numberTooBig: 'Number too big to be stored in double.',
  numberMissFraction: 'Miss fraction part in number.',
  numberMissExponent: 'Miss exponent in number.',
} as const;

/** ParseJson: a zero-length body (checked before RapidJSON runs, hence no full stop and no offset). */
export const JSON_DOCUMENT_EMPTY = 'JSON Parse error: The document is empty';

/** ParseJson: RapidJSON rejected the body; `offset` is a byte offset into the UTF-8 body. */
export const jsonParseError = (rapidjsonText: string, offset: number) => `JSON Parse error: ${rapidjsonText} at offset: ${offset}`;

/** tfgate's own limit (flag --json_max_depth); TF Serving has none. */
export const jsonTooDeep = (maxDepth: number) => `JSON nesting is deeper than the limit of ${maxDepth} (--json_max_depth)`;

/** tfgate's own limit (flag --json_max_elements); TF Serving has none. */
export const jsonTooManyElements = (maxElements: number) => `JSON has more than the limit of ${maxElements} elements (--json_max_elements)`;

// ---- FillPredictRequestFromJson ------------------------------------------------------------

/** ParseJson: the root is not an object. */
export const isNotObject = (dbg: string) => `JSON Value: ${dbg} Is not object`;

/** FormatSignatureError: "signature_name" present but not a string. */
export const signatureNameNotString = (dbg: string) =>
  `JSON Value: ${dbg} not formatted correctly. 'signature_name' key must be a string value.`;

/** The signature has no inputs. */
export const failedToGetInputMap = (signatureName: string) =>
  `Failed to get input map for signature: ${signatureName === '' ? 'DEFAULT' : signatureName}`;

/** Both "instances" and "inputs" (note the trailing space, as TF Serving writes it). */
export const bothInstancesAndInputs = (dbg: string) =>
  `JSON Value: ${dbg} Not formatted correctly expecting only one of 'inputs' or 'instances' keys to exist `;

export const instancesNotList = (dbg: string) => `JSON Value: ${dbg} Expecting 'instances' to be an list/array`;

export const instancesEmpty = (dbg: string) => `JSON Value: ${dbg} No values in 'instances' array`;

export const MISSING_INPUTS_OR_INSTANCES = "Missing 'inputs' or 'instances' key";

export const INSTANCES_PLAIN_LIST_FOR_MANY_INPUTS =
  'instances is a plain list, but expecting list of objects as multiple input tensors required as per tensorinfo_map';

export const expectingObjectGotList = (item: number) => `Expecting object but got list at item ${item} of input list`;

export const expectingValueGotObject = (item: number) => `Expecting value/list but got object at item ${item} of input list`;

/** `status` is the inner error as absl's Status::ToString prints it: "INVALID_ARGUMENT: …". */
export const failedToProcessElementKey = (item: number, key: string, status: string) =>
  `Failed to process element: ${item} key: ${key} of 'instances' list. Error: ${status}`;

export const failedToProcessElement = (item: number, status: string) =>
  `Failed to process element: ${item} of 'instances' list. Error: ${status}`;

export const instanceKeysMismatch = (item: number, dbg: string, names: readonly string[]) =>
  `Failed to process element: ${item} of 'instances' list. JSON object: ${dbg} keys must be equal to: ${names.join(',')}`;

export const noNamedInput = (name: string) => `JSON object: does not have named input: ${name}`;

export const expectingTensorSize = (expected: number, got: number) => `Expecting tensor size: ${expected} but got: ${got}`;

/** Shapes as ShapeToString prints them: "[2,3]". */
export const expectingShape = (expected: string, got: string) => `Expecting shape ${expected} but got: ${got}`;

export const INPUTS_PLAIN_VALUE_FOR_MANY_INPUTS =
  'inputs is a plain value/list, but expecting an object as multiple input tensors required as per tensorinfo_map';

export const missingNamedInput = (name: string) => `Missing named input: ${name} in 'inputs' object.`;

/** TypeError: `jsonType` as JsonTypeString (Null, False, True, Object, Array, String, Number), `dtype` as DataTypeString (float, int32 …). */
export const notOfExpectedType = (dbg: string, jsonType: string, dtype: string) =>
  `JSON Value: ${dbg} Type: ${jsonType} is not of expected type: ${dtype}`;

export const base64FormatError = (dbg: string) => `JSON Value: ${dbg} not formatted correctly for base64 data`;

export const UNABLE_TO_BASE64_DECODE = 'Unable to base64 decode';

/** UNIMPLEMENTED: an input dtype the JSON codec cannot fill (half, complex64 …). */
export const conversionUnimplemented = (dbg: string, dtype: string) => `Conversion of JSON Value: ${dbg} to type: ${dtype}`;

/** `level` is already 1-based, as TF Serving prints level + 1. */
export const valueAtIncorrectLevel = (dbg: string, level: number, rank: number) =>
  `JSON Value: ${dbg} found at incorrect level: ${level} in the JSON DOM. Expected at level: ${rank}`;

export const listAtUnexpectedLevel = (level: number, rank: number) => `Encountered list at unexpected level: ${level} expected < ${rank}`;

export const listAtUnexpectedSize = (size: number, level: number, expected: number) =>
  `Encountered list at unexpected size: ${size} at level: ${level} expected size: ${expected}`;

// ---- MakeJsonFromTensors ---------------------------------------------------------------------

export const EMPTY_TENSOR_MAP = 'Cannot convert empty tensor map to JSON';

export const INVALID_REQUEST_FORMAT = 'Invalid request format';

/** Row format: an output of rank 0 (note the trailing space, as TF Serving writes it). */
export const noShapeInformation = (name: string) => `Tensor name: ${name} has no shape information `;

export const inconsistentBatchSize = (name: string, got: number, expected: number) =>
  `Tensor name: ${name} has inconsistent batch size: ${got} expecting: ${expected}`;

export const failedToWriteJsonValue = (dtype: string) => `Failed to write JSON value for tensor type: ${dtype}`;

// ---- FillClassifyRegressRequestFromJson ---------------------------------------------------

/** Both verbs: TF Serving's template says "classify" for :regress too. */
export const examplesMissing = (dbg: string) => `JSON Value: ${dbg} When method is classify, key 'examples' is expected and was not found`;
export const examplesNotList = (dbg: string) => `JSON Value: ${dbg} Expecting 'examples' value to be an list/array`;
export const examplesEmpty = (dbg: string) => `JSON Value: ${dbg} 'examples' value is an empty array`;
export const exampleNotObject = (jsonType: string) => `Example must be JSON object but got JSON ${jsonType}`;
export const featureUnexpectedJsonType = (feature: string, jsonType: string) =>
  `Feature: ${feature} has element with unexpected JSON type: ${jsonType}`;
/** A list element of another kind than the ones before it (bytes, float, int64). */
export const featureUnexpectedElementType = (feature: string, kind: string) =>
  `Unexpected element type in feature: ${feature} expecting type: ${kind}`;
/** LossyDecimalError: a finite number beyond float's range. `dbg` as JsonValueToString writes it. */
export const lossyDecimal = (dbg: string, target: string) => `Cannot convert JSON value: ${dbg} to ${target} without loss of precision.`;
export const featureUint64 = (feature: string) => `Feature: ${feature} has uint64 element. Only int64 is supported.`;

// ---- REST routing: model_servers/http_server.cc, http_rest_api_handler.cc ---------------------

/** No route matched; `uriPath` is the path and query as the client sent them (not decoded). */
export const malformedRequest = (method: string, uriPath: string) => `Malformed request: ${method} ${uriPath}`;

/** GET /v1/models (status and metadata need a model). */
export const MISSING_MODEL_NAME = 'Missing model name in request.';

/** FAILED_PRECONDITION: an OPTIONS request whose Origin header has no http:// or https:// in it. */
export const ORIGIN_HEADER_MISSING = 'Origin header is missing in CORS preflight';

/** GetInfoMap: REST :predict names a signature the model does not have (checked before predict_util). */
export const restSignatureNotFound = (name: string) => `Serving signature name: "${name}" not found in signature def`;

// ---- Model specs and status: model_servers/server_core.cc, get_model_status_impl.cc ----------

export const MISSING_MODEL_SPEC = 'Missing ModelSpec';

/** ServableRequestFromModelSpec: every call that resolves a version (not GetModelStatus). */
export const MODEL_SPEC_NO_NAME = 'ModelSpec has no name specified.';

export const unrecognizedVersionLabel = (label: string) => `Unrecognized servable version label: ${label}`;

/** GetModelStatus of a model the state monitor never saw (labels are not consulted). */
export const couldNotFindAnyVersions = (model: string) => `Could not find any versions of model ${model}`;

export const couldNotFindVersion = (version: number, model: string) => `Could not find version ${version} of model ${model}`;

// ---- Predict: servables/tensorflow/predict_util.cc ---------------------------------------------

/** FAILED_PRECONDITION, gRPC Predict (REST :predict answers restSignatureNotFound first). */
export const predictSignatureNotFound = (name: string) => `Serving signature key "${name}" not found.`;

/** VerifyRequestInputsSize; each list sorted and comma-joined. */
export const inputSizeMismatch = (sent: string[], expected: string[], extra: string[], missing: string[]) =>
  `input size does not match signature: ${sent.length}!=${expected.length} len({${sent.join(',')}}) != len({${expected.join(',')}}). ` +
  `Sent extra: {${extra.join(',')}}. Missing but required: {${missing.join(',')}}.`;

/** An input the signature does not have (note: a full stop after the alias, unlike the output's). */
export const inputAliasNotFound = (alias: string, inputs: readonly string[]) =>
  `input tensor alias not found in signature: ${alias}. Inputs expected to be in the set {${inputs.join(',')}}.`;

/** output_filter names an output the signature does not have (note: no full stop after the alias). */
export const outputAliasNotFound = (alias: string, outputs: readonly string[]) =>
  `output tensor alias not found in signature: ${alias} Outputs expected to be in the set {${outputs.join(',')}}.`;

export const duplicateOutputAlias = (alias: string) => `duplicate output tensor alias: ${alias}`;

// ---- Feeds: TensorFlow's cc/saved_model/util.cc (GetInputValues), core/framework/function.cc ---

/** A signature input neither sent nor defaulted; the sets sorted and comma-joined. */
export const inputNotInRequest = (alias: string, feedName: string, requestAliases: string[], defaultAliases: string[]) =>
  `Signature input alias: ${alias}(feed name: ${feedName}) not found in request and no default value provided. ` +
  `Inputs expected to be in the request {${requestAliases.join(',')}}, or default input alias set: ${defaultAliases.join(',')}`;

/** A request input that is no signature input (once defaults filled the count). */
export const inputsContainInvalidName = (used: string[], given: string[]) =>
  `Inputs contains invalid name. Used request inputs: ${used.join(',')}, request input: ${given.join(',')}`;

/** Tensor::FromProto refused the TensorProto sent for `alias`. */
export const tensorParsingError = (alias: string) => `tensor parsing error: ${alias}`;

/** FunctionCallFrame::SetArgs: a feed of another dtype than the graph's; dtypes as DataTypeString. */
export const argDtypeMismatch = (index: number, expected: string, given: string) =>
  `Expects arg[${index}] to be ${expected} but ${given} is provided`;

// ---- Classify, Regress, MultiInference: classifier.cc, regressor.cc, multi_inference.cc -------

export const exampleSignatureNotFound = (name: string) => `No signature was found with the name: ${name}`;

export const multiInferenceSignatureNotFound = (name: string) => `Requested signature not found in model graph: ${name}`;

/** InputToSerializedExampleTensor (servables/tensorflow/util.cc): no examples in the Input. */
export const INPUT_IS_EMPTY = 'Input is empty.';

export const MULTI_INFERENCE_EMPTY_MODEL_NAME = 'Found ModelSpec with an empty model name.';

export const MULTI_INFERENCE_MODEL_NAMES_DIFFER = 'All ModelSpecs in a MultiInferenceRequest must access the same model name.';

export const duplicateSignatureEvaluation = (signature: string) => `Duplicate evaluation of signature: ${signature}`;

/** UNIMPLEMENTED: a task whose method_name is neither classify's nor regress's. */
export const unsupportedMethodName = (methodName: string) => `Unsupported signature method_name: ${methodName}`;

// ---- Reading a SavedModel: TensorFlow's cc/saved_model/reader.cc, core/platform/env.cc --------

/** NOT_FOUND: neither saved_model.pb nor saved_model.pbtxt in the version folder. */
export const savedModelNotFound = (dir: string) => `SavedModel not found in export directory: ${dir}`;

/** DATA_LOSS: ReadBinaryProto could not parse the file. */
export const cantParseBinaryProto = (file: string) => `Can't parse ${file} as binary proto`;

/** NOT_FOUND: no MetaGraphDef carries exactly the tags asked for (--saved_model_tags). */
export const metaGraphNotFound = (tags: readonly string[]) =>
  `Could not find meta graph def matching supplied tags: { ${tags.join(' ')} }. ` +
  'To inspect available tag-sets in the SavedModel, please use the SavedModel CLI: `saved_model_cli`';
