/** The API's wire shapes the dashboard reads (docs/api.md). */

export type Role = 'owner' | 'admin' | 'member';
export interface Page<T> { data: T[]; nextCursor: string | null }
export interface User { id: string; name: string; avatarUrl: string | null; email: string | null }
/** Who is signed in; the CSRF token is not here but in the lode_csrf cookie (api.ts). */
export interface Session { user: User }
export interface Org { id: string; name: string; slug: string; createdAt: string; role: Role }
export interface WriteRateLimit { perSecond: number; burst: number }
export interface Project { id: string; orgId: string; name: string; slug: string; iconUrl: string | null; writeRateLimit: WriteRateLimit | null; createdAt: string }
/**
 * `defaultWriteRateLimit`: what a project without a limit of its own gets (the server's default);
 * `maxWriteRateLimit`: the most its owners and admins may set.
 */
export interface ProjectOverview { project: Project; org: Omit<Org, 'role'>; role: Role; defaultWriteRateLimit: WriteRateLimit; maxWriteRateLimit: WriteRateLimit }
export interface Member { userId: string; name: string; email: string | null; role: Role; createdAt: string }
export type InvitationState = 'pending' | 'expired' | 'accepted' | 'declined' | 'revoked';
/** An invitation as its org's owners and admins see it. */
export interface OrgInvitation { id: string; email: string; role: Role; invitedBy: { userId: string; userName: string }; createdAt: string; expiresAt: string; state: InvitationState }
/** An invitation as the person invited sees it. */
export interface MyInvitation { id: string; org: Omit<Org, 'role'>; role: Role; invitedBy: { userId: string; userName: string }; createdAt: string; expiresAt: string }
export interface ApiKey {
  id: string;
  userId: string;
  userName: string;
  hint: string;
  deviceBound: boolean;
  deviceId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
export interface TreeFile { fileId: string; path: string; version: number; sha256: string; size: number; commitSeq: number; updatedAt: string }
/** One child of a folder in GET /folders: a subfolder (its files at any depth counted and summed), or a file right in it. */
export type FolderChild = { type: 'folder'; name: string; path: string; fileCount: number; totalSize: number } | (TreeFile & { type: 'file'; name: string });
/** One result of POST /files/download-urls: the download form, or the error form (docs/api.md). */
export interface DownloadResult { fileId?: string; path?: string; version?: number; downloadUrl?: string; error?: string; code?: string }
export interface FileVersion { id: string; version: number; size: number; sha256: string; uploaderId: string; uploaderName: string; commitId: string | null; downloadUrl: string; createdAt: string }
export interface Commit { id: string; sequenceNum: number; message: string; fileCount: number; branch: string; kind: string; authorId: string; authorName: string; createdAt: string }
export interface CommitFile { fileId: string; path: string; action: 'add' | 'modify' | 'delete'; version: number | null; sha256: string | null; size: number | null }
export interface Branch { name: string; headCommitId: string | null; headSequenceNum: number | null; createdAt: string | null; createdBy: { userId: string; userName: string } | null }
export interface Lock { fileId: string; path: string; userId: string; userName: string; isMine: boolean; note: string; lockedAt: string }
/** Why POST /locks did not take a file: another user's lock (the entry is that lock), or another user's commit of it in progress. */
export type LockConflict = ({ reason: 'locked' } & Lock) | { reason: 'committing'; fileId: string; path: string; userId: string; userName: string | null };
export interface AcquireLocksResult { acquired: Lock[]; conflicts: LockConflict[]; notFound: string[] }
export interface MergeConflict { fileId: string; path: string; sourceVersion: number | null; targetVersion: number | null; baseVersion: number | null }
export interface Webhook { id: string; url: string; events: string[]; description: string; disabled: boolean; disabledReason: string | null; createdAt: string }
