import { commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { FolderListing } from '../domain/folder-listing.ts';

export function serveListFolder(bus: Bus, listing: FolderListing): void {
  bus.serve(commit.listFolder, ({ actor, branch, prefix, cursor, limit }) => listing.list(actor, branch, prefix, cursor, limit));
}
