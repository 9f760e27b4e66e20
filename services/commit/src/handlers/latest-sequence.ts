import { commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { Database } from '@lode/db';
import type { CommitsRepository } from '../repo/commits-repo.ts';

export function serveLatestSequence(bus: Bus, db: Database, commits: CommitsRepository): void {
  bus.serve(commit.latestSequence, async ({ projectId }) => ({ sequenceNum: await commits.latestSequence(db, projectId) }));
}
