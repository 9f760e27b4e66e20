import type { ReactNode } from 'react';
import { Alert, Center, Loader, Text } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';

/** A query's loading, error and empty states, so every list shows one of them instead of nothing. */
export function QueryState<T>(props: { query: UseQueryResult<T>; isEmpty?: (data: T) => boolean; empty?: string; children: (data: T) => ReactNode }) {
  const { query } = props;
  if (query.isPending) {
    return (
      <Center p="lg">
        <Loader aria-label="Loading" size="sm" />
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

export function ErrorNotice(props: { error: Error | null }) {
  if (!props.error) return null;
  return (
    <Alert color="red" title="Something went wrong" role="alert">
      {props.error.message}
    </Alert>
  );
}
