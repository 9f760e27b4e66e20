import type { ReactNode } from 'react';
import { Alert, Button, Center, Loader, Text } from '@mantine/core';
import type { UseInfiniteQueryResult, UseQueryResult } from '@tanstack/react-query';

/** A single request's query, or a paged list's (paging.ts). */
export type AnyQuery<T> = UseQueryResult<T> | UseInfiniteQueryResult<T>;

/** A spinner that screen readers announce as a status. */
export function Loading(props: { size?: string }) {
  return <Loader role="status" aria-label="Loading" size={props.size} />;
}

/** A query's loading, error and empty states, so every list shows one of them instead of nothing. */
export function QueryState<T>(props: { query: AnyQuery<T>; isEmpty?: (data: T) => boolean; empty?: string; children: (data: T) => ReactNode }) {
  const { query } = props;
  if (query.isPending) {
    return (
      <Center p="lg">
        <Loading size="sm" />
      </Center>
    );
  }
  if (query.isError) return <ErrorNotice error={query.error} />;
  if (props.isEmpty?.(query.data)) {
    return (
      <Text c="dimmed" p="md">
        {props.empty ?? 'Nothing here yet.'}
      </Text>
    );
  }
  return <>{props.children(query.data)}</>;
}

/** The next page of a paged list, while there is one; `what` names the list for screen readers. */
export function LoadMore(props: { query: UseInfiniteQueryResult<unknown>; what: string }) {
  const { query } = props;
  if (!query.hasNextPage) return null;
  return (
    <Center p="sm">
      <Button variant="default" size="xs" onClick={() => void query.fetchNextPage()} loading={query.isFetchingNextPage} aria-label={`Load more ${props.what}`}>
        Load more
      </Button>
    </Center>
  );
}

export function ErrorNotice(props: { error: Error | null }) {
  if (!props.error) return null;
  return (
    <Alert color="red" title="Something went wrong" role="alert">
      {props.error.message}
    </Alert>
  );
}
