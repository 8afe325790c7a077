// The Open Inference Protocol (KServe v2 / Triton) REST API: the door to src/rest/v2/.
export { mountOpenInferenceRoutes } from './v2_routes.js';
