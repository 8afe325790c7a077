// deploy/monitoring: the Grafana dashboard against a JSON schema of Grafana's dashboard model,
// the Prometheus rules as `promtool check rules` reads them (no promtool here): the file's
// structure, durations, templates, and every expression parsed and type-checked
// (test/helpers/promql.ts). In both, every metric and label an expression names must be on
// the page tfgate serves: the names are read from the server's own metrics registry.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { Histogram, Summary } from 'prom-client';
import { Metrics } from '../../src/monitoring/metrics.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { parsePromQL, PromQLError, type ParsedExpr } from '../helpers/promql.js';

const MONITORING = path.join(REPO_ROOT, 'deploy', 'monitoring');
const dashboard = JSON.parse(fs.readFileSync(path.join(MONITORING, 'grafana-dashboard.json'), 'utf8'));
const rulesText = fs.readFileSync(path.join(MONITORING, 'prometheus-rules.yaml'), 'utf8');

/** Labels Prometheus adds to every series it scrapes (job, instance) and the Kubernetes pod scrape's. */
const TARGET_LABELS = new Set(['job', 'instance', 'namespace', 'pod']);

/** Every series name tfgate's Prometheus page can hold, with the labels it carries. */
function exportedSeries(): Map<string, Set<string>> {
  const series = new Map<string, Set<string>>();
  const metrics = new Metrics();
  // The page as served: with monitoring enabled it carries Node's own metrics too.
  metrics.collectNodeMetrics();
  for (const m of metrics.registry.getMetricsAsArray()) {
    const { name, labelNames = [] } = m as unknown as { name: string; labelNames?: string[] };
    const labels = new Set(labelNames);
    if (m instanceof Histogram) {
      series.set(`${name}_bucket`, new Set([...labels, 'le']));
      series.set(`${name}_sum`, labels);
      series.set(`${name}_count`, labels);
    } else if (m instanceof Summary) {
      series.set(name, new Set([...labels, 'quantile']));
      series.set(`${name}_sum`, labels);
      series.set(`${name}_count`, labels);
    } else series.set(name, labels);
  }
  return series;
}

const SERIES = exportedSeries();

/** Parses `expr` and holds each metric and label it names against tfgate's page; returns the parse. */
function checkExpr(expr: string, where: string): ParsedExpr {
  let parsed: ParsedExpr;
  try {
    parsed = parsePromQL(expr);
  } catch (e) {
    if (e instanceof PromQLError) assert.fail(`${where}: ${e.message}\n  ${expr}`);
    throw e;
  }
  const available = new Set(TARGET_LABELS);
  for (const s of parsed.selectors) {
    assert.ok(s.name, `${where}: a selector without a metric name`);
    const labels = SERIES.get(s.name);
    assert.ok(labels, `${where}: ${s.name} is not a series tfgate exports`);
    for (const l of labels) available.add(l);
    for (const m of s.matchers) assert.ok(labels.has(m.label) || TARGET_LABELS.has(m.label), `${where}: ${s.name} has no label ${m.label}`);
  }
  for (const l of parsed.groupingLabels) assert.ok(available.has(l), `${where}: no selected series has the label ${l}`);
  return parsed;
}

/** Grafana's own variables as Prometheus sees them once Grafana has put them in. */
const withGrafanaVariables = (expr: string) => expr.replace(/\$__(rate_interval|interval|range)\b/g, '5m');

/* eslint-disable @typescript-eslint/no-explicit-any */
type Panel = {
  type: string;
  id: number;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { uid?: string };
  targets?: { expr: string; refId: string }[];
};

describe('deploy/monitoring/grafana-dashboard.json', () => {
  const panels: Panel[] = dashboard.panels;

  it("is a Grafana dashboard by the schema of Grafana's dashboard model", () => {
    const schema = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test', 'deploy', 'grafana_dashboard.schema.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(schema);
    assert.ok(validate(dashboard), JSON.stringify(validate.errors, null, 1));
  });

  it('the checks can fail: a panel off the grid, a query without refId, an unknown metric', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test', 'deploy', 'grafana_dashboard.schema.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(schema);
    const broken = (edit: (d: any) => void) => {
      const d = structuredClone(dashboard);
      edit(d);
      return validate(d) ? '' : JSON.stringify(validate.errors);
    };
    assert.match(
      broken((d) => (d.panels[1].gridPos.w = 25)),
      /must be <= 24/,
    );
    assert.match(
      broken((d) => delete d.panels[1].targets[0].refId),
      /must have required property 'refId'/,
    );
    assert.match(
      broken((d) => (d.uid = 'short')),
      /must NOT have fewer than 8 characters/,
    );
    assert.throws(
      () => checkExpr('rate(:tensorflow:serving:request_counts[5m])', 'x'),
      /:tensorflow:serving:request_counts is not a series tfgate exports/,
    );
    assert.throws(
      () => checkExpr(withGrafanaVariables('rate(:tensorflow:serving:request_count{model=~"$model"}[$__rate_interval])'), 'x'),
      /has no label model/,
    );
  });

  it('lays its panels out on the 24-column grid without overlap, each with its own id', () => {
    assert.equal(new Set(panels.map((p) => p.id)).size, panels.length, 'panel ids are unique');
    for (const p of panels) assert.ok(p.gridPos.x + p.gridPos.w <= 24, `${p.title} fits the grid`);
    const overlap = (a: Panel['gridPos'], b: Panel['gridPos']) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
    for (let i = 0; i < panels.length; i++)
      for (let j = i + 1; j < panels.length; j++)
        assert.ok(!overlap(panels[i].gridPos, panels[j].gridPos), `${panels[i].title} and ${panels[j].title} overlap`);
  });

  it('queries the data source and variables it declares', () => {
    const variables = new Map<string, any>(dashboard.templating.list.map((v: any) => [v.name, v]));
    assert.equal(variables.get('datasource')?.type, 'datasource');
    assert.equal(variables.get('datasource')?.query, 'prometheus');
    for (const p of panels.filter((x) => x.type !== 'row')) {
      assert.equal(p.datasource?.uid, '${datasource}', `${p.title}: the data source variable`);
      for (const t of p.targets!)
        for (const [, name] of t.expr.matchAll(/\$(?!__)(\w+)/g)) assert.ok(variables.has(name), `${p.title}: $${name} is declared`);
    }
    // label_values(metric, label): a Grafana query, not PromQL.
    for (const v of variables.values()) {
      if (v.type !== 'query') continue;
      const m = /^label_values\(([^,]+),\s*(\w+)\)$/.exec(v.query.query);
      assert.ok(m, `variable ${v.name}: label_values(metric, label)`);
      assert.ok(SERIES.get(m[1])?.has(m[2]), `variable ${v.name}: ${m[1]} has the label ${m[2]}`);
    }
  });

  it('every expression parses and names only series and labels tfgate exports', () => {
    for (const p of panels.filter((x) => x.type !== 'row'))
      for (const t of p.targets!) checkExpr(withGrafanaVariables(t.expr), `panel "${p.title}" ${t.refId}`);
  });

  it('shows every TF Serving and TensorFlow metric tfgate exports', () => {
    const shown = new Set(
      panels
        .flatMap((p) => p.targets ?? [])
        .flatMap((t) => parsePromQL(withGrafanaVariables(t.expr)).selectors.map((s) => s.name!.replace(/_(bucket|sum|count)$/, ''))),
    );
    const tf = [
      ...new Set([...SERIES.keys()].filter((n) => n.startsWith(':tensorflow:')).map((n) => n.replace(/_(bucket|sum|count)$/, ''))),
    ];
    assert.deepEqual(
      tf.filter((n) => !shown.has(n) && !shown.has(`${n}_total`)),
      [],
    );
    for (const own of [
      'tfgate_batch_queue_rows',
      'tfgate_model_versions_available',
      'tfgate_executor_thread_deaths_total',
      'tfgate_request_log_dropped_total',
    ])
      assert.ok(shown.has(own), own);
  });
});

/** What promtool's rule file format (rulefmt) accepts. */
const GROUP_KEYS = new Set(['name', 'interval', 'rules', 'limit', 'query_offset']);
const RULE_KEYS = new Set(['alert', 'record', 'expr', 'for', 'keep_firing_for', 'labels', 'annotations']);
const DURATION = /^(\d+(ms|s|m|h|d|w|y))+$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** A template action an alert may use: a label of the alert, its value, piped through Prometheus's formatting functions. */
const TEMPLATE_ACTION =
  /^\s*\$(labels\.([a-zA-Z_]\w*)|value)(\s*\|\s*(humanize|humanize1024|humanizePercentage|humanizeDuration|printf\s+"[^"]*"))*\s*$/;

/** The problems promtool would find in a rule file's text (empty: none), and each alert's expression. */
function checkRuleFile(text: string): { problems: string[]; alerts: Map<string, ParsedExpr> } {
  const problems: string[] = [];
  const alerts = new Map<string, ParsedExpr>();
  const doc = parseYaml(text);
  if (!doc || typeof doc !== 'object' || Object.keys(doc).join() !== 'groups' || !Array.isArray(doc.groups))
    return { problems: ['the file is one `groups:` list'], alerts };
  const groupNames = new Set<string>();
  for (const g of doc.groups) {
    for (const k of Object.keys(g))
      if (!GROUP_KEYS.has(k)) problems.push(`group ${g.name}: field ${k} not found in type rulefmt.RuleGroup`);
    if (!g.name) problems.push('a group has no name');
    if (groupNames.has(g.name)) problems.push(`${g.name}: repeated in the same file`);
    groupNames.add(g.name);
    if (g.interval !== undefined && !DURATION.test(g.interval)) problems.push(`group ${g.name}: interval ${g.interval} is not a duration`);
    if (!Array.isArray(g.rules) || !g.rules.length) problems.push(`group ${g.name}: no rules`);
    for (const r of g.rules ?? []) {
      const where = `${g.name}/${r.alert ?? r.record}`;
      for (const k of Object.keys(r)) if (!RULE_KEYS.has(k)) problems.push(`${where}: field ${k} not found in type rulefmt.Rule`);
      if ((r.alert === undefined) === (r.record === undefined)) problems.push(`${where}: one of 'record' or 'alert' must be set`);
      if (r.record !== undefined && !/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(r.record)) problems.push(`${where}: invalid recording rule name`);
      if (r.alert !== undefined && !LABEL_NAME.test(r.alert)) problems.push(`${where}: invalid alert name`);
      if (r.record !== undefined && (r.for !== undefined || r.annotations !== undefined))
        problems.push(`${where}: a recording rule has no for or annotations`);
      for (const k of ['for', 'keep_firing_for'])
        if (r[k] !== undefined && !DURATION.test(String(r[k]))) problems.push(`${where}: ${k} ${r[k]} is not a duration`);
      if (typeof r.expr !== 'string' || !r.expr.trim()) {
        problems.push(`${where}: field 'expr' must be set in rule`);
        continue;
      }
      let parsed: ParsedExpr;
      try {
        parsed = checkExpr(r.expr, where);
      } catch (e) {
        problems.push((e as Error).message);
        continue;
      }
      if (parsed.type !== 'vector') problems.push(`${where}: the expression gives a ${parsed.type}, not an instant vector`);
      if (r.alert !== undefined) alerts.set(r.alert, parsed);
      const resultLabels = new Set([
        ...TARGET_LABELS,
        ...parsed.groupingLabels,
        ...parsed.selectors.flatMap((s) => [...(SERIES.get(s.name!) ?? [])]),
      ]);
      for (const [kind, map] of [
        ['labels', r.labels],
        ['annotations', r.annotations],
      ] as const) {
        if (map === undefined) continue;
        for (const [k, v] of Object.entries(map as Record<string, unknown>)) {
          if (!LABEL_NAME.test(k)) problems.push(`${where}: ${kind} name ${k} is invalid`);
          if (typeof v !== 'string') problems.push(`${where}: ${kind}.${k} is not a string`);
          const s = String(v);
          if ((s.match(/\{\{/g) ?? []).length !== (s.match(/\}\}/g) ?? []).length)
            problems.push(`${where}: ${kind}.${k}: unbalanced {{ }}`);
          for (const [, action] of s.matchAll(/\{\{(.*?)\}\}/g)) {
            const m = TEMPLATE_ACTION.exec(action);
            if (!m) problems.push(`${where}: ${kind}.${k}: template action {{${action}}}`);
            else if (m[2] && !resultLabels.has(m[2])) problems.push(`${where}: ${kind}.${k}: the alert has no label ${m[2]}`);
          }
        }
      }
    }
  }
  return { problems, alerts };
}

describe('deploy/monitoring/prometheus-rules.yaml', () => {
  it('passes the checks promtool makes, every expression naming only what tfgate exports', () => {
    assert.deepEqual(checkRuleFile(rulesText).problems, []);
  });

  it('alerts on a model with no version AVAILABLE, queue-full refusals, latency over target and executor deaths', () => {
    const { alerts } = checkRuleFile(rulesText);
    const uses = (alert: string, metric: string) =>
      assert.ok(
        alerts.get(alert)?.selectors.some((s) => s.name === metric),
        `${alert} reads ${metric}`,
      );
    uses('TfgateModelNotAvailable', 'tfgate_model_versions_available');
    uses('TfgateQueueFull', ':tensorflow:serving:request_count');
    assert.ok(
      alerts.get('TfgateQueueFull')!.selectors.some((s) => s.matchers.some((m) => m.label === 'status' && m.value === 'UNAVAILABLE')),
      'queue full is UNAVAILABLE',
    );
    uses('TfgateLatencyAboveTarget', ':tensorflow:serving:request_latency_bucket');
    uses('TfgateExecutorThreadDied', 'tfgate_executor_thread_deaths_total');
  });

  it('the checks can fail: each kind of mistake is caught', () => {
    const rule = (fields: string) => `groups:\n  - name: g\n    rules:\n      - alert: A\n${fields}`;
    const problems = (text: string) => checkRuleFile(text).problems.join('\n');
    assert.match(problems(rule('        expr: rate(tfgate_executor_thread_deaths_total[5m]\n')), /expected "," or "\)"/);
    assert.match(
      problems(rule('        expr: rate(tfgate_executor_thread_deaths_total) > 0\n')),
      /argument 1 of rate must be a range vector/,
    );
    assert.match(
      problems(rule('        expr: rate(tfgate_executor_thread_death_total[5m]) > 0\n')),
      /tfgate_executor_thread_death_total is not a series tfgate exports/,
    );
    assert.match(problems(rule('        expr: tfgate_model_versions_available{model="x"} < 1\n')), /has no label model/);
    assert.match(
      problems(rule('        expr: sum by (modelname) (tfgate_model_versions_available) < 1\n')),
      /no selected series has the label modelname/,
    );
    assert.match(
      problems(rule('        expr: tfgate_model_versions_available < 1\n        for: 5 minutes\n')),
      /for 5 minutes is not a duration/,
    );
    assert.match(
      problems(rule('        expr: tfgate_model_versions_available < 1\n        annotations:\n          summary: "{{ $labels.model }}"\n')),
      /the alert has no label model/,
    );
    assert.match(problems(rule('        expr: tfgate_model_versions_available < 1\n        severity: page\n')), /field severity not found/);
    assert.match(problems(rule('        expr: 1 > bool 0\n')), /gives a scalar/);
    assert.match(problems(rule('        expr: tfgate_model_versions_available and 1\n')), /set operator "and" needs instant vectors/);
    assert.equal(problems(rule('        expr: tfgate_model_versions_available < 1\n')), '', 'and a good rule passes');
  });
});
