// tfjs-converter loaded with require(), as tfjs_core.cts says why.
import tfconv = require('@tensorflow/tfjs-converter');
export = tfconv;
