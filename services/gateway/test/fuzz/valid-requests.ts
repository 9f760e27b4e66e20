import fc from 'fast-check';
import type { FileFixture, FuzzFixtures, SignedUrl } from './fixtures.ts';
import type { JsonLike } from './hostile-values.ts';

/**
 * A request the route accepts, or nearly (a stale version, a taken slug): built from the fuzz
 * project's real ids so that one mutated field still reaches the services and Postgres.
 */
export interface ValidRequest {
  /** Path parameters by name, unencoded. */
  params: Record<string, string>;
  query: Record<string, string>;
  /** A JSON body, or the raw bytes of an object PUT. */
  body?: JsonLike | Buffer;
  /** Route-specific headers (idempotency key, Content-MD5, Range); auth headers are added by route kind. */
  headers: Record<string, string>;
}

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const md5Base64 = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => Buffer.from(bytes).toString('base64'));
const BRANCHES = ['main', 'fuzz/feature', 'release-1.0', 'a_b'];
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

/** A JSON object without the fields left undefined (an optional field the request does not send). */
function defined(fields: Record<string, JsonLike | undefined>): { [key: string]: JsonLike } {
  return Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, JsonLike] => entry[1] !== undefined));
}

function request(parts: Partial<ValidRequest>): ValidRequest {
  return { params: {}, query: {}, headers: {}, ...parts };
}

/**
 * Models by catalogue route key (fuzz/catalogue.ts): one per route, none for a route it does not
 * list, which fuzz.test.ts checks (the keys of the routes OpenAPI describes are known only at run time).
 */
export type ValidRequests = Readonly<Partial<Record<string, fc.Arbitrary<ValidRequest>>>>;

export function validRequests(f: FuzzFixtures): ValidRequests {
  const p = f.project;
  const project = { projectId: p.projectId };
  const file = fc.constantFrom(...p.files);
  const fileId = file.map((x) => x.fileId);
  const fileIds = fc.uniqueArray(fileId, { minLength: 1, maxLength: 3 });
  const draftId = fc.constantFrom(...p.draftIds);
  const version = (x: FileFixture) => fc.constantFrom(...x.versions);
  // Public addresses of the documentation range: saved without a DNS lookup; deliveries to them time out in the background.
  const webhookBody = fc
    .record({
      url: fc.constantFrom('https://203.0.113.7/hook', 'http://198.51.100.20:8080/ci'),
      events: fc.subarray(['commit.created', 'lock.acquired', 'lock.released', 'branch.created'], { minLength: 1 }),
      description: optional(fc.constantFrom('CI', '')),
    })
    .map((body) => defined(body));
  // The fuzz project's webhooks are made by the fuzz itself: a random id is the nearly valid request (404).
  const webhookId = fc.uuid();
  const webhookChanges = fc
    .record({ disabled: fc.boolean(), rotateSecret: optional(fc.constant(true)), events: optional(fc.constant<string[]>(['lock.released'])) })
    .map((body) => defined(body));
  const idempotencyKey = optional(fc.nat(20).map((n) => `fuzz-${n}`));
  /**
   * The Git LFS server's requests under one prefix: objects the project holds or not (a file's
   * content, or any), lock paths of its files and new ones, lock ids of its files.
   */
  const lfsRequests = (name: string, params: Record<string, string>): Record<string, fc.Arbitrary<ValidRequest>> => {
    const content = fc.oneof(
      file.chain((x) => version(x)).map(({ sha256, size }) => ({ oid: sha256, size })),
      fc.record({ oid: hex64, size: fc.nat(1 << 20) }),
    );
    const lockPath = fc.oneof(
      file.map((x) => x.path),
      fc.constantFrom('fuzz/lfs/new.psd', 'fuzz/LFS/Other.bin'),
    );
    const ref = optional(fc.constant({ name: 'refs/heads/main' }));
    return {
      [`${name}-batch`]: fc
        .record({ operation: fc.constantFrom('download', 'upload'), objects: fc.array(content, { minLength: 1, maxLength: 5 }), ref })
        .map((body) => request({ params, body: defined({ ...body, transfers: ['basic'] }) })),
      [`${name}-verify`]: content.map((body) => request({ params, body })),
      [`${name}-lock`]: fc.record({ path: lockPath, ref }).map((body) => request({ params, body: defined(body) })),
      [`${name}-locks`]: fc
        .record({ path: optional(lockPath), id: optional(fileId), limit: optional(fc.constantFrom('1', '100')) })
        .map((query) => request({ params, query: defined(query) as Record<string, string> })),
      [`${name}-locks-verify`]: fc.record({ limit: optional(fc.constantFrom(1, 100)), ref }).map((body) => request({ params, body: defined(body) })),
      [`${name}-unlock`]: fc
        .tuple(fileId, fc.record({ force: optional(fc.boolean()), ref }))
        .map(([lockId, body]) => request({ params: { ...params, lockId }, body: defined(body) })),
    };
  };
  const withIdempotency = (key: string | undefined): Record<string, string> => (key === undefined ? {} : { 'x-idempotency-key': key });
  const path = fc.oneof(
    fc.constantFrom(...p.files.map((x) => x.path)),
    fc.nat(50).map((n) => `fuzz/new/${n}.bin`),
  );
  const initiateFile = fc.oneof(
    fc.record({ path, sha256: hex64, size: fc.integer({ min: 0, max: 5 * 1024 ** 3 }), contentMd5: md5Base64 }),
    // Content already in the project: the dedup form.
    fc.tuple(path, file.chain(version)).map(([at, v]) => ({ path: at, sha256: v.sha256, size: v.size, contentMd5: 'AAAAAAAAAAAAAAAAAAAAAA==' })),
    // In parts: whole parts of partSize and a shorter last one.
    fc
      .record({
        path,
        sha256: hex64,
        partSize: fc.constantFrom(8 * 1024 ** 2, 64 * 1024 ** 2),
        whole: fc.nat(3),
        last: fc.integer({ min: 1, max: 8 * 1024 ** 2 }),
        md5: md5Base64,
      })
      .map(({ path: at, sha256, partSize, whole, last, md5 }) => ({
        path: at,
        sha256,
        size: whole * partSize + last,
        multipart: { partSize, parts: [...Array.from({ length: whole }, () => ({ size: partSize, contentMd5: md5 })), { size: last, contentMd5: md5 }] },
      })),
  );
  const confirmEntry = fc
    .constantFrom(...p.reservations)
    .map((r) => defined({ fileId: r.fileId, version: r.version, storageKey: r.storageKey, dedup: r.dedup, sha256: r.sha256, size: r.size }));
  const commitEntry = file.chain((x) =>
    fc.oneof(
      fc.record({ fileId: fc.constant(x.fileId), action: fc.constantFrom('add', 'modify'), version: version(x).map((v) => v.version) }),
      fc.constant({ fileId: x.fileId, action: 'delete' }),
    ),
  );
  const signed = (urls: SignedUrl[], method: 'PUT' | 'GET' | 'HEAD') =>
    fc.tuple(fc.constantFrom(...urls), optional(fc.constantFrom('bytes=0-9', 'bytes=5-', 'bytes=-4'))).map(([url, range]) =>
      request({
        params: { key: url.key },
        query: url.query,
        headers: { ...url.headers, ...(range && method !== 'PUT' ? { range } : {}) },
        body: method === 'PUT' ? url.body : undefined,
      }),
    );
  const adminList = fc
    .record({ limit: optional(fc.integer({ min: 1, max: 200 }).map(String)), cursor: optional(fc.constant(f.admin.cursor)) })
    .map((q) => defined(q) as Record<string, string>);
  const adminId = (ids: string[]) => fc.constantFrom(...ids);
  const name = fc.constantFrom('Fuzz', 'Studio Nord', 'Ünïcödé', 'a');
  const slug = fc.nat(1000).map((n) => `fz-${n}`);
  const pluginName = fc.oneof(
    fc.constantFrom('fuzz-tool', 'a', 'exporter.v2', 'z_9'),
    fc.nat(50).map((n) => `fuzz-plugin-${n}`),
  );
  const pluginVersion = fc.constantFrom('1.0.0', '1.10.0', '2.0.0-rc.1', '0.0.1+build.7', '1.0.0-alpha.beta.1');
  const imageUrl = optional(fc.constantFrom('https://example.com/a.png', 'http://cdn.example.com/x.jpg'));
  const quotaBody = fc.record({ bytes: fc.oneof(fc.constant(null), fc.integer({ min: 2 ** 40, max: 2 ** 50 })) });
  const usageQuery = fc
    .record({ prefix: optional(fc.constantFrom('fuzz', 'fuzz/dir/', 'FUZZ/DIR/sub', 'fuzz/missing')), by: optional(fc.constant('extension')) })
    .map((query) => defined(query) as Record<string, string>);

  return {
    postAuthValidateKey: fc.constant(request({})),
    postProjectsFilesUploadInitiate: initiateFile.map((body) => request({ params: project, body })),
    postProjectsFilesUploadInitiateBatch: fc.array(initiateFile, { minLength: 1, maxLength: 4 }).map((files) => request({ params: project, body: { files } })),
    getProjectsFilesUploadByFileIdByVersionParts: fc
      .constantFrom(...p.reservations)
      .map((r) => request({ params: { ...project, fileId: r.fileId, version: String(r.version) } })),
    postProjectsFilesUploadConfirm: confirmEntry.map((body) => request({ params: project, body })),
    postProjectsFilesUploadConfirmBatch: fc.array(confirmEntry, { minLength: 1, maxLength: 4 }).map((files) => request({ params: project, body: { files } })),
    postProjectsCommits: fc
      .record({
        message: fc.constantFrom('fuzz', 'Update level', 'x'),
        entries: fc.uniqueArray(commitEntry, { minLength: 1, maxLength: 3, selector: (e) => e.fileId }),
        branch: optional(fc.constantFrom(...BRANCHES)),
        key: idempotencyKey,
      })
      .map(({ message, entries, branch, key }) =>
        request({ params: project, body: defined({ message, fileVersions: entries, branch }), headers: withIdempotency(key) }),
      ),
    postProjectsDrafts: fc
      .record({ message: fc.constantFrom('fuzz import', 'x'), branch: optional(fc.constantFrom(...BRANCHES)) })
      .map((body) => request({ params: project, body: defined(body) })),
    getProjectsDraftsByDraftId: draftId.map((id) => request({ params: { ...project, draftId: id } })),
    postProjectsDraftsByDraftIdFiles: fc
      .record({ id: draftId, entries: fc.uniqueArray(commitEntry, { minLength: 1, maxLength: 3, selector: (e) => e.fileId }) })
      .map(({ id, entries }) => request({ params: { ...project, draftId: id }, body: { fileVersions: entries } })),
    postProjectsDraftsByDraftIdCommit: fc
      .record({ id: draftId, key: idempotencyKey })
      .map(({ id, key }) => request({ params: { ...project, draftId: id }, headers: withIdempotency(key) })),
    deleteProjectsDraftsByDraftId: draftId.map((id) => request({ params: { ...project, draftId: id } })),
    getProjectsFilesByFileIdVersions: fc
      .record({ fileId, limit: optional(fc.integer({ min: 1, max: 200 }).map(String)), cursor: optional(fc.constant(p.versionsCursor)) })
      .map(({ fileId: id, limit, cursor }) =>
        request({ params: { ...project, fileId: cursor ? p.files[0].fileId : id }, query: defined({ limit, cursor }) as Record<string, string> }),
      ),
    getProjectsCommits: fc
      .record({ branch: optional(fc.constantFrom(...BRANCHES)), limit: optional(fc.integer({ min: 1, max: 200 }).map(String)) })
      .map((query) => request({ params: project, query: defined(query) as Record<string, string> })),
    getProjectsCommitsByCommitId: fc.constantFrom(...p.commitIds).map((commitId) => request({ params: { ...project, commitId } })),
    getProjectsCommitsByCommitIdFiles: fc
      .record({ commitId: fc.constantFrom(...p.commitIds), limit: optional(fc.integer({ min: 1, max: 200 }).map(String)) })
      .map(({ commitId, limit }) => request({ params: { ...project, commitId }, query: defined({ limit }) as Record<string, string> })),
    getProjectsFiles: fc
      .record({
        branch: optional(fc.constantFrom(...BRANCHES)),
        prefix: optional(fc.constantFrom('fuzz/', 'fuzz/dir', 'fuzz/dir/sub/', '')),
        limit: optional(fc.integer({ min: 1, max: 200 }).map(String)),
      })
      .map((query) => request({ params: project, query: defined(query) as Record<string, string> })),
    getProjectsFolders: fc
      .record({
        branch: optional(fc.constantFrom(...BRANCHES)),
        prefix: optional(fc.constantFrom('fuzz/', 'fuzz/dir', 'fuzz/dir/sub/', 'fuzz/missing/', '')),
        limit: optional(fc.integer({ min: 1, max: 200 }).map(String)),
      })
      .map((query) => request({ params: project, query: defined(query) as Record<string, string> })),
    getProjectsStats: optional(fc.constantFrom(...BRANCHES)).map((branch) =>
      request({ params: project, query: defined({ branch }) as Record<string, string> }),
    ),
    getProjectsBranches: optional(fc.integer({ min: 1, max: 200 }).map(String)).map((limit) =>
      request({ params: project, query: defined({ limit }) as Record<string, string> }),
    ),
    postProjectsBranches: fc
      .record({
        name: fc.oneof(
          fc.constantFrom(...BRANCHES),
          fc.nat(50).map((n) => `fuzz/new-${n}`),
        ),
        from: optional(fc.constantFrom(...BRANCHES)),
      })
      .map((body) => request({ params: project, body: defined(body) })),
    deleteProjectsBranchesByName: fc
      .oneof(
        fc.constantFrom(...BRANCHES),
        fc.nat(50).map((n) => `fuzz/new-${n}`),
      )
      .map((name) => request({ params: { ...project, name } })),
    postProjectsBranchesByNameMerge: fc
      .record({
        name: fc.constantFrom(...BRANCHES),
        into: optional(fc.constantFrom(...BRANCHES)),
        message: optional(fc.constantFrom('Merge', 'fuzz merge')),
        resolutions: optional(fc.uniqueArray(fc.record({ fileId, take: fc.constantFrom('source', 'target') }), { maxLength: 3, selector: (r) => r.fileId })),
      })
      .map(({ name: branch, ...body }) => request({ params: { ...project, name: branch }, body: defined(body) })),
    postProjectsLocks: fc
      .record({ fileIds, note: optional(fc.constantFrom('', 'editing', 'a\nb\tc', '😀'.repeat(280))) })
      .map((body) => request({ params: project, body: defined(body) })),
    getProjectsLocks: fc
      .record({
        pathPrefix: optional(fc.constantFrom('fuzz/', 'FUZZ/DIR', 'fuzz/dir/sub')),
        userId: optional(fc.constant(p.userId)),
        limit: optional(fc.integer({ min: 1, max: 200 }).map(String)),
        cursor: optional(fc.constant(p.locksCursor)),
      })
      // The cursor is bound to the filters it was made with.
      .map((q) => request({ params: project, query: defined(q.cursor ? { cursor: q.cursor, limit: '1' } : q) as Record<string, string> })),
    deleteProjectsLocks: fc.record({ fileIds, force: optional(fc.boolean()) }).map((body) => request({ params: project, body: defined(body) })),
    getProjectsChanges: fc
      .record({
        branch: optional(fc.constantFrom(...BRANCHES)),
        since: fc.integer({ min: 0, max: 5 }).map(String),
        generation: optional(fc.constantFrom('main', '00000000-0000-4000-8000-000000000000')),
        limit: optional(fc.integer({ min: 1, max: 5000 }).map(String)),
      })
      .map((q) => request({ params: project, query: defined(q) as Record<string, string> })),
    postProjectsSync: fc
      .record({
        files: fc.array(
          file.chain((x) =>
            fc
              .record({
                path: fc.constant(x.path),
                sha256: fc.oneof(
                  version(x).map((v) => v.sha256),
                  hex64,
                ),
                baseVersion: optional(fc.integer({ min: 1, max: 3 })),
              })
              .map(defined),
          ),
          { maxLength: 4 },
        ),
        includeRemoteOnly: optional(fc.boolean()),
        branch: optional(fc.constantFrom(...BRANCHES)),
        session: optional(fc.record({ id: fc.uuid(), batch: fc.integer({ min: 0, max: 3 }) })),
      })
      .map((body) => request({ params: project, body: defined(body) })),
    postProjectsRestore: fc
      .record({
        files: fc.uniqueArray(
          file.chain((x) => version(x).map((v) => ({ fileId: x.fileId, toVersion: v.version }))),
          { minLength: 1, maxLength: 3, selector: (e) => e.fileId },
        ),
        key: idempotencyKey,
      })
      .map(({ files, key }) => request({ params: project, body: { files }, headers: withIdempotency(key) })),
    postProjectsFilesDownloadUrls: fc
      .record({
        files: fc.array(
          file.chain((x) =>
            fc
              .record({ by: fc.constantFrom('fileId', 'path', 'both'), version: optional(version(x).map((v) => v.version)) })
              .map(({ by, version: v }) => defined({ fileId: by === 'path' ? undefined : x.fileId, path: by === 'fileId' ? undefined : x.path, version: v })),
          ),
          { minLength: 1, maxLength: 4 },
        ),
        branch: optional(fc.constantFrom(...BRANCHES)),
      })
      .map((body) => request({ params: project, body: defined(body) })),
    getProjectsPlugins: optional(fc.integer({ min: 1, max: 200 }).map(String)).map((limit) =>
      request({ params: project, query: defined({ limit }) as Record<string, string> }),
    ),
    getProjectsPluginsByNameVersions: fc
      .record({ name: pluginName, limit: optional(fc.integer({ min: 1, max: 200 }).map(String)) })
      .map(({ name: plugin, limit }) => request({ params: { ...project, name: plugin }, query: defined({ limit }) as Record<string, string> })),
    postProjectsPluginsByNameVersionsInitiate: fc
      .record({
        name: pluginName,
        version: pluginVersion,
        sha256: hex64,
        size: fc.integer({ min: 0, max: 5 * 1024 ** 3 }),
        contentMd5: md5Base64,
        description: optional(fc.constantFrom('', 'Exports levels', 'Ünïcödé 😀')),
      })
      .map(({ name: plugin, ...body }) => request({ params: { ...project, name: plugin }, body: defined(body) })),
    postProjectsPluginsByNameVersionsConfirm: fc
      .record({
        name: pluginName,
        version: pluginVersion,
        storageKey: fc.uuid().map((id) => `o/${p.projectId}/plugins/${id}`),
        sha256: hex64,
        size: fc.integer({ min: 0, max: 1024 }),
      })
      .map(({ name: plugin, ...body }) => request({ params: { ...project, name: plugin }, body })),

    getProjectsUsage: usageQuery.map((query) => request({ params: project, query })),
    // Large enough not to stop the fuzz's uploads, or none; a mutated one may set a small one (507 then).
    putProjectsQuota: quotaBody.map((body) => request({ params: project, body })),
    getProjectsRetention: fc.constant(request({ params: project })),
    // Rules that only ever match the fuzz's own paths; nothing applies them during the fuzz (the job runs daily).
    putProjectsRetention: fc
      .array(
        fc.record({
          glob: fc.constantFrom('**', 'fuzz/**/*.bin', '*.psd', 'Levels/?/*.umap'),
          keepLast: optional(fc.integer({ min: 1, max: 1000 })),
          keepDays: fc.integer({ min: 1, max: 3650 }),
        }),
        { maxLength: 5 },
      )
      .map((rules) => request({ params: project, body: { rules: rules.map((rule) => defined(rule)) } })),
    postProjectsRetentionDryRun: fc.constant(request({ params: project, body: {} })),
    // A token the fuzz cannot have signed (403): the fuzz never applies retention to its own files.
    postProjectsRetentionRun: fc
      .stringMatching(/^[A-Za-z0-9_-]{20,60}\.[A-Za-z0-9_-]{22}$/)
      .map((confirmToken) => request({ params: project, body: { confirmToken } })),
    getProjectsOrgUsage: fc.constant(request({ params: project })),
    putProjectsOrgQuota: quotaBody.map((body) => request({ params: project, body })),
    // Dry runs, and runs with a token the fuzz cannot have signed (403): the fuzz never obliterates its own files.
    postProjectsObliterate: fc
      .oneof(
        path.map((at) => ({ path: at })),
        fc.record({ fileId, version: optional(fc.integer({ min: 1, max: 3 })) }),
      )
      .chain((target) =>
        fc.oneof(
          fc.constant({ ...target, dryRun: true }),
          fc.stringMatching(/^[A-Za-z0-9_-]{20,60}\.[A-Za-z0-9_-]{22}$/).map((confirmToken) => ({ ...target, confirmToken })),
        ),
      )
      .map((body) => request({ params: project, body: defined(body) })),

    postProjectsWebhooks: webhookBody.map((body) => request({ params: project, body })),
    getProjectsWebhooks: fc.constant(request({ params: project })),
    getProjectsWebhooksByWebhookId: webhookId.map((id) => request({ params: { ...project, webhookId: id } })),
    patchProjectsWebhooksByWebhookId: fc.tuple(webhookId, webhookChanges).map(([id, body]) => request({ params: { ...project, webhookId: id }, body })),
    deleteProjectsWebhooksByWebhookId: webhookId.map((id) => request({ params: { ...project, webhookId: id } })),
    getProjectsWebhooksByWebhookIdDeliveries: fc
      .tuple(webhookId, optional(fc.integer({ min: 1, max: 200 }).map(String)))
      .map(([id, limit]) => request({ params: { ...project, webhookId: id }, query: defined({ limit }) as Record<string, string> })),
    postProjectsWebhooksByWebhookIdPing: webhookId.map((id) => request({ params: { ...project, webhookId: id } })),
    getProjectsEvents: fc
      .constantFrom('', 'lock.acquired', 'commit.created,branch.created')
      .map((types) => request({ params: project, query: types === '' ? {} : { types } })),
    postSession: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{43}$/), fc.constant('short')).map((token) => request({ body: { token } })),
    getSession: fc.constant(request({})),
    deleteSession: fc.constant(request({})),
    getSessionOptions: fc.constant(request({})),
    getSessionOidcStart: fc.constant(request({})),
    getSessionOidcCallback: fc.constant(request({ query: { code: 'fuzz', state: 'fuzz' } })),
    getMeOrgs: fc.constant(request({})),
    getOrgsByOrgIdUsage: adminId(f.admin.orgIds).map((orgId) => request({ params: { orgId } })),
    putOrgsByOrgIdQuota: fc.tuple(adminId(f.admin.orgIds), quotaBody).map(([orgId, body]) => request({ params: { orgId }, body })),
    getOrgsByOrgIdProjects: fc.tuple(adminId(f.admin.orgIds), adminList).map(([orgId, query]) => request({ params: { orgId }, query })),
    postOrgsByOrgIdProjects: fc.record({ orgId: adminId(f.admin.orgIds), name, slug }).map(({ orgId, ...body }) => request({ params: { orgId }, body })),
    getOrgsByOrgIdMembers: fc.tuple(adminId(f.admin.orgIds), adminList).map(([orgId, query]) => request({ params: { orgId }, query })),
    postOrgsByOrgIdMembers: fc
      .record({ orgId: adminId(f.admin.orgIds), userId: adminId(f.admin.userIds), role: fc.constantFrom('owner', 'admin', 'member') })
      .map(({ orgId, ...body }) => request({ params: { orgId }, body })),
    deleteOrgsByOrgIdMembersByUserId: fc
      .tuple(adminId(f.admin.orgIds), adminId(f.admin.userIds))
      .map(([orgId, userId]) => request({ params: { orgId, userId } })),
    getOrgsByOrgIdInvitations: fc.tuple(adminId(f.admin.orgIds), adminList).map(([orgId, query]) => request({ params: { orgId }, query })),
    postOrgsByOrgIdInvitations: fc
      .record({
        orgId: adminId(f.admin.orgIds),
        email: fc.constantFrom('fuzz@studio.example', 'Fuzz.Invited@studio.example'),
        role: fc.constantFrom('owner', 'admin', 'member'),
      })
      .map(({ orgId, ...body }) => request({ params: { orgId }, body })),
    deleteOrgsByOrgIdInvitationsByInvitationId: fc
      .tuple(adminId(f.admin.orgIds), fc.uuid())
      .map(([orgId, invitationId]) => request({ params: { orgId, invitationId } })),
    getMeInvitations: fc.constant(request({})),
    postMeInvitationsByInvitationIdAccept: fc.uuid().map((invitationId) => request({ params: { invitationId } })),
    postMeInvitationsByInvitationIdDecline: fc.uuid().map((invitationId) => request({ params: { invitationId } })),
    getProjectsOverview: fc.constant(request({ params: project })),
    putProjectsWriteRateLimit: optional(fc.record({ perSecond: fc.integer({ min: 1, max: 100_000 }), burst: fc.integer({ min: 1, max: 1_000_000 }) })).map(
      (limit) => request({ params: project, body: { writeRateLimit: limit ?? null } }),
    ),
    getProjectsKeys: adminList.map((query) => request({ params: project, query })),
    postProjectsKeys: optional(adminId(f.admin.userIds)).map((userId) => request({ params: project, body: defined({ userId }) })),
    deleteProjectsKeysByKeyId: adminId(f.admin.keyIds).map((keyId) => request({ params: { ...project, keyId } })),
    postProjectsKeysByKeyIdResetDevice: adminId(f.admin.keyIds).map((keyId) => request({ params: { ...project, keyId } })),
    'web-asset': fc.constantFrom('index.js', 'missing-1234.css').map((file) => request({ params: { file } })),
    postAdminUsersByUserIdSignInLinks: adminId(f.admin.userIds).map((userId) => request({ params: { userId } })),
    postAdminOrgs: fc.record({ name, slug }).map((body) => request({ body })),
    getAdminOrgs: adminList.map((query) => request({ query })),
    postAdminUsers: fc.record({ name, avatarUrl: imageUrl }).map((body) => request({ body: defined(body) })),
    getAdminUsers: adminList.map((query) => request({ query })),
    // Two fixture users given one address is a 409, which a valid request may meet.
    patchAdminUsersByUserId: fc
      .tuple(adminId(f.admin.userIds), fc.constantFrom(null, 'fuzz@studio.example', 'Fuzz.Two@studio.example'))
      .map(([userId, email]) => request({ params: { userId }, body: { email } })),
    postAdminOrgsByOrgIdMembers: fc
      .record({ orgId: adminId(f.admin.orgIds), userId: adminId(f.admin.userIds), role: fc.constantFrom('owner', 'admin', 'member') })
      .map(({ orgId, ...body }) => request({ params: { orgId }, body })),
    getAdminOrgsByOrgIdMembers: fc.tuple(adminId(f.admin.orgIds), adminList).map(([orgId, query]) => request({ params: { orgId }, query })),
    postAdminOrgsByOrgIdProjects: fc
      .record({
        orgId: adminId(f.admin.orgIds),
        name,
        slug,
        iconUrl: imageUrl,
        writeRateLimit: optional(fc.record({ perSecond: fc.integer({ min: 1, max: 100_000 }), burst: fc.integer({ min: 1, max: 1_000_000 }) })),
      })
      .map(({ orgId, ...body }) => request({ params: { orgId }, body: defined(body) })),
    getAdminOrgsByOrgIdProjects: fc.tuple(adminId(f.admin.orgIds), adminList).map(([orgId, query]) => request({ params: { orgId }, query })),
    postAdminProjectsKeys: fc
      .tuple(adminId(f.admin.projectIds), adminId(f.admin.userIds))
      .map(([projectId, userId]) => request({ params: { projectId }, body: { userId } })),
    getAdminProjectsKeys: fc.tuple(adminId(f.admin.projectIds), adminList).map(([projectId, query]) => request({ params: { projectId }, query })),
    deleteAdminKeysByKeyId: adminId(f.admin.keyIds).map((keyId) => request({ params: { keyId } })),
    postAdminKeysByKeyIdResetDevice: adminId(f.admin.keyIds).map((keyId) => request({ params: { keyId } })),
    postAdminProjectsWebhooks: fc.tuple(adminId(f.admin.projectIds), webhookBody).map(([projectId, body]) => request({ params: { projectId }, body })),
    getAdminProjectsWebhooks: adminId(f.admin.projectIds).map((projectId) => request({ params: { projectId } })),
    getAdminProjectsWebhooksByWebhookId: fc
      .tuple(adminId(f.admin.projectIds), webhookId)
      .map(([projectId, id]) => request({ params: { projectId, webhookId: id } })),
    patchAdminProjectsWebhooksByWebhookId: fc
      .tuple(adminId(f.admin.projectIds), webhookId, webhookChanges)
      .map(([projectId, id, body]) => request({ params: { projectId, webhookId: id }, body })),
    deleteAdminProjectsWebhooksByWebhookId: fc
      .tuple(adminId(f.admin.projectIds), webhookId)
      .map(([projectId, id]) => request({ params: { projectId, webhookId: id } })),
    getAdminProjectsWebhooksByWebhookIdDeliveries: fc
      .tuple(adminId(f.admin.projectIds), webhookId)
      .map(([projectId, id]) => request({ params: { projectId, webhookId: id } })),
    postAdminProjectsWebhooksByWebhookIdPing: fc
      .tuple(adminId(f.admin.projectIds), webhookId)
      .map(([projectId, id]) => request({ params: { projectId, webhookId: id } })),

    putAdminProjectsQuota: fc.tuple(adminId(f.admin.projectIds), quotaBody).map(([projectId, body]) => request({ params: { projectId }, body })),
    putAdminOrgsByOrgIdQuota: fc.tuple(adminId(f.admin.orgIds), quotaBody).map(([orgId, body]) => request({ params: { orgId }, body })),
    getAdminOrgsByOrgIdUsage: adminId(f.admin.orgIds).map((orgId) => request({ params: { orgId } })),
    getAdminProjectsUsage: fc.tuple(adminId(f.admin.projectIds), usageQuery).map(([projectId, query]) => request({ params: { projectId }, query })),
    // Deleting the fuzz project would end the run: another project's id is the nearly valid request (404).
    deleteProjects: fc.uuid().map((projectId) => request({ params: { projectId } })),
    // The fuzz project is not deleted: bringing it back is refused (409), after every check ran.
    postProjectsUndelete: fc.constant(request({ params: project })),
    // The admin fixture's project may be deleted and brought back again any number of times.
    deleteAdminProjects: adminId(f.admin.projectIds).map((projectId) => request({ params: { projectId } })),
    postAdminProjectsUndelete: adminId(f.admin.projectIds).map((projectId) => request({ params: { projectId } })),

    getOpenapiJson: fc.constant(request({})),
    docs: fc.constant(request({})),
    'docs-initializer': fc.constant(request({})),
    'docs-asset': fc.constantFrom('swagger-ui.css', 'swagger-ui-bundle.js', 'missing.js').map((file) => request({ params: { file } })),
    getHealthz: fc.constant(request({})),
    getReadyz: fc.constant(request({})),
    'object-put': signed(p.uploads, 'PUT'),
    'object-get': signed(p.downloads, 'GET'),
    'object-head': signed(p.downloads, 'HEAD'),
    ...lfsRequests('lfs', project),
    ...lfsRequests('lfs-by-slugs', { orgSlug: p.orgSlug, projectSlug: p.projectSlug }),
    'ops-healthz': fc.constant(request({})),
    'ops-readyz': fc.constant(request({})),
    'ops-metrics': fc.constant(request({})),
  };
}
