import { branches, commit, lock, plugins, retention, storage } from '@lode/contracts';
import type { EventConsumer, EventStream } from '@lode/bus';
import type { EventRecorder } from '../domain/event-recorder.ts';
import {
  fromBranchChanged,
  fromCommitCreated,
  fromFileObliterated,
  fromLocksChanged,
  fromPluginPublished,
  fromQuotaWarning,
  fromRetentionApplied,
} from '../domain/public-event-plan.ts';

/**
 * The durable consumers that turn the services' internal events into the public catalogue, shared by
 * every replica and ordered by project, so a project's events keep their order on the feed.
 */
export const PUBLIC_EVENTS_CONSUMER = 'webhooks-public';

export async function consumeInternalEvents(events: EventStream, recorder: EventRecorder): Promise<EventConsumer[]> {
  const byProject = { orderedBy: (event: { projectId: string }) => event.projectId };
  return Promise.all([
    events.consume(`${PUBLIC_EVENTS_CONSUMER}-commits`, commit.commitCreated, (event, meta) => recorder.record(fromCommitCreated(event, meta.id)), byProject),
    events.consume(
      `${PUBLIC_EVENTS_CONSUMER}-branches`,
      branches.branchChanged,
      (event, meta) => recorder.record(fromBranchChanged(event, meta.id, new Date())),
      byProject,
    ),
    events.consume(`${PUBLIC_EVENTS_CONSUMER}-locks`, lock.locksChanged, (event, meta) => recorder.record(fromLocksChanged(event, meta.id)), byProject),
    events.consume(
      `${PUBLIC_EVENTS_CONSUMER}-plugins`,
      plugins.pluginPublished,
      (event, meta) => recorder.record(fromPluginPublished(event, meta.id)),
      byProject,
    ),
    events.consume(
      `${PUBLIC_EVENTS_CONSUMER}-obliterations`,
      storage.fileObliterated,
      (event, meta) => recorder.record(fromFileObliterated(event, meta.id)),
      byProject,
    ),
    events.consume(
      `${PUBLIC_EVENTS_CONSUMER}-retention`,
      retention.retentionApplied,
      (event, meta) => recorder.record(fromRetentionApplied(event, meta.id)),
      byProject,
    ),
    events.consume(`${PUBLIC_EVENTS_CONSUMER}-quotas`, storage.quotaWarning, (event, meta) => recorder.record(fromQuotaWarning(event, meta.id)), byProject),
  ]);
}
