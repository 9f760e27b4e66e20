import { commit } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { TreeListing } from '../domain/tree-listing.ts';

export function serveListTree(bus: Bus, listing: TreeListing): void {
  bus.serve(commit.listTree, ({ actor, branch, prefix, cursor, limit }) => listing.list(actor, branch, prefix, cursor, limit));
}
