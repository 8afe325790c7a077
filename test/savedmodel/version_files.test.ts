// Files of a version folder that are not files: a FIFO, a link to /dev/zero or out of the
// folder, a directory, a 3 GiB saved_model.pb. Each is refused by name before it is read,
// with TF's code for the condition; none blocks a libuv thread (four FIFO versions at once
// leave the thread pool free for the file-system poll).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Code } from '../../src/errors/status.js';
import { readSavedModelProto } from '../../src/savedmodel/saved_model_reader.js';
import { readTensorBundle } from '../../src/savedmodel/tensor_bundle/index.js';
import { readVersionFile, versionInventory } from '../../src/savedmodel/version_files.js';
import { readWarmupRuns } from '../../src/savedmodel/warmup_requests.js';
import { writeTensorBundle } from '../../test_util/savedmodel/tensor_bundle/tensor_bundle_writer.js';
import { isError } from '../helpers/errors.js';
import { fixtureModel } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

const HALF_PLUS_TWO = fixtureModel('saved_model_half_plus_two_cpu', '00000123');

/** A copy of half_plus_two's version folder to spoil. */
function copyVersion(): string {
  const dir = path.join(tempDir('tfgate-files-'), '1');
  fs.cpSync(HALF_PLUS_TWO, dir, { recursive: true });
  return dir;
}

const mkfifo = (file: string) => execFileSync('mkfifo', [file]);

describe('files of a version folder that are not regular files', () => {
  it('a FIFO saved_model.pb is refused at once, naming it', async () => {
    const dir = copyVersion();
    fs.rmSync(path.join(dir, 'saved_model.pb'));
    mkfifo(path.join(dir, 'saved_model.pb'));
    await assert.rejects(readSavedModelProto(dir), isError(Code.FAILED_PRECONDITION, /saved_model\.pb is a FIFO, not a regular file/));
    await assert.rejects(versionInventory(dir), isError(Code.FAILED_PRECONDITION, /saved_model\.pb is a FIFO/));
  });

  it('saved_model.pb or variables.index linked to /dev/zero is refused as a link out of the folder', async () => {
    const dir = copyVersion();
    fs.rmSync(path.join(dir, 'saved_model.pb'));
    fs.symlinkSync('/dev/zero', path.join(dir, 'saved_model.pb'));
    await assert.rejects(
      readSavedModelProto(dir),
      isError(Code.FAILED_PRECONDITION, /saved_model\.pb is a symbolic link to \/dev\/zero, outside the version folder/),
    );
    const other = copyVersion();
    const index = path.join(other, 'variables', 'variables.index');
    fs.rmSync(index);
    fs.symlinkSync('/dev/zero', index);
    await assert.rejects(
      readTensorBundle(path.join(other, 'variables', 'variables'), other),
      isError(Code.FAILED_PRECONDITION, /variables\.index is a symbolic link to \/dev\/zero/),
    );
    await assert.rejects(versionInventory(other), isError(Code.FAILED_PRECONDITION, /variables\.index is a symbolic link to \/dev\/zero/));
  });

  it('a data shard linked to a device inside the folder is refused as not a regular file', async () => {
    const dir = copyVersion();
    const shard = path.join(dir, 'variables', 'variables.data-00000-of-00001');
    fs.rmSync(shard);
    mkfifo(path.join(dir, 'variables', 'pipe'));
    fs.symlinkSync('pipe', shard);
    await assert.rejects(
      readTensorBundle(path.join(dir, 'variables', 'variables'), dir),
      isError(Code.FAILED_PRECONDITION, /variables\.data-00000-of-00001 is a FIFO/),
    );
  });

  it('a link inside the folder is read; /proc/self/mem is not', async () => {
    const dir = copyVersion();
    fs.renameSync(path.join(dir, 'saved_model.pb'), path.join(dir, 'real.pb'));
    fs.symlinkSync('real.pb', path.join(dir, 'saved_model.pb'));
    assert.equal((await readSavedModelProto(dir)).metaGraphs?.length, 1);
    assert.ok((await versionInventory(dir)).bytes > 0);
    fs.rmSync(path.join(dir, 'saved_model.pb'));
    fs.symlinkSync('/proc/self/mem', path.join(dir, 'saved_model.pb'));
    await assert.rejects(readSavedModelProto(dir), isError(Code.FAILED_PRECONDITION, /outside the version folder/));
  });

  it('a directory named saved_model.pb is FAILED_PRECONDITION, not "SavedModel not found"', async () => {
    const dir = copyVersion();
    fs.rmSync(path.join(dir, 'saved_model.pb'));
    fs.mkdirSync(path.join(dir, 'saved_model.pb'));
    await assert.rejects(readSavedModelProto(dir), isError(Code.FAILED_PRECONDITION, /saved_model\.pb is a directory/));
  });

  it('a 3 GiB saved_model.pb is refused by its size before a byte is read', async () => {
    const dir = copyVersion();
    fs.truncateSync(path.join(dir, 'saved_model.pb'), 3 * 2 ** 30);
    await assert.rejects(
      readSavedModelProto(dir),
      isError(Code.DATA_LOSS, /Can't parse .*saved_model\.pb as binary proto: it is 3221225472 bytes, over protobuf's limit/),
    );
  });

  it("a missing saved_model.pb is still NOT_FOUND with TF Serving's words", async () => {
    const dir = tempDir('tfgate-files-empty-');
    await assert.rejects(readSavedModelProto(dir), isError(Code.NOT_FOUND, /SavedModel not found in export directory/));
  });

  it('a FIFO warmup file fails the load instead of blocking it', async () => {
    const dir = copyVersion();
    fs.mkdirSync(path.join(dir, 'assets.extra'));
    mkfifo(path.join(dir, 'assets.extra', 'tf_serving_warmup_requests'));
    await assert.rejects(readWarmupRuns(dir), isError(Code.FAILED_PRECONDITION, /tf_serving_warmup_requests is a FIFO/));
  });

  it('the inventory sums regular files, counts a linked file once and refuses a socket-like entry anywhere', async () => {
    const dir = tempDir('tfgate-inventory-');
    fs.writeFileSync(path.join(dir, 'a'), Buffer.alloc(100));
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', 'b'), Buffer.alloc(50));
    fs.symlinkSync(path.join('..', 'a'), path.join(dir, 'sub', 'link-to-a'));
    fs.symlinkSync(path.join('..', 'sub'), path.join(dir, 'sub', 'loop'));
    assert.deepEqual(await versionInventory(dir), { bytes: 150, files: 2 });
    mkfifo(path.join(dir, 'sub', 'unused.fifo'));
    await assert.rejects(versionInventory(dir), isError(Code.FAILED_PRECONDITION, /unused\.fifo is a FIFO/));
  });

  it("four FIFO versions read at once leave libuv's threads free for the poll", async () => {
    const dirs = Array.from({ length: 4 }, () => {
      const d = copyVersion();
      fs.rmSync(path.join(d, 'saved_model.pb'));
      mkfifo(path.join(d, 'saved_model.pb'));
      return d;
    });
    const reads = dirs.map((d) =>
      readVersionFile(d, path.join(d, 'saved_model.pb')).then(
        () => 'read',
        () => 'refused',
      ),
    );
    // The poll's own work: a readdir on the thread pool, which four blocked opens would starve.
    const polled = await Promise.race([
      fs.promises.readdir(path.dirname(dirs[0])).then(() => 'polled'),
      new Promise((r) => setTimeout(() => r('starved'), 10_000).unref()),
    ]);
    assert.equal(polled, 'polled');
    assert.deepEqual(await Promise.all(reads), ['refused', 'refused', 'refused', 'refused']);
  });

  it('reads what fstat says and no more', async () => {
    const dir = tempDir('tfgate-read-');
    const file = path.join(dir, 'f');
    fs.writeFileSync(file, Buffer.from('hello'));
    assert.equal((await readVersionFile(dir, file)).toString(), 'hello');
    await assert.rejects(readVersionFile(dir, file, { maxBytes: 4 }), isError(Code.OUT_OF_RANGE, /5 bytes, over the 4 bytes/));
    await writeTensorBundle(path.join(dir, 'variables', 'variables'), [
      ['v', { dtype: 'float32', shape: [2], values: Float32Array.of(1, 2) }],
    ]);
    assert.deepEqual(
      Array.from((await readTensorBundle(path.join(dir, 'variables', 'variables'), dir)).read('v').values as Float32Array),
      [1, 2],
    );
  });
});
