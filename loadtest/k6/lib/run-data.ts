/** What setup hands every VU (k6 copies it to each as JSON): who to call, with which keys. */
export interface RunData {
  baseUrl: string;
  deviceId: string;
  runId: string;
  orgId: string;
  orgSlug: string;
  /** One project per flow, so flows' data, rate budgets and contention stay apart. */
  projects: Record<string, ProjectFixture | undefined>;
}

export interface ProjectFixture {
  projectId: string;
  slug: string;
  /** One key per user, in user order; the first user is the org's owner. */
  keys: { keyId: string; key: string; userId: string }[];
  seed: unknown;
}
