import type { K8sObject } from './kustomize.ts';

interface ModelClass {
  apiVersion: string;
  kind: string;
  new (data: unknown): { validate(): void };
}

/**
 * Validates an object against the OpenAPI schema of its apiVersion and kind, with kubernetes-models'
 * class for that kind. A kind the package does not know (a typo, a CRD) is an error too: nothing
 * leaves the test unvalidated. Returns the problem, or undefined when the object is valid.
 */
export async function schemaProblem(object: K8sObject): Promise<string | undefined> {
  const where = `${object.kind}/${object.metadata?.name}`;
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : [undefined, object.apiVersion];
  let models: Record<string, unknown>;
  try {
    models = (await import(`kubernetes-models/${group ? `${group}/` : ''}${version}`)) as Record<string, unknown>;
  } catch {
    return `${where}: kubernetes-models knows no apiVersion ${object.apiVersion}`;
  }
  const Model = models[object.kind] as ModelClass | undefined;
  if (typeof Model !== 'function' || Model.kind !== object.kind || Model.apiVersion !== object.apiVersion) {
    return `${where}: kubernetes-models knows no kind ${object.kind} in ${object.apiVersion}`;
  }
  try {
    new Model(object).validate();
    return undefined;
  } catch (error) {
    return `${where}: ${(error as Error).message}`;
  }
}
