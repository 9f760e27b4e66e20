import { randomBytes } from 'node:crypto';
import { describeContent, pushFile, type ApiClient, type ApiResponse, type PushedFile, type SeededProject, type Seeder } from '@lode/testkit';

export interface FileFixture {
  fileId: string;
  path: string;
  /** Confirmed versions, oldest first; every one of them committed on main. */
  versions: { version: number; sha256: string; size: number }[];
}

/** A presigned storage URL as the fuzzer sends it: the object key, the signed query, and what a PUT must carry. */
export interface SignedUrl {
  key: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: Buffer;
}

/** A reservation from initiate, not confirmed when seeded: confirm's valid bodies. */
export interface Reservation {
  fileId: string;
  version: number;
  sha256: string;
  size: number;
  storageKey?: string;
  dedup?: true;
}

export interface ProjectFixture {
  projectId: string;
  orgId: string;
  /** The slugs a Git LFS URL may name the project by (`/lfs/{orgSlug}/{projectSlug}`). */
  orgSlug: string;
  projectSlug: string;
  userId: string;
  key: string;
  files: FileFixture[];
  commitIds: string[];
  /** Drafts of the caller, a file staged in each (the fuzzer may commit or delete them: later calls answer 404). */
  draftIds: string[];
  /** A second page of a file's versions, and of the project's locks. */
  versionsCursor: string;
  locksCursor: string;
  downloads: SignedUrl[];
}

export interface FuzzFixtures {
  /** The project under fuzz: its key, device and ids make the mostly-valid requests. */
  project: ProjectFixture & { deviceId: string; reservations: Reservation[]; uploads: SignedUrl[] };
  /** Another project's ids, key (bound to a device the fuzzer never sends) and URLs, named by the fuzzer but never its own. */
  control: ProjectFixture;
  /** Admin-API ids the fuzzer may change freely: an org, project, users and keys of their own. */
  admin: { token: string; orgIds: string[]; projectIds: string[]; userIds: string[]; keyIds: string[]; cursor: string; revokedKey: string };
}

function ok<T>(what: string, res: ApiResponse<T>): T {
  if (res.status >= 300) throw new Error(`seeding: ${what} answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The path and query of a presigned URL, which names the server it was signed for, not this one. */
function signedUrl(url: string, extra: { headers?: Record<string, string>; body?: Buffer } = {}): SignedUrl {
  const parsed = new URL(url);
  return {
    key: decodeURIComponent(parsed.pathname.replace(/^\/storage\/v1\/objects\//, '')),
    query: Object.fromEntries(parsed.searchParams),
    headers: extra.headers ?? {},
    body: extra.body,
  };
}

/** Files with one or two committed versions, two commits, two locks of the caller: enough for every cursor. */
async function seedProject(p: SeededProject, prefix: string): Promise<ProjectFixture> {
  const base = `/api/v1/projects/${p.projectId}`;
  const names = ['a.bin', 'b.bin', 'dir/c.bin', 'dir/sub/d.bin'].map((n) => `${prefix}/${n}`);
  const firsts: PushedFile[] = [];
  for (const name of names) firsts.push(await pushFile(p.api, p.projectId, name, randomBytes(64)));
  const seconds: PushedFile[] = [];
  for (const first of firsts.slice(0, 2)) seconds.push(await pushFile(p.api, p.projectId, first.path, randomBytes(32)));
  const add = ok(
    'commit',
    await p.api.post(`${base}/commits`, { message: 'seed', fileVersions: firsts.map((f) => ({ fileId: f.fileId, action: 'add', version: 1 })) }),
  );
  const modify = ok(
    'commit',
    await p.api.post(`${base}/commits`, { message: 'seed 2', fileVersions: seconds.map((f) => ({ fileId: f.fileId, action: 'modify', version: 2 })) }),
  );
  ok('lock', await p.api.post(`${base}/locks`, { fileIds: firsts.slice(0, 2).map((f) => f.fileId), note: 'seed' }));
  const versions = ok('versions', await p.api.get(`${base}/files/${firsts[0].fileId}/versions?limit=1`));
  const { orgSlug, projectSlug } = ok('identity', await p.api.post('/api/v1/auth/validate-key', {}));
  const allVersions = ok('versions', await p.api.get(`${base}/files/${firsts[0].fileId}/versions`));
  const locks = ok('locks', await p.api.get(`${base}/locks?limit=1`));
  const draftIds: string[] = [];
  for (const first of firsts.slice(2)) {
    const draft = ok('draft', await p.api.post(`${base}/drafts`, { message: 'seed draft' }));
    ok('draft files', await p.api.post(`${base}/drafts/${draft.id}/files`, { fileVersions: [{ fileId: first.fileId, action: 'delete' }] }));
    draftIds.push(draft.id);
  }
  return {
    projectId: p.projectId,
    orgId: p.orgId,
    orgSlug,
    projectSlug,
    userId: p.userId,
    key: p.key,
    files: firsts.map((f) => ({
      fileId: f.fileId,
      path: f.path,
      versions: [f, ...seconds.filter((s) => s.fileId === f.fileId)].map(({ version, sha256, size }) => ({ version, sha256, size })),
    })),
    commitIds: [add.id, modify.id],
    draftIds,
    versionsCursor: versions.nextCursor,
    locksCursor: locks.nextCursor,
    downloads: allVersions.data.map((v: { downloadUrl: string }) => signedUrl(v.downloadUrl)),
  };
}

/** Initiated but unconfirmed uploads: one stored and ready to confirm, one not stored, one deduplicated. */
async function seedReservations(p: SeededProject, existing: FileFixture): Promise<{ reservations: Reservation[]; uploads: SignedUrl[] }> {
  const initiate = (path: string, bytes: Buffer) => p.api.post(`/api/v1/projects/${p.projectId}/files/upload/initiate`, { path, ...describeContent(bytes) });
  const stored = randomBytes(48);
  const pending = randomBytes(40);
  const [storedForm, pendingForm] = [
    ok('initiate', await initiate('fuzz/pending/stored.bin', stored)),
    ok('initiate', await initiate('fuzz/pending/unstored.bin', pending)),
  ];
  const put = await fetch(storedForm.uploadUrl, { method: 'PUT', headers: storedForm.requiredHeaders, body: stored });
  if (put.status !== 200) throw new Error(`seeding: PUT answered ${put.status}`);
  const dedupForm = ok(
    'initiate-batch',
    await p.api.post(`/api/v1/projects/${p.projectId}/files/upload/initiate-batch`, {
      files: [{ path: 'fuzz/pending/copy.bin', sha256: existing.versions[0].sha256, size: existing.versions[0].size, contentMd5: 'AAAAAAAAAAAAAAAAAAAAAA==' }],
    }),
  ).results[0];
  const reservation = (form: { fileId: string; version: number; storageKey: string }, bytes: Buffer): Reservation => {
    const { sha256, size } = describeContent(bytes);
    return { fileId: form.fileId, version: form.version, storageKey: form.storageKey, sha256, size };
  };
  return {
    reservations: [
      reservation(storedForm, stored),
      reservation(pendingForm, pending),
      { fileId: dedupForm.fileId, version: dedupForm.version, sha256: existing.versions[0].sha256, size: existing.versions[0].size, dedup: true },
    ],
    uploads: [signedUrl(pendingForm.uploadUrl, { headers: pendingForm.requiredHeaders, body: pending })],
  };
}

async function seedAdmin(seeder: Seeder, token: string): Promise<FuzzFixtures['admin']> {
  const tag = randomBytes(4).toString('hex');
  const admin = seeder.admin;
  const org = ok('org', await admin.post('/admin/v1/orgs', { name: `Fuzz admin ${tag}`, slug: `fuzz-admin-${tag}` }));
  const project = ok('project', await admin.post(`/admin/v1/orgs/${org.id}/projects`, { name: 'Fuzz admin', slug: `fuzz-${tag}` }));
  const users = [ok('user', await admin.post('/admin/v1/users', { name: 'Fuzz A' })), ok('user', await admin.post('/admin/v1/users', { name: 'Fuzz B' }))];
  for (const user of users) ok('member', await admin.post(`/admin/v1/orgs/${org.id}/members`, { userId: user.id, role: 'member' }));
  const keys = [];
  for (const user of [...users, users[0]]) keys.push(ok('key', await admin.post(`/admin/v1/projects/${project.id}/keys`, { userId: user.id })));
  ok('revoke', await admin.delete(`/admin/v1/keys/${keys[2].id}`));
  const orgs = ok('orgs', await admin.get('/admin/v1/orgs?limit=1'));
  return {
    token,
    orgIds: [org.id],
    projectIds: [project.id],
    userIds: users.map((u) => u.id),
    keyIds: keys.slice(0, 2).map((k) => k.id),
    cursor: orgs.nextCursor,
    revokedKey: keys[2].key,
  };
}

export interface SeededFuzz {
  fixtures: FuzzFixtures;
  /** The control project's own client (its key on its device): only the snapshots use it. */
  control: { api: ApiClient; fixture: ProjectFixture };
}

/** The project under fuzz, the control project and the admin sandbox, through the public and admin APIs. */
export async function seedFuzz(seeder: Seeder, adminToken: string): Promise<SeededFuzz> {
  const fuzz = await seeder.project();
  const teammate = await seeder.member(fuzz.orgId, fuzz.projectId, 'member');
  const control = await seeder.project();
  const project = await seedProject(fuzz, 'fuzz');
  const controlFixture = await seedProject(control, 'control');
  // A lock held by another member: the fuzz key meets conflicts, `held_by_other` and forced releases.
  ok('teammate lock', await teammate.api.post(`/api/v1/projects/${fuzz.projectId}/locks`, { fileIds: [project.files[2].fileId] }));
  const { reservations, uploads } = await seedReservations(fuzz, project.files[3]);
  return {
    fixtures: {
      project: { ...project, deviceId: fuzz.deviceId, reservations, uploads },
      control: controlFixture,
      admin: await seedAdmin(seeder, adminToken),
    },
    control: { api: control.api, fixture: controlFixture },
  };
}

/** What the control project's own key sees: every version (without its short-lived URL), a full sync and its locks. */
export type ControlSnapshot = Record<'versions' | 'sync' | 'locks', unknown>;

export async function snapshotControl(control: SeededFuzz['control']): Promise<ControlSnapshot> {
  const { api, fixture } = control;
  const base = `/api/v1/projects/${fixture.projectId}`;
  const versions = [];
  for (const file of fixture.files) {
    const page = ok('versions', await api.get(`${base}/files/${file.fileId}/versions?limit=200`));
    versions.push(page.data.map(({ downloadUrl: _url, ...version }: { downloadUrl: string }) => version));
  }
  const files = fixture.files.map((f) => ({ path: f.path, sha256: f.versions[0].sha256 }));
  const sync = ok('sync', await api.post(`${base}/sync`, { files, includeRemoteOnly: true }));
  const locks = ok('locks', await api.get(`${base}/locks?limit=200`));
  return { versions, sync, locks };
}

/** Each part of the control project that differs, before and after; empty when none does. */
export function controlChanges(before: ControlSnapshot, after: ControlSnapshot): string[] {
  const cut = (value: unknown) => JSON.stringify(value).slice(0, 1500);
  return (['versions', 'sync', 'locks'] as const)
    .filter((part) => JSON.stringify(before[part]) !== JSON.stringify(after[part]))
    .map((part) => `${part} before: ${cut(before[part])}\n${part} after:  ${cut(after[part])}`);
}
