// deploy/kubernetes checked without a cluster: every object of every kustomization against
// the Kubernetes OpenAPI schema (kubernetes-models' validators) or KServe's CRD schemas
// (vendored in kserve_crds/, ajv); container arguments through tfgate's own flag parser; the
// ConfigMap's files through tfgate's config parsers; and the parts that name things tfgate
// serves — probe paths, the Prometheus path, the autoscaler's metric after the adapter's
// rename — against real tfgate processes started with the manifests' own arguments.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { parseServerOptions, type ServerOptions } from '../../src/config/flags.js';
import { parseModelConfigText } from '../../src/config/index.js';
import { parseBatchingParametersText } from '../../src/config/batching_parameters.js';
import { parseMonitoringConfigText } from '../../src/config/monitoring_config.js';
import { REPO_ROOT, MODELS } from '../helpers/paths.js';
import { containersOf, kustomizeBuild, readManifests, type K8sObject } from '../helpers/kustomize.js';
import { postJson, startServer, waitAvailable, type RunningServer } from '../helpers/server_process.js';
import { tempDir } from '../helpers/temp.js';

const DEPLOY = path.join(REPO_ROOT, 'deploy', 'kubernetes');
const CRDS = path.join(REPO_ROOT, 'test', 'deploy', 'kserve_crds');
const KUSTOMIZATIONS = ['base', 'overlays/gpu', 'kserve'];
const built = Object.fromEntries(KUSTOMIZATIONS.map((k) => [k, kustomizeBuild(path.join(DEPLOY, k))])) as Record<string, K8sObject[]>;

function find<T = any>(objects: K8sObject[], kind: string, name?: string): T {
  const o = objects.find((x) => x.kind === kind && (name === undefined || x.metadata.name === name));
  assert.ok(o, `${kind} ${name ?? ''}`);
  return o as T;
}

// ---- schemas ----

const K8S_MODELS: Record<string, (new (o: any) => { validate(): void }) | undefined> = {
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

/**
 * Object schemas that list their properties refuse others, as the API server's pruning and
 * strict field validation do (the CRDs leave additionalProperties unsaid): a misspelt field
 * fails here instead of vanishing on the cluster.
 */
function closeObjects(schema: any): any {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (!schema || typeof schema !== 'object') return schema;
  const out: any = {};
  for (const [k, v] of Object.entries(schema))
    out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, closeObjects(s)])) : closeObjects(v);
  if (out.properties && out.additionalProperties === undefined && !out['x-kubernetes-preserve-unknown-fields'])
    out.additionalProperties = false;
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const crdValidators = new Map<string, ValidateFunction>();
function crdValidator(apiVersion: string, kind: string): ValidateFunction | undefined {
  const key = `${apiVersion}/${kind}`;
  if (!crdValidators.has(key)) {
    const file = path.join(CRDS, `${kind}.schema.json`);
    if (!fs.existsSync(file)) return undefined;
    const crd = JSON.parse(fs.readFileSync(file, 'utf8')) as { group: string; versions: Record<string, object> };
    const [group, version] = apiVersion.split('/');
    if (group !== crd.group || !crd.versions[version]) return undefined;
    crdValidators.set(key, ajv.compile(closeObjects(crd.versions[version])));
  }
  return crdValidators.get(key);
}

/** Throws naming the object and what is wrong with it. */
function validate(o: K8sObject): void {
  const Model = K8S_MODELS[`${o.apiVersion}/${o.kind}`];
  if (Model) {
    new Model(o).validate();
    return;
  }
  const v = crdValidator(o.apiVersion, o.kind);
  if (!v) throw new Error(`no schema for ${o.apiVersion} ${o.kind}`);
  const what = `${o.kind} ${o.metadata.name}`;
  if (!v(o)) throw new Error(`${what}: ${ajv.errorsText(v.errors)}`);
}

/** core/v1 Container, closed: the copy KServe's ServingRuntime CRD embeds (kubernetes-models' validators let unknown fields through). */
const strictContainer = ajv.compile(
  closeObjects(
    JSON.parse(fs.readFileSync(path.join(CRDS, 'ServingRuntime.schema.json'), 'utf8')).versions.v1alpha1.properties.spec.properties
      .containers.items,
  ),
);

describe('deploy/kubernetes: schemas', () => {
  for (const k of KUSTOMIZATIONS) {
    it(`${k}: every object is valid for its Kubernetes or KServe schema`, () => {
      assert.ok(built[k].length > 0);
      for (const o of built[k]) {
        validate(o);
        for (const c of containersOf(o))
          assert.ok(strictContainer(c), `${o.kind} ${o.metadata.name} container ${c.name}: ${ajv.errorsText(strictContainer.errors)}`);
      }
    });
  }

  it('the checks can fail: a wrong type, a misspelt container field, a runtime without containers', () => {
    const d = structuredClone(find(built.base, 'Deployment'));
    d.spec.replicas = 'two';
    assert.throws(() => validate(d), /replicas must be integer/);
    const c = structuredClone(containersOf(find(built.base, 'Deployment'))[0]) as Record<string, unknown>;
    c.readinesProbe = c.readinessProbe;
    assert.equal(strictContainer(c), false);
    const r = structuredClone(find(built.kserve, 'ClusterServingRuntime'));
    r.spec.supportedModelFormat = r.spec.supportedModelFormats;
    assert.throws(() => validate(r), /must NOT have additional properties/);
    const isvc = structuredClone(find(built.kserve, 'InferenceService'));
    delete isvc.spec.predictor;
    assert.throws(() => validate(isvc), /predictor/);
  });

  it('kubectl kustomize builds the same objects as the reader the other checks use', (t) => {
    const version = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
    if (version.status !== 0)
      return t.skip('kubectl is not on PATH: only the reader in test/helpers/kustomize.ts built the kustomizations');
    // Inline patches need kustomize v4+ (kubectl 1.21+ bundles it; older kubectl builds differently).
    const kustomize = /Kustomize Version: v(\d+)/.exec(version.stdout);
    if (!kustomize || Number(kustomize[1]) < 4)
      return t.skip(
        `kubectl's kustomize is older than v4 (${version.stdout.trim().replace(/\n/g, '; ')}): only the reader built the kustomizations`,
      );
    for (const k of KUSTOMIZATIONS) {
      const p = spawnSync('kubectl', ['kustomize', path.join(DEPLOY, k)], { encoding: 'utf8' });
      assert.equal(p.status, 0, p.stderr);
      const byKey = (objs: K8sObject[]) => new Map(objs.map((o) => [`${o.kind}/${o.metadata.name}`, o]));
      assert.deepEqual(byKey(parseAllDocuments(p.stdout).map((d) => d.toJS() as K8sObject)), byKey(built[k]), k);
    }
  });
});

// ---- what the objects say to each other and to tfgate ----

/** The flags the CPU image's ENTRYPOINT gives before a container's args, with its ENV defaults and the container's env. */
function imageFlags(container: { env?: { name: string; value: string }[] }): string[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const entry = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(text)![1]) as string[];
  const env: Record<string, string> = {};
  for (const m of text.matchAll(/^ENV (.*(?:\\\n.*)*)$/gm)) for (const kv of m[1].matchAll(/(\w+)=(\S+)/g)) env[kv[1]] = kv[2];
  for (const e of container.env ?? []) env[e.name] = e.value;
  return [...entry[2].matchAll(/--\w+=\\?"?([^"\s]*)\\?"?/g)].map((m) =>
    m[0].replace(/\\?"/g, '').replace(/\$\{(\w+)\}/g, (_, v: string) => env[v] ?? ''),
  );
}

describe('deploy/kubernetes/base: what tfgate is told', () => {
  const deployment = find(built.base, 'Deployment', 'tfgate');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const configMap = find(built.base, 'ConfigMap', 'tfgate-config');
  /** The command line the pod runs, parsed (throws FlagError naming a flag tfgate refuses). */
  const resolved = (): ServerOptions => parseServerOptions([...imageFlags(container), ...container.args], '/');
  let options: ServerOptions;
  before(() => {
    options = resolved();
  });

  it("the image's flags and the container's args are flags tfgate accepts, with TF Serving's ports", () => {
    const flags = imageFlags(container);
    assert.ok(flags.includes('--port=8500') && flags.includes('--rest_api_port=8501'), flags.join(' '));
    assert.doesNotThrow(resolved);
    assert.deepEqual(
      container.ports.map((p: { containerPort: number }) => p.containerPort).sort(),
      [options.grpcPort, options.restApiPort].sort(),
    );
  });

  it("the ConfigMap's files are the ones the flags name, in a folder mount (re-read without a restart), and they parse", () => {
    const mount = container.volumeMounts.find(
      (m: { name: string }) =>
        pod.volumes.find((v: { name: string; configMap?: { name: string } }) => v.name === m.name)?.configMap?.name === 'tfgate-config',
    );
    assert.ok(mount && mount.subPath === undefined, 'the whole ConfigMap is mounted: a subPath mount never sees an edit');
    const files = {
      models: (options.modelSource as { file: string }).file,
      batching: options.batching.parametersFile!,
      monitoring: options.monitoringConfigFile!,
    };
    for (const f of Object.values(files)) {
      assert.equal(path.dirname(f), mount.mountPath, f);
      assert.ok(typeof configMap.data[path.basename(f)] === 'string', `${path.basename(f)} in the ConfigMap`);
    }
    assert.equal(options.modelSource.kind, 'model_config_file');
    assert.ok((options.modelSource as { pollWaitSeconds: number }).pollWaitSeconds > 0, 'models.config is polled');
    assert.ok(options.batching.enabled && options.batching.pollWaitSeconds > 0, 'batching.cfg is polled');
    const models = parseModelConfigText(configMap.data['models.config'], files.models);
    const modelsMount = container.volumeMounts.find((m: { name: string }) => m.name === 'models');
    for (const m of models.model_config_list.config) assert.ok(m.base_path.startsWith(`${modelsMount.mountPath}/`), m.base_path);
    const batching = parseBatchingParametersText(configMap.data['batching.cfg'], files.batching);
    assert.equal(batching.num_batch_threads, options.numExecutors, 'one batch at a time per executor thread');
    const monitoring = parseMonitoringConfigText(configMap.data['monitoring.config'], files.monitoring);
    assert.equal(monitoring.prometheus_config.enable, true);
    assert.equal(deployment.spec.template.metadata.annotations['prometheus.io/path'], monitoring.prometheus_config.path);
    assert.equal(Number(deployment.spec.template.metadata.annotations['prometheus.io/port']), options.restApiPort);
  });

  it("the startup probe waits out the start-up loads' retries, with a minute to spare for the loads themselves", () => {
    const window = container.startupProbe.periodSeconds * container.startupProbe.failureThreshold;
    const retries = (options.maxNumLoadRetries * options.loadRetryIntervalMicros) / 1e6;
    assert.ok(window >= retries + 60, `startup probe ${window} s, retries ${retries} s`);
  });

  it('executor threads = the CPU request; the grace period covers preStop and the drain bound', () => {
    assert.equal(Number(container.resources.requests.cpu), options.numExecutors);
    const preStop = container.lifecycle.preStop.exec.command as string[];
    assert.equal(preStop[0], 'sleep');
    assert.ok(
      pod.terminationGracePeriodSeconds > Number(preStop[1]) + options.shutdownDrainSeconds,
      `${pod.terminationGracePeriodSeconds} s > ${preStop[1]} s + ${options.shutdownDrainSeconds} s`,
    );
  });

  it('the Service, PodDisruptionBudget and HorizontalPodAutoscaler select and scale this Deployment', () => {
    const labels = deployment.spec.template.metadata.labels;
    const selects = (sel: Record<string, string>) => Object.entries(sel).every(([k, v]) => labels[k] === v);
    assert.ok(selects(find(built.base, 'Service').spec.selector));
    assert.ok(selects(find(built.base, 'PodDisruptionBudget').spec.selector.matchLabels));
    const hpa = find(built.base, 'HorizontalPodAutoscaler');
    assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
    assert.equal(deployment.spec.replicas, undefined, 'the HPA owns the replica count: `kubectl apply` must not reset it');
    assert.ok(hpa.spec.minReplicas >= 2, 'two replicas at least, so the PodDisruptionBudget can let one go');
    assert.deepEqual(
      hpa.spec.metrics.map((m: { type: string }) => m.type),
      ['Pods', 'Resource'],
      'the batch queue, then CPU as the fallback',
    );
    const service = find(built.base, 'Service');
    for (const p of service.spec.ports)
      assert.ok(
        container.ports.some((c: { name: string }) => c.name === p.targetPort),
        p.targetPort,
      );
    assert.ok(
      find(
        built.base,
        'PersistentVolumeClaim',
        pod.volumes.find((v: { name: string }) => v.name === 'models').persistentVolumeClaim.claimName,
      ),
    );
  });

  it('the GPU overlay: the GPU image, one nvidia.com/gpu, a GPU node; everything else as the base', () => {
    const gpu = find(built['overlays/gpu'], 'Deployment', 'tfgate');
    const c = gpu.spec.template.spec.containers[0];
    assert.equal(c.image, 'tfgate:gpu');
    assert.equal(container.image, 'tfgate:latest');
    assert.equal(c.resources.limits['nvidia.com/gpu'], '1');
    assert.equal(gpu.spec.template.spec.nodeSelector['nvidia.com/gpu.present'], 'true');
    assert.deepEqual(c.args, container.args);
    assert.match(fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile.gpu'), 'utf8'), /docker build -f Dockerfile.gpu -t tfgate:gpu/);
  });
});

// ---- a real tfgate with the Deployment's arguments ----

/** Maps the container's paths onto this checkout: the ConfigMap written out, /models = model_repository. */
function localDeploymentArgs(dir: string): string[] {
  const deployment = find(built.base, 'Deployment', 'tfgate');
  const container = deployment.spec.template.spec.containers[0];
  const configMount = container.volumeMounts.find((m: { name: string }) => m.name === 'config').mountPath as string;
  const modelsMount = container.volumeMounts.find((m: { name: string }) => m.name === 'models').mountPath as string;
  const local = (s: string) =>
    s
      .split(configMount)
      .join(dir)
      .split(`${modelsMount}/`)
      .join(`${path.join(REPO_ROOT, 'model_repository')}/`);
  for (const [file, text] of Object.entries(find(built.base, 'ConfigMap', 'tfgate-config').data as Record<string, string>))
    fs.writeFileSync(path.join(dir, file), local(text));
  return (container.args as string[]).map(local);
}

/** What the Prometheus adapter serves, from the metric names tfgate exports: its rules' seriesQuery names renamed by name.matches / name.as. */
function adapterMetricNames(exported: Set<string>): Set<string> {
  const values = parseYaml(fs.readFileSync(path.join(DEPLOY, 'prometheus-adapter', 'values.yaml'), 'utf8')) as {
    rules: { custom: { seriesQuery: string; name: { matches: string; as: string } }[] };
  };
  const out = new Set<string>();
  for (const rule of values.rules.custom) {
    const series = /^(\w+)\{/.exec(rule.seriesQuery)![1];
    if (!exported.has(series)) continue;
    const re = new RegExp(rule.name.matches);
    // The adapter's `as` takes Go's ${1}; JavaScript's replace reads $1.
    if (re.test(series)) out.add(series.replace(re, rule.name.as.replace(/\$\{(\d+)\}/g, '$$$1')));
  }
  return out;
}

describe('deploy/kubernetes/base on a real tfgate', () => {
  let server: RunningServer;
  const deployment = find(built.base, 'Deployment', 'tfgate');
  const container = deployment.spec.template.spec.containers[0];
  const models = () =>
    parseModelConfigText(find(built.base, 'ConfigMap').data['models.config'], 'models.config').model_config_list.config.map((m) => m.name);

  before(async () => {
    server = await startServer(localDeploymentArgs(tempDir('tfgate-k8s-')), { readyPath: container.startupProbe.httpGet.path });
    await waitAvailable(server, models());
  });
  after(async () => {
    await server?.stop();
  });

  it("the startup, liveness and readiness probes' paths answer 200 once the models are AVAILABLE", async () => {
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
      assert.equal(container[probe].httpGet.port, 'http');
      const r = await fetch(server.url(container[probe].httpGet.path));
      assert.equal(r.status, 200, `${probe} ${container[probe].httpGet.path}`);
    }
  });

  it("the autoscaler's metric is one tfgate exports (after the Prometheus adapter's rename), with a series per model while idle", async () => {
    const text = await (await fetch(server.url(deployment.spec.template.metadata.annotations['prometheus.io/path']))).text();
    const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const served = adapterMetricNames(exported);
    const hpa = find(built.base, 'HorizontalPodAutoscaler');
    const wanted = hpa.spec.metrics
      .filter((m: { type: string }) => m.type === 'Pods')
      .map((m: { pods: { metric: { name: string } } }) => m.pods.metric.name);
    assert.ok(wanted.length);
    for (const name of wanted) assert.ok(served.has(name), `${name} among ${[...served].join(', ') || 'nothing the adapter serves'}`);
    // Without a series a pod has no value, and the HPA would never scale down.
    for (const m of models()) assert.match(text, new RegExp(`^tfgate_batch_queue_rows\\{model_name="${m}"\\} 0$`, 'm'));
  });

  it('a renamed metric the server does not export is caught', () => {
    assert.equal(adapterMetricNames(new Set(['tfgate_batch_queue_depth'])).size, 0);
  });

  it('answers a predict through the batching the ConfigMap sets up', async () => {
    const r = await postJson(server.url('/v1/models/half_plus_two:predict'), { instances: [1, 2, 5] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.predictions, [2.5, 3, 4.5]);
  });
});

// ---- KServe ----

describe('deploy/kubernetes/kserve', () => {
  const runtime = find(built.kserve, 'ClusterServingRuntime');
  const isvc = find(built.kserve, 'InferenceService');
  const kserveTf = readManifests(path.join(CRDS, 'kserve-tensorflow-serving.yaml'))[0] as any;
  const container = runtime.spec.containers[0];
  /** The container's command line as KServe starts it for `name` (it fills {{.Name}}). */
  const commandLine = (name: string) => (container.args as string[]).map((a) => a.replace('{{.Name}}', name));

  it("mirrors KServe's own TF Serving runtime: formats, protocols, every argument, at a lower priority", () => {
    assert.deepEqual(
      runtime.spec.supportedModelFormats.map((f: { name: string; version: string }) => [f.name, f.version]),
      kserveTf.spec.supportedModelFormats.map((f: { name: string; version: string }) => [f.name, f.version]),
    );
    assert.ok(
      runtime.spec.supportedModelFormats.every(
        (f: { priority: number }, i: number) => f.priority < kserveTf.spec.supportedModelFormats[i].priority,
      ),
      "KServe's own runtime stays the default",
    );
    assert.deepEqual(runtime.spec.protocolVersions, kserveTf.spec.protocolVersions);
    // KServe appends -gpu to the image tag of this server type when a GPU is requested.
    assert.equal(
      runtime.metadata.annotations['serving.kserve.io/server-type'],
      kserveTf.metadata.annotations['serving.kserve.io/server-type'],
    );
    for (const a of kserveTf.spec.containers[0].args) assert.ok(container.args.includes(a), a);
    assert.equal(container.name, kserveTf.spec.containers[0].name);
    assert.deepEqual(container.command, ['node', '/app/bin/tensorflow_model_server']);
    assert.match(fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'), /^WORKDIR \/app$/m);
  });

  it("its arguments are flags tfgate accepts: the InferenceService's name, /mnt/models, REST 8080, gRPC 9000", () => {
    const o = parseServerOptions(commandLine(isvc.metadata.name), '/');
    assert.deepEqual(o.modelSource, { kind: 'single_model', name: isvc.metadata.name, basePath: '/mnt/models' });
    assert.equal(o.restApiPort, 8080);
    assert.equal(o.grpcPort, 9000);
    assert.equal(container.readinessProbe.httpGet.port, o.restApiPort);
    assert.equal(Number(container.resources.requests.cpu), o.numExecutors);
    assert.equal(isvc.spec.predictor.model.runtime, runtime.metadata.name);
    assert.ok(runtime.spec.supportedModelFormats.some((f: { name: string }) => f.name === isvc.spec.predictor.model.modelFormat.name));
  });

  // What KServe's storage initializer leaves in /mnt/models: the storageUri's content. KServe's
  // TF samples hold version folders (0001/); a storageUri naming the SavedModel itself leaves
  // saved_model.pb directly there, which TF Serving does not serve and tfgate serves as version 1.
  const LAYOUTS: [string, (mnt: string) => void][] = [
    [
      'version folders (/mnt/models/0001/saved_model.pb)',
      (mnt) => fs.cpSync(path.join(REPO_ROOT, 'model_repository', 'half_plus_two', '1'), path.join(mnt, '0001'), { recursive: true }),
    ],
    [
      'a SavedModel itself (/mnt/models/saved_model.pb), served as version 1',
      (mnt) => fs.cpSync(path.join(REPO_ROOT, 'model_repository', 'half_plus_two', '1'), mnt, { recursive: true }),
    ],
  ];
  for (const [layout, write] of LAYOUTS) {
    it(`a real tfgate with the runtime's arguments serves ${layout}`, async () => {
      const mnt = tempDir('tfgate-mnt-models-');
      write(mnt);
      // Ports: free ones here (startServer's); the paths: this folder for /mnt/models.
      const args = commandLine(isvc.metadata.name)
        .filter((a) => !/^--(port|rest_api_port)=/.test(a))
        .map((a) => a.replace('/mnt/models', mnt));
      const server = await startServer([...args, '--port=0']);
      try {
        await waitAvailable(server, [isvc.metadata.name]);
        assert.equal((await fetch(server.url(container.readinessProbe.httpGet.path))).status, 200);
        const status = await (await fetch(server.url(`/v1/models/${isvc.metadata.name}`))).json();
        assert.deepEqual(
          status.model_version_status.map((v: { version: string; state: string }) => [v.version, v.state]),
          [['1', 'AVAILABLE']],
        );
        const r = await postJson(server.url(`/v1/models/${isvc.metadata.name}:predict`), { instances: [1, 2, 5] });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.json.predictions, [2.5, 3, 4.5]);
      } finally {
        await server.stop();
      }
    });
  }

  it('the fixture with a stray unversioned copy beside its version folders: the folders win, as in TF Serving', async () => {
    const server = await startServer([
      ...commandLine('mnist').filter((a) => !/^--(port|rest_api_port|model_base_path)=/.test(a)),
      `--model_base_path=${path.join(MODELS, 'keras2_mnist_dense_4versions')}`,
      '--port=0',
    ]);
    try {
      await waitAvailable(server, ['mnist']);
      const status = await (await fetch(server.url('/v1/models/mnist'))).json();
      assert.deepEqual(
        status.model_version_status.map((v: { version: string }) => v.version),
        ['4'],
      );
    } finally {
      await server.stop();
    }
  });
});
