// The image decoders on what their op cases cannot hold: a full photo-sized JPEG against
// libjpeg-turbo's own decode with TF's flags, the crops tfgate refuses, and the bound on
// decoded sizes. (TF's stated values for each op are in cases/image.ts.)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Code, ServingError } from '../../../src/errors/status.js';
import { decodeJpeg } from '../../../src/runtimes/embedded/ops/image/jpeg.js';
import { decodePng } from '../../../src/runtimes/embedded/ops/image/png.js';
import { MAX_DECODED_IMAGE_BYTES } from '../../../src/runtimes/embedded/ops/image/decoded_image.js';
import { REPO_ROOT } from '../../helpers/paths.js';

const image = (name: string) => new Uint8Array(fs.readFileSync(path.join(REPO_ROOT, 'test', 'runtimes', 'ops', 'cases', 'images', name)));
const JPEG_420 = image('lj_testorig.jpg');

describe('image decoders', () => {
  it("decode a 227×149 4:2:0 JPEG exactly as libjpeg-turbo's `djpeg -dct fast` (TF's default flags)", () => {
    const d = decodeJpeg(JPEG_420, { op: 'DecodeJpeg', channels: 3, dtype: 'uint8', frames4d: false });
    const ppm = Buffer.concat([Buffer.from(`P6\n${d.width} ${d.height}\n255\n`), Buffer.from(d.samples as Uint8Array)]);
    // images/PROVENANCE.md: the md5 of djpeg 2.1.5's PPM.
    assert.equal(crypto.createHash('md5').update(ppm).digest('hex'), '048298a2d2410261c0533cb97bcfef23');
  });

  it('refuses a partial-width crop of a chroma-subsampled JPEG, and takes a full-width one', () => {
    assert.throws(
      () => decodeJpeg(JPEG_420, { op: 'DecodeAndCropJpeg', channels: 3, dtype: 'uint8', frames4d: false, crop: [16, 16, 32, 32] }),
      (e: unknown) => e instanceof ServingError && e.code === Code.INVALID_ARGUMENT && /cropped upsampling/.test(e.message),
    );
    const rows = decodeJpeg(JPEG_420, { op: 'DecodeAndCropJpeg', channels: 3, dtype: 'uint8', frames4d: false, crop: [16, 0, 32, 227] });
    assert.deepEqual([rows.height, rows.width], [32, 227]);
  });

  it('refuses a PNG that declares more pixels than the bound before decoding any', () => {
    // A 20 000 × 20 000 RGB header and nothing else: 1.2 GB if it were decoded (TF's own limit, 2^29 pixels, lets it through).
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452' + '00004e20' + '00004e20' + '0802000000' + '00000000', 'hex');
    assert.throws(
      () => decodePng(png, { op: 'DecodePng', channels: 0, dtype: 'uint8' }),
      (e: unknown) =>
        e instanceof ServingError &&
        e.code === Code.RESOURCE_EXHAUSTED &&
        e.message.includes('DecodePng') &&
        e.message.includes(String(MAX_DECODED_IMAGE_BYTES)),
    );
  });
});
