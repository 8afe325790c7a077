// Regenerates ./model_repository with tfgate's own SavedModel writer:
//   npm run models:example
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeHalfPlusTwoSavedModel } from './savedmodel/model_zoo.js';
import { writeJpegClassifier } from './savedmodel/jpeg_classifier.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// test_util/ sits at the repository root; compiled, it sits in dist/.
const root = here.includes(`${path.sep}dist${path.sep}`) ? path.resolve(here, '../..') : path.resolve(here, '..');
const dir = path.join(root, 'model_repository', 'half_plus_two', '1');
await writeHalfPlusTwoSavedModel(dir);
process.stdout.write(`wrote ${path.relative(process.cwd(), dir)}\n`);
// MCUNet behind a JPEG-bytes serving function (savedmodel/jpeg_classifier.ts).
const jpegDir = path.join(root, 'model_repository', 'jpeg_classifier', '1');
await writeJpegClassifier(path.join(root, 'model_repository', 'image_classifier', '1'), jpegDir);
process.stdout.write(`wrote ${path.relative(process.cwd(), jpegDir)}\n`);
