import type { ReactNode } from 'react';
import { DataTable } from './DataTable.tsx';
import { LoadMore, QueryState, type AnyQuery } from './States.tsx';

/**
 * A list query shown as a table, one row per item, with the query's loading and error states and,
 * for a paged list, its "Load more"; given `empty`, an empty list shows that sentence instead of a
 * table with no rows.
 */
export function QueryTable<T>(props: {
  query: AnyQuery<{ data: T[] }>;
  empty?: string;
  label: string;
  minWidth: number;
  columns: readonly string[];
  row: (item: T, index: number) => ReactNode;
}) {
  const { query } = props;
  return (
    <QueryState query={query} isEmpty={props.empty === undefined ? undefined : (page) => page.data.length === 0} empty={props.empty}>
      {(page) => (
        <DataTable
          label={props.label}
          minWidth={props.minWidth}
          columns={props.columns}
          footer={'fetchNextPage' in query && <LoadMore query={query} what={props.label.toLowerCase()} />}
        >
          {page.data.map(props.row)}
        </DataTable>
      )}
    </QueryState>
  );
}
