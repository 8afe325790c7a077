const { EmbeddedRuntime } = await import('./dist/src/runtimes/embedded/embedded_runtime.js');
const { protoType } = await import('./dist/src/proto/index.js');
const E = protoType('tensorflow.Example');
const ex = (x) => E.encode(E.fromObject({ features: { feature: { x: { floatList: { value: [x] } } } } })).finish();
for (const [m, v, sigs] of [['saved_model_half_plus_two_cpu','00000123',['classify_x_to_y','regress_x_to_y','regress_x_to_y2']], ['saved_model_half_plus_two_tf2_cpu','00000123',['classify_x_to_y','regress_x_to_y','regress_x_to_y2']], ['saved_model_half_plus_three','00000123',['tensorflow/serving/regress']]]) {
  const dir = `../shared/fixtures/models/${m}/${v}`;
  try {
  const s = await new EmbeddedRuntime('auto').load(dir, { tags: ['serve'] });
  for (const sig of sigs) {
    try { const out = await s.run(sig, { inputs: { dtype: 'string', shape: [2], values: [ex(2), ex(80)] } }); console.log(m, sig, JSON.stringify(Object.fromEntries(Object.entries(out).map(([k,t])=>[k,[t.shape, Array.from(t.values)]])))); } catch (e) { console.log(m, sig, 'ERR', e.message); }
  }
  console.log('refusals', JSON.stringify(s.refusals));
  } catch (e) { console.log(m, 'LOAD ERR', e.message); }
}
