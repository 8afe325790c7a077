// `tfgate show` and `tfgate run`: TensorFlow's saved_model_cli for tfgate's runtime.
import { readSavedModelProto } from '../savedmodel/saved_model_reader.js';
import { showSavedModel } from './saved_model_cli_show.js';
import { showEngines } from './saved_model_cli_engines.js';
import { runSavedModel } from './saved_model_cli_run.js';
import { parseSubcommandArgs, UsageError } from './cli_args.js';

export const SHOW_USAGE = `usage: tfgate show --dir DIR [--all] [--tag_set TAGS] [--signature_def KEY]
  --dir            SavedModel version folder (the one holding saved_model.pb)
  --all            every tag set and signature with inputs and outputs, then the engine that
                   will run each signature (ONNX Runtime, or WASM and the ops that keep it off)
  --tag_set        comma-separated tag set, e.g. serve; alone, lists its signatures
  --signature_def  with --tag_set: that signature's inputs, outputs and method`;

export const RUN_USAGE = `usage: tfgate run --dir DIR --signature_def KEY --input_exprs 'x=[1,2,5]' [--tag_set serve] [--runtime auto|onnx|wasm|cpu]
  --input_exprs    ';'-separated <input key>=<JSON value>; prints {"<output key>": <value>} as JSON`;

export async function showCommand(argv: string[], out: (s: string) => void): Promise<void> {
  const args = parseSubcommandArgs(argv, ['dir', 'tag_set', 'signature_def'], ['all']);
  const dir = args.get('dir');
  if (typeof dir !== 'string') throw new UsageError('--dir is required');
  const signatureDef = args.get('signature_def') as string | undefined;
  const tagSet = args.get('tag_set') as string | undefined;
  if (signatureDef && !tagSet) throw new UsageError('--signature_def needs --tag_set');
  const sm = await readSavedModelProto(dir);
  out(showSavedModel(sm, { all: args.has('all'), tagSet, signatureDef }));
  if (args.has('all')) out(await showEngines(dir, sm));
}

export async function runCommand(argv: string[], out: (s: string) => void): Promise<void> {
  const args = parseSubcommandArgs(argv, ['dir', 'tag_set', 'signature_def', 'input_exprs', 'runtime'], []);
  const dir = args.get('dir');
  const signature = args.get('signature_def');
  if (typeof dir !== 'string') throw new UsageError('--dir is required');
  if (typeof signature !== 'string') throw new UsageError('--signature_def is required');
  const runtime = (args.get('runtime') as string | undefined) ?? 'auto';
  if (!['auto', 'onnx', 'wasm', 'cpu'].includes(runtime)) throw new UsageError(`--runtime must be auto, onnx, wasm or cpu, not ${runtime}`);
  const tags = ((args.get('tag_set') as string | undefined) ?? 'serve').split(',').map((t) => t.trim());
  out(
    await runSavedModel({
      dir,
      signature,
      tags,
      inputExprs: (args.get('input_exprs') as string | undefined) ?? '',
      runtime: runtime === 'auto' ? 'onnx+embedded' : (runtime as 'onnx' | 'wasm' | 'cpu'),
    }),
  );
}
