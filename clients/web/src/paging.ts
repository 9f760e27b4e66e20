import { useInfiniteQuery, type QueryKey } from '@tanstack/react-query';
import { get, withQuery } from './api.ts';
import type { Page } from './types.ts';

/** Rows asked for per request by every paged list (the API allows 1 to 200). */
export const PAGE_SIZE = 100;

/**
 * A cursor-paged list of the API (`{ data, nextCursor }`) read a page at a time: `data` holds every
 * row loaded so far and fetchNextPage ("Load more") follows nextCursor. A refresh (the live feed)
 * loads the pages already shown again, from the first, so the cursors stay those of fresh pages.
 */
export function usePages<T>(queryKey: QueryKey, path: string, query: Record<string, string | undefined> = {}) {
  return useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => get<Page<T>>(withQuery(path, { ...query, limit: PAGE_SIZE, cursor: pageParam })),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    select: (pages) => ({ data: pages.pages.flatMap((page) => page.data) }),
  });
}
