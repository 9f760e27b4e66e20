import { lfs, orgStorage, plugins, retention, storage, upload } from '@lode/contracts';
import { rpc, type Rpc } from '@lode/bus';
import type { UploadService } from './domain/upload-service.ts';
import type { RestorePreparer } from './domain/restore-preparer.ts';
import type { PluginService } from './domain/plugin-service.ts';
import type { LfsObjects } from './domain/lfs-objects.ts';
import type { UsageService } from './domain/usage-service.ts';
import type { Obliterator } from './domain/obliterator.ts';
import type { QuotaService } from './domain/quota-service.ts';
import type { RetentionService } from './domain/retention-service.ts';
import type { OrgUsageService } from './domain/org-usage-service.ts';
import type { OrgQuotaService } from './domain/org-quota-service.ts';
import { confirmBatchReply, initiateBatchReply } from './handlers/batch-replies.ts';

/** The domain objects the upload service's RPCs call, passed by name. */
export interface UploadDomain {
  uploadService: UploadService;
  restorePreparer: RestorePreparer;
  pluginService: PluginService;
  lfsObjects: LfsObjects;
  usageService: UsageService;
  obliterator: Obliterator;
  quotaService: QuotaService;
  retentionService: RetentionService;
  orgUsageService: OrgUsageService;
  orgQuotaService: OrgQuotaService;
}

/** The upload service's table: each contract it answers and the domain call that answers it. */
export function uploadRpcs(domain: UploadDomain): Rpc[] {
  const {
    uploadService,
    restorePreparer,
    pluginService,
    lfsObjects,
    usageService,
    obliterator,
    quotaService,
    retentionService,
    orgUsageService,
    orgQuotaService,
  } = domain;
  return [
    rpc(upload.initiate, ({ actor, file }) => uploadService.initiate(actor, file)),
    rpc(upload.initiateBatch, async ({ actor, files }) => initiateBatchReply(await uploadService.initiateBatch(actor, files))),
    rpc(upload.uploadParts, ({ actor, fileId, version }) => uploadService.parts(actor, fileId, version)),
    rpc(upload.confirm, ({ actor, upload: body }) => uploadService.confirm(actor, body)),
    rpc(upload.confirmBatch, async ({ actor, files }) => confirmBatchReply(await uploadService.confirmBatch(actor, files))),
    rpc(upload.resolveVersions, ({ projectId, fileIds, versions }) => uploadService.resolve(projectId, fileIds, versions)),
    rpc(upload.ensureFiles, ({ projectId, paths }) => uploadService.ensureFiles(projectId, paths)),
    rpc(upload.prepareRestore, ({ actor, restoreId, targets }) => restorePreparer.prepare(actor, restoreId, targets)),
    rpc(lfs.batch, ({ actor, operation, objects }) => lfsObjects.batch(actor, operation, objects)),
    rpc(lfs.verify, ({ actor, object }) => lfsObjects.verify(actor, object)),
    rpc(plugins.list, ({ actor, cursor, limit }) => pluginService.list(actor, cursor, limit)),
    rpc(plugins.listVersions, ({ actor, name, cursor, limit }) => pluginService.listVersions(actor, name, cursor, limit)),
    rpc(plugins.initiate, ({ actor, name, ...body }) => pluginService.initiate(actor, name, body)),
    rpc(plugins.confirm, ({ actor, name, ...body }) => pluginService.confirm(actor, name, body)),
    rpc(storage.usage, (request) => usageService.usage(request)),
    rpc(storage.obliterate, (request) => obliterator.obliterate(request)),
    rpc(storage.setQuota, (request) => quotaService.set(request)),
    rpc(retention.getRetention, ({ actor }) => retentionService.get(actor)),
    rpc(retention.setRetention, ({ actor, rules }) => retentionService.set(actor, rules)),
    rpc(retention.retentionDryRun, ({ actor }) => retentionService.dryRun(actor)),
    rpc(retention.retentionRun, ({ actor, confirmToken }) => retentionService.run(actor, confirmToken)),
    rpc(orgStorage.orgUsage, (request) => orgUsageService.usage(request)),
    rpc(orgStorage.setOrgQuota, (request) => orgQuotaService.set(request)),
    rpc(storage.purgedVersions, async ({ projectId, fileIds, versions }) => ({ purges: await obliterator.purges(projectId, fileIds, versions) })),
  ];
}
