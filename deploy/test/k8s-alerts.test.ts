import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONSUMER_LAG_GAUGES } from '@lode/bus/consumer-lag';
import { PROJECTION_CONSUMER } from '@lode/sync/handlers/commit-created';
import { renderKustomization, type K8sObject } from './kustomize.ts';
import { REPO_ROOT } from './repo.ts';

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Every alert Lode ships: adding or removing one is a decision this list records. */
const ALERTS = ['LodeReadModelBehind'];
/** A Prometheus duration as rules take it: 30s, 2m, 1h. */
const DURATION = /^\d+(ms|s|m|h|d|w|y)$/;
/** Prometheus's name of an OpenTelemetry instrument: dots become underscores. */
const prometheusName = (name: string) => name.replaceAll('.', '_');

/**
 * kubernetes-models knows no CRD, so the Kubernetes schema test cannot read these: the rule file's
 * shape is checked here instead, and each rule against the series Lode exports.
 */
describe('kustomize k8s/monitoring (Prometheus alert rules)', () => {
  let objects: K8sObject[];
  let rules: AlertRule[];

  beforeAll(() => {
    objects = renderKustomization('k8s/monitoring');
    rules = objects.flatMap((o) => (o.spec?.groups ?? []).flatMap((g: { rules?: AlertRule[] }) => g.rules ?? []));
  });

  it('renders only PrometheusRules of Lode, in its namespace', () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) {
      expect(`${object.apiVersion} ${object.kind}`).toBe('monitoring.coreos.com/v1 PrometheusRule');
      expect(object.metadata.namespace).toBe('lode');
      expect(object.metadata.labels?.['app.kubernetes.io/part-of']).toBe('lode');
      for (const group of object.spec.groups) expect(group.name, object.metadata.name).toMatch(/^lode\./);
    }
  });

  it('ships exactly the listed alerts, each with an expression, a pending time, a severity and a summary', () => {
    expect(rules.map((r) => r.alert).sort()).toEqual([...ALERTS].sort());
    for (const rule of rules) {
      expect(Object.keys(rule).sort(), rule.alert).toEqual(expect.arrayContaining(['alert', 'expr', 'labels', 'annotations']));
      expect(rule.expr.trim().length, rule.alert).toBeGreaterThan(0);
      // Balanced brackets and quotes catch the typos a YAML block scalar hides.
      for (const [open, close] of [
        ['(', ')'],
        ['{', '}'],
        ['[', ']'],
      ]) {
        expect(rule.expr.split(open).length, `${rule.alert} ${open}${close}`).toBe(rule.expr.split(close).length);
      }
      expect((rule.expr.match(/"/g) ?? []).length % 2, rule.alert).toBe(0);
      if (rule.for !== undefined) expect(rule.for, rule.alert).toMatch(DURATION);
      expect(['warning', 'critical']).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
    }
  });

  it('queries only series that docs/observability.md lists', () => {
    const documented = readFileSync(path.join(REPO_ROOT, 'docs/observability.md'), 'utf8');
    for (const rule of rules) {
      for (const series of rule.expr.match(/\blode_[a-z_]+/g) ?? []) expect(documented, `${rule.alert}: ${series}`).toContain(`\`${series}\``);
    }
  });

  it('warns when the sync read model has had an event waiting more than 10 s for 2 minutes', () => {
    const rule = rules.find((r) => r.alert === 'LodeReadModelBehind')!;
    expect(rule.expr).toContain(prometheusName(CONSUMER_LAG_GAUGES.seconds.name));
    // Both consumers that build the read model: commit.created's and branch.changed's (handlers/branch-changed.ts).
    expect(rule.expr).toContain(`messaging_consumer_group_name=~"${PROJECTION_CONSUMER}(-branches)?"`);
    expect(rule.expr).toMatch(/\)\s*>\s*10\s*$/);
    expect(rule.for).toBe('2m');
    expect(rule.labels?.severity).toBe('warning');
  });
});
