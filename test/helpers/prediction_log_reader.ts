// Reads a request log (TFRecord files of PredictionLog) with the test client's own .proto
// files (client_protos/prediction_log.proto), not the server's: a field-number slip in
// either set shows up as a record that does not decode to what was sent.
import fs from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';
import { readTfRecords } from '../../src/savedmodel/tfrecord.js';
import { CLIENT_PROTOS } from './grpc_client.js';

let type: protobuf.Type | undefined;

function predictionLogType(): protobuf.Type {
  if (type) return type;
  const root = new protobuf.Root();
  // google/protobuf/*.proto are protobufjs' bundled common types.
  root.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : path.join(CLIENT_PROTOS, target));
  root.loadSync('prediction_log.proto', { keepCase: true });
  type = root.lookupType('tensorflow.serving.PredictionLog');
  return type;
}

/* eslint-disable @typescript-eslint/no-explicit-any */
/** The records of one log file, decoded (snake_case, int64 as numbers, enums as names, oneofs named). */
export function readPredictionLogs(file: string): any[] {
  const T = predictionLogType();
  return readTfRecords(fs.readFileSync(file), file).map((r) =>
    T.toObject(T.decode(r), { longs: Number, enums: String, oneofs: true, defaults: false }),
  );
}

/** The files a log prefix has now, in the order they were written. */
export function logFiles(prefix: string): string[] {
  const dir = path.dirname(prefix);
  const base = path.basename(prefix);
  return fs
    .readdirSync(dir)
    .filter((f) => f.startsWith(`${base}.`) && f.endsWith('.tfrecord'))
    .sort()
    .map((f) => path.join(dir, f));
}
