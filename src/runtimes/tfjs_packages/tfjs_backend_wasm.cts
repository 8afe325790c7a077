// tfjs-backend-wasm loaded with require(), as tfjs_core.cts says why (loading registers the backend).
import wasm = require('@tensorflow/tfjs-backend-wasm');
export = wasm;
