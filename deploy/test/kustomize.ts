import { execFileSync, spawnSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from './repo.ts';

/** A rendered Kubernetes object, read as a client would: untyped beyond its type meta. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: any;
}

function requireKubectl(): void {
  const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'kubectl is not installed, so the Kubernetes manifests cannot be rendered: `apt-get install -y kubectl` ' +
        '(.ci/run does it) or any kubectl with kustomize 5. ' +
        (probe.error?.message ?? probe.stderr),
    );
  }
}

/** `kubectl kustomize <dir>` (no cluster involved), parsed into its objects. */
export function renderKustomization(dir: string): K8sObject[] {
  requireKubectl();
  const rendered = execFileSync('kubectl', ['kustomize', dir], { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return parseAllDocuments(rendered).map((doc) => {
    if (doc.errors.length) throw new Error(`${dir} rendered invalid YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
    return unwrapSecretData(doc.toJS() as K8sObject);
  });
}

/**
 * kustomize wraps long base64 Secret values over several lines; the API server's base64 decoder
 * skips the line breaks, the schema's `byte` format does not. Read them as the server does.
 */
function unwrapSecretData(object: K8sObject): K8sObject {
  if (object.kind !== 'Secret' || !object.data) return object;
  const data = Object.fromEntries(Object.entries(object.data as Record<string, string>).map(([k, v]) => [k, v.replace(/\s+/g, '')]));
  return { ...object, data };
}

export const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);

export function named(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}
