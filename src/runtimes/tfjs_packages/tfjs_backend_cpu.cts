// tfjs-backend-cpu loaded with require(), as tfjs_core.cts says why: loading it registers the backend.
import '@tensorflow/tfjs-backend-cpu';
