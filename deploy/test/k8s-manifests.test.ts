import { beforeAll, describe, expect, it } from 'vitest';
import { schemaProblem } from './k8s-schema.ts';
import { byKind, named, renderKustomization, type K8sObject } from './kustomize.ts';
import { CONTAINER_MEMORY_LIMIT } from '@lode/system/testing/process-stack';
import { DEPLOYED_SERVICES } from './repo.ts';

/** What each service's configuration needs from the Secret (its settings: services/<name>/src/startup.ts; the gateway's main.ts). */
const SECRETS_NEEDED: Record<(typeof DEPLOYED_SERVICES)[number], string[]> = {
  gateway: ['REDIS_URL', 'LODE_ADMIN_TOKEN'],
  identity: ['DATABASE_URL', 'LODE_CURSOR_SECRET'],
  upload: ['DATABASE_URL', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'LODE_CURSOR_SECRET'],
  commit: ['DATABASE_URL', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'LODE_CURSOR_SECRET'],
  lock: ['DATABASE_URL', 'LODE_CURSOR_SECRET'],
  sync: ['DATABASE_URL', 'LODE_CURSOR_SECRET'],
  restore: ['DATABASE_URL'],
  webhooks: ['DATABASE_URL', 'LODE_SECRETS_KEY'],
};
const OPS_PORT = 9464;
const GATEWAY_PORT = 8080;
/** The process gives itself 25 s after SIGTERM (libs/runtime onShutdown); the kubelet must wait longer. */
const PROCESS_SHUTDOWN_SECONDS = 25;

const podSpec = (workload: K8sObject) => workload.spec.template.spec;
const mainContainer = (workload: K8sObject) => podSpec(workload).containers[0];
const envValue = (container: any, name: string) => container.env?.find((e: any) => e.name === name);
const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);

function probePort(container: any, probe: any): number {
  const port = probe.httpGet.port;
  return typeof port === 'number' ? port : container.ports.find((p: any) => p.name === port)?.containerPort;
}

function expectLockedDown(workload: K8sObject): void {
  const pod = podSpec(workload);
  const where = `${workload.kind}/${workload.metadata.name}`;
  expect(pod.securityContext?.runAsNonRoot, where).toBe(true);
  expect(pod.securityContext?.runAsUser, where).toBeGreaterThan(0);
  expect(pod.automountServiceAccountToken, where).toBe(false);
  for (const container of pod.containers) {
    const security = container.securityContext ?? {};
    expect(security.readOnlyRootFilesystem, where).toBe(true);
    expect(security.allowPrivilegeEscalation, where).toBe(false);
    expect(security.capabilities?.drop, where).toContain('ALL');
    expect(security.seccompProfile?.type ?? pod.securityContext.seccompProfile?.type, where).toBe('RuntimeDefault');
    // The only writable path, on a volume of the pod's own.
    const tmp = container.volumeMounts?.find((m: any) => m.mountPath === '/tmp');
    expect(tmp, where).toBeDefined();
    expect(pod.volumes.find((v: any) => v.name === tmp.name)?.emptyDir, where).toBeDefined();
    for (const kind of ['cpu', 'memory']) {
      expect(container.resources?.requests?.[kind], `${where} requests ${kind}`).toBeDefined();
      expect(container.resources?.limits?.[kind], `${where} limits ${kind}`).toBeDefined();
    }
  }
}

function lodeWorkloads(objects: K8sObject[]): K8sObject[] {
  return [...byKind(objects, 'Deployment'), ...byKind(objects, 'Job')];
}

describe.each(['k8s/base', 'k8s/overlays/dev', 'k8s/overlays/prod'])('kustomize %s', (dir) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = renderKustomization(dir);
  });

  it('renders only objects that validate against the Kubernetes schema of their kind', async () => {
    expect(objects.length).toBeGreaterThan(0);
    const problems = (await Promise.all(objects.map(schemaProblem))).filter(Boolean);
    expect(problems).toEqual([]);
  });

  it.each(DEPLOYED_SERVICES)('gives %s a Deployment, Service, token-less ServiceAccount, PodDisruptionBudget and HorizontalPodAutoscaler', (service) => {
    const name = `lode-${service}`;
    const deployment = named(objects, 'Deployment', name);
    const podLabels = deployment.spec.template.metadata.labels;
    expect(podLabels).toMatchObject({ 'app.kubernetes.io/name': name, 'app.kubernetes.io/component': service, 'app.kubernetes.io/part-of': 'lode' });
    expect(selects(deployment.spec.selector.matchLabels, podLabels)).toBe(true);

    expect(selects(named(objects, 'Service', name).spec.selector, podLabels)).toBe(true);
    expect(named(objects, 'ServiceAccount', name).automountServiceAccountToken).toBe(false);
    expect(podSpec(deployment).serviceAccountName).toBe(name);
    expect(selects(named(objects, 'PodDisruptionBudget', name).spec.selector.matchLabels, podLabels)).toBe(true);

    const hpa = named(objects, 'HorizontalPodAutoscaler', name);
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name });
    expect(hpa.spec.minReplicas).toBeLessThanOrEqual(hpa.spec.maxReplicas);
    // The autoscaler owns the replica count: a Deployment that set one would reset it on every apply.
    expect(deployment.spec.replicas).toBeUndefined();
  });

  it.each(DEPLOYED_SERVICES)('runs %s with its SERVICE, probes, metrics port, secrets and a locked-down pod', (service) => {
    const deployment = named(objects, 'Deployment', `lode-${service}`);
    const container = mainContainer(deployment);
    expect(envValue(container, 'SERVICE')?.value).toBe(service);

    // The gateway too: its ops /readyz checks its own dependencies, not every service (see its deployment.yaml).
    const probedPort = OPS_PORT;
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(probePort(container, container.readinessProbe)).toBe(probedPort);
    expect(probePort(container, container.livenessProbe)).toBe(probedPort);

    expect(container.ports).toContainEqual(expect.objectContaining({ name: 'ops', containerPort: OPS_PORT }));
    expect(deployment.spec.template.metadata.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(OPS_PORT),
      'prometheus.io/path': '/metrics',
    });

    for (const key of SECRETS_NEEDED[service]) {
      expect(envValue(container, key)?.valueFrom?.secretKeyRef, `${service} ${key}`).toMatchObject({ key });
    }
    // Only a process that owns a schema holds the database's credentials: not the gateway.
    expect(envValue(container, 'DATABASE_URL') !== undefined, `${service} DATABASE_URL`).toBe(SECRETS_NEEDED[service].includes('DATABASE_URL'));
    expect(podSpec(deployment).terminationGracePeriodSeconds).toBeGreaterThan(PROCESS_SHUTDOWN_SECONDS);
    expectLockedDown(deployment);
  });

  it('refers only to ConfigMaps it renders and to Secrets it renders with the key, or to lode-secrets', () => {
    const secrets = byKind(objects, 'Secret');
    for (const workload of lodeWorkloads(objects)) {
      const container = mainContainer(workload);
      for (const source of container.envFrom ?? []) {
        expect(named(objects, 'ConfigMap', source.configMapRef.name)).toBeDefined();
      }
      for (const env of container.env ?? []) {
        const ref = env.valueFrom?.secretKeyRef;
        if (!ref) continue;
        const rendered = secrets.find((s) => s.metadata.name === ref.name);
        if (rendered) expect(Object.keys(rendered.data ?? {}), `${ref.name}`).toContain(ref.key);
        else expect(ref.name).toBe('lode-secrets');
      }
    }
  });

  it('exposes only the gateway, through its Ingress', () => {
    const [ingress, ...others] = byKind(objects, 'Ingress');
    expect(others).toEqual([]);
    const backends = ingress.spec.rules.flatMap((rule: any) => rule.http.paths.map((p: any) => p.backend.service));
    expect(backends.length).toBeGreaterThan(0);
    for (const backend of backends) expect(backend).toEqual({ name: 'lode-gateway', port: { name: 'http' } });
    const gatewayPort = named(objects, 'Service', 'lode-gateway').spec.ports.find((p: any) => p.name === 'http');
    expect(probePort(mainContainer(named(objects, 'Deployment', 'lode-gateway')), { httpGet: { port: gatewayPort.targetPort } })).toBe(GATEWAY_PORT);
    expect(Number(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-body-size']?.replace(/m$/, ''))).toBeGreaterThanOrEqual(16);
    for (const service of byKind(objects, 'Service')) expect(service.spec.type ?? 'ClusterIP').toBe('ClusterIP');
  });

  it('denies all traffic by default, lets in only the ingress controller on 8080 and monitoring on 9464, and lets out what the services use', () => {
    const policies = byKind(objects, 'NetworkPolicy');
    const denyAll = policies.find((p) => Object.keys(p.spec.podSelector).length === 0);
    expect(denyAll?.spec.policyTypes).toEqual(expect.arrayContaining(['Ingress', 'Egress']));
    expect(denyAll?.spec.ingress ?? []).toEqual([]);
    expect(denyAll?.spec.egress ?? []).toEqual([]);

    for (const policy of policies) {
      for (const rule of policy.spec.ingress ?? []) {
        expect(rule.ports?.length, `${policy.metadata.name} opens every port`).toBeGreaterThan(0);
        for (const { port } of rule.ports) {
          if (port === GATEWAY_PORT) expect(policy.spec.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/component': 'gateway' });
          else expect(port, policy.metadata.name).toBe(OPS_PORT);
        }
      }
    }
    const egressPorts = policies.flatMap((p) => (p.spec.egress ?? []).flatMap((rule: any) => rule.ports.map((port: any) => port.port)));
    // The gateway owns no schema, so it may not reach PostgreSQL.
    const postgres = policies.find((p) => (p.spec.egress ?? []).some((rule: any) => rule.ports.some((port: any) => port.port === 5432)));
    expect(postgres?.spec.podSelector.matchExpressions).toContainEqual({ key: 'app.kubernetes.io/component', operator: 'NotIn', values: ['gateway'] });
    // DNS, NATS, PostgreSQL, Redis, and S3 (HTTPS, or MinIO's port in dev).
    expect(egressPorts).toEqual(expect.arrayContaining([53, 4222, 5432, 6379]));
    expect(egressPorts.filter((port) => port === 443 || port === 9000).length).toBeGreaterThan(0);
  });

  it('runs the migrations as a Job with SERVICE=migrate, ahead of the rollout', () => {
    const [job, ...others] = byKind(objects, 'Job');
    expect(others).toEqual([]);
    expect(envValue(mainContainer(job), 'SERVICE')?.value).toBe('migrate');
    expect(envValue(mainContainer(job), 'DATABASE_URL')?.valueFrom?.secretKeyRef).toMatchObject({ key: 'DATABASE_URL' });
    expect(job.metadata.annotations?.['argocd.argoproj.io/hook']).toBe('PreSync');
    expect(job.spec.ttlSecondsAfterFinished).toBeGreaterThan(0);
    expect(['Never', 'OnFailure']).toContain(podSpec(job).restartPolicy);
    expectLockedDown(job);
  });

  it('runs every Lode container from the one Lode image', () => {
    const images = lodeWorkloads(objects).flatMap((w) => podSpec(w).containers.map((c: any) => c.image));
    expect(new Set(images).size).toBe(1);
    if (dir === 'k8s/base') expect(images[0]).toBe('lode');
    else expect(images[0]).toMatch(/(^|\/)lode:(?!latest$)[\w.-]+$/);
  });
});

describe('kustomize k8s/base memory', () => {
  // The NATS-mode tests and the bench size each process's heap for this limit (CONTAINER_HEAP_FLAGS).
  it('limits every Lode process to the memory the process stack sizes its heap for', () => {
    for (const workload of byKind(renderKustomization('k8s/base'), 'Deployment')) {
      expect(mainContainer(workload).resources.limits.memory, workload.metadata.name).toBe(CONTAINER_MEMORY_LIMIT);
    }
  });
});

describe('kustomize overlays', () => {
  it('dev runs one replica of each service, in-cluster dependencies and its own plainly fake Secret', () => {
    const objects = renderKustomization('k8s/overlays/dev');
    for (const hpa of byKind(objects, 'HorizontalPodAutoscaler')) expect(hpa.spec.minReplicas).toBe(1);
    const [config] = byKind(objects, 'ConfigMap');
    expect(config.data.NATS_URL).toMatch(/\.svc:4222$/);
    expect(config.data.S3_ENDPOINT).toMatch(/\.svc:9000$/);
    const [secret] = byKind(objects, 'Secret');
    const allKeys = new Set(Object.values(SECRETS_NEEDED).flat());
    expect(Object.keys(secret.data).sort()).toEqual([...allKeys].sort());
  });

  it('prod runs at least two replicas of each service, on the NATS Helm release and external stores, and commits no Secret', () => {
    const objects = renderKustomization('k8s/overlays/prod');
    for (const hpa of byKind(objects, 'HorizontalPodAutoscaler')) expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    const [config] = byKind(objects, 'ConfigMap');
    expect(config.data.NATS_URL).toBe('nats://nats.nats.svc:4222');
    expect(config.data.S3_ENDPOINT ?? '').not.toMatch(/\.svc\b/);
    expect(byKind(objects, 'Secret')).toEqual([]);
    expect(byKind(objects, 'Ingress')[0].spec.tls?.length).toBeGreaterThan(0);
    for (const object of objects) if (object.kind !== 'Namespace') expect(object.metadata.namespace, object.metadata.name).toBe('lode');
  });

  it('dev dependencies render and validate', async () => {
    const objects = renderKustomization('k8s/dev-deps');
    const problems = (await Promise.all(objects.map(schemaProblem))).filter(Boolean);
    expect(problems).toEqual([]);
  });

  it('an object of a kind kubernetes-models does not know is a schema problem', async () => {
    expect(await schemaProblem({ apiVersion: 'apps/v1', kind: 'Deploymnet', metadata: { name: 'x' } })).toMatch(/knows no kind/);
    expect(await schemaProblem({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' } })).toMatch(/knows no apiVersion/);
    expect(await schemaProblem({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'x' }, spec: { ports: [{ port: 'eighty' }] } })).toMatch(/port/);
  });
});
