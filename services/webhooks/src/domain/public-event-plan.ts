import { createHash } from 'node:crypto';
import { publicEvents, type branches, type commit, type EventOf, type lock, type plugins, type retention, type storage } from '@lode/contracts';

type PublicEvent = publicEvents.PublicEvent;

/**
 * A public event's id, derived from the internal event it comes from: the same internal event
 * handed over twice (at least once delivery) makes the same public event, recorded once.
 */
export function publicEventId(internalId: string, type: string): string {
  const hex = createHash('sha256').update(`${type}\u0000${internalId}`).digest('hex');
  // Laid out as a UUID of version 8 (custom), variant 10.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((Number.parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function envelope(internalId: string, type: publicEvents.PublicEventType, projectId: string, occurredAt: string, data: Record<string, unknown>): PublicEvent {
  return { id: publicEventId(internalId, type), type, projectId, occurredAt, data };
}

/**
 * A commit as its first part tells it: the header, the counts and the first entries, with the route
 * that pages the rest. Later parts add nothing public: a 25,000-file commit is one small event.
 */
export function fromCommitCreated(event: commit.CommitCreated, internalId: string): PublicEvent | undefined {
  if (event.part !== 1) return undefined;
  const entries = event.entries.slice(0, publicEvents.COMMIT_EVENT_ENTRIES);
  return envelope(internalId, 'commit.created', event.projectId, event.createdAt, {
    commitId: event.commitId,
    branch: event.branch,
    sequenceNum: event.sequenceNum,
    kind: event.kind ?? 'commit',
    message: event.message,
    author: event.author,
    createdAt: event.createdAt,
    fileCount: event.fileCount,
    entries,
    entriesTruncated: event.fileCount > entries.length,
    filesUrl: `/api/v1/projects/${event.projectId}/commits/${event.commitId}/files`,
  });
}

/** branch.changed carries no time: the moment it is recorded stands for it. */
export function fromBranchChanged(event: branches.BranchChanged, internalId: string, recordedAt: Date): PublicEvent {
  const at = recordedAt.toISOString();
  return event.action === 'created'
    ? envelope(internalId, 'branch.created', event.projectId, at, { name: event.name, forkedFrom: event.forkedFrom })
    : envelope(internalId, 'branch.deleted', event.projectId, at, { name: event.name });
}

export function fromLocksChanged(event: lock.LocksChanged, internalId: string): PublicEvent {
  return event.action === 'acquired'
    ? envelope(internalId, 'lock.acquired', event.projectId, event.at, { locks: event.locks })
    : envelope(internalId, 'lock.released', event.projectId, event.at, { reason: event.reason ?? 'released', releasedBy: event.by, locks: event.locks });
}

/** A plugin version, on the feed of the project it was published through (plugins belong to the organization). */
export function fromPluginPublished(event: EventOf<typeof plugins.pluginPublished>, internalId: string): PublicEvent {
  const { projectId, createdAt, ...version } = event;
  return envelope(internalId, 'plugin.published', projectId, createdAt, { ...version, createdAt });
}

/** An obliteration, as its audit record: who removed which versions of which file, and what it freed. */
export function fromFileObliterated(event: storage.FileObliterated, internalId: string): PublicEvent {
  const { projectId, ...data } = event;
  return envelope(internalId, 'file.obliterated', projectId, event.obliteratedAt, data);
}

/** A retention run, as its audit record: what applied the rules (and who confirmed it), what it removed and freed. */
export function fromRetentionApplied(event: retention.RetentionApplied, internalId: string): PublicEvent {
  const { projectId, ...data } = event;
  return envelope(internalId, 'retention.applied', projectId, event.appliedAt, data);
}

/** A project's stored bytes crossed 80 % of its quota. */
export function fromQuotaWarning(event: storage.QuotaWarning, internalId: string): PublicEvent {
  const { projectId, at, ...data } = event;
  return envelope(internalId, 'quota.warning', projectId, at, data);
}
