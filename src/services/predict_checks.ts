// The checks TF Serving makes on a request's inputs and outputs before the session runs, in
// its order: VerifyRequestInputsSize and GetInputValues on the input names (predict_util.cc,
// TensorFlow's cc/saved_model/util.cc), the output_filter (predict_util.cc), then the feed
// dtypes the session itself checks (FunctionCallFrame::SetArgs). Every transport and API
// passes through them, so a bad request gets the same text however it came.
import { invalidArgument } from '../errors/status.js';
import * as MSG from '../errors/messages.js';
import { dtypeFromTf, dtypeToTf, tfDataTypeString, type DType } from '../tensor/dtype.js';
import type { HostTensor } from '../tensor/host_tensor.js';
import type { SignatureSpec } from '../savedmodel/signature_spec.js';
import { hasOwnKey, ownValue } from '../util/own_property.js';

const sorted = (names: Iterable<string>) => [...names].sort();

/**
 * The request's input aliases against the signature's, on the names alone (a gRPC request's
 * tensors are decoded only once they pass). Example: signature {x} with no defaults and a
 * request {z}: the counts match, so GetInputValues answers that x is missing from {z}.
 */
export function checkInputAliases(signature: SignatureSpec, aliases: readonly string[]): void {
  if (givesEveryInput(signature, aliases)) return;
  const sent = new Set(aliases);
  const expected = Object.keys(signature.inputs);
  const defaults = Object.keys(signature.defaults);
  if (sent.size > expected.length || (sent.size < expected.length && defaults.length === 0)) {
    throw invalidArgument(
      MSG.inputSizeMismatch(
        sorted(sent),
        sorted(expected),
        sorted([...sent].filter((k) => !hasOwnKey(signature.inputs, k))),
        sorted(expected.filter((k) => !sent.has(k))),
      ),
    );
  }
  const used: string[] = [];
  for (const [alias, spec] of Object.entries(signature.inputs)) {
    if (sent.has(alias)) used.push(alias);
    else if (!hasOwnKey(signature.defaults, alias))
      throw invalidArgument(MSG.inputNotInRequest(alias, spec.name, sorted(sent), sorted(defaults)));
  }
  if (sent.size > 0 && used.length !== sent.size) throw invalidArgument(MSG.inputsContainInvalidName(sorted(used), sorted(sent)));
}

/**
 * Whether `aliases` are the signature's inputs, each once, no other: what nearly every request
 * sends, passed without the sets and sorted lists the checks build to word a refusal.
 */
function givesEveryInput(signature: SignatureSpec, aliases: readonly string[]): boolean {
  let expected = 0;
  for (const alias in signature.inputs) if (hasOwnKey(signature.inputs, alias)) expected++;
  if (aliases.length !== expected) return false;
  for (let i = 0; i < aliases.length; i++) {
    if (!hasOwnKey(signature.inputs, aliases[i])) return false;
    for (let j = 0; j < i; j++) if (aliases[j] === aliases[i]) return false;
  }
  return true;
}

/** The output_filter checked: each alias the signature's, none twice. Empty: every output. */
export function checkOutputFilter(signature: SignatureSpec, filter: readonly string[]): void {
  if (filter.length === 0) return;
  const seen = new Set<string>();
  for (const alias of filter) {
    if (!hasOwnKey(signature.outputs, alias)) throw invalidArgument(MSG.outputAliasNotFound(alias, sorted(Object.keys(signature.outputs))));
    if (seen.has(alias)) throw invalidArgument(MSG.duplicateOutputAlias(alias));
    seen.add(alias);
  }
}

/**
 * Each fed tensor's dtype against the graph's feed. The graph's dtype wins over the declared
 * one where they differ (half_plus_three's regress signature declares DT_FLOAT for a DT_STRING
 * placeholder, and TF runs it by the graph). The arg index is the input's place among the
 * feed tensor names sorted, as TF's DirectSession orders its call frame.
 */
export function checkInputDtypes(signature: SignatureSpec, inputs: Record<string, HostTensor>): void {
  for (const alias in inputs) if (hasOwnKey(inputs, alias)) checkFedDtype(signature, alias, inputs[alias].dtype);
}

/**
 * checkInputDtypes on the dtypes alone, for a decoder that checks them before it decodes any
 * value (a gRPC TensorProto declares its dtype, whatever it holds).
 */
export function checkFedDtypes(signature: SignatureSpec, fed: Iterable<readonly [string, DType]>): void {
  for (const [alias, dtype] of fed) checkFedDtype(signature, alias, dtype);
}

function checkFedDtype(signature: SignatureSpec, alias: string, dtype: DType): void {
  const spec = ownValue(signature.inputs, alias);
  const wanted = spec && (spec.feedDtype ?? spec.dtype);
  // A dtype tfgate cannot hold (DT_RESOURCE …) is left for the runtime to refuse.
  if (!wanted || !dtypeFromTf(wanted) || dtypeFromTf(wanted) === dtype) return;
  // The feed names sorted only for the refusal's arg index (every request comes through here).
  const feeds = sorted(Object.values(signature.inputs).map((s) => s.name));
  throw invalidArgument(MSG.argDtypeMismatch(feeds.indexOf(spec.name), tfDataTypeString(wanted), tfDataTypeString(dtypeToTf(dtype))));
}
