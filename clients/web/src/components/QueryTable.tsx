import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { DataTable } from './DataTable.tsx';
import { QueryState } from './States.tsx';

/**
 * A list query shown as a table, one row per item, with the query's loading and error states; given
 * `empty`, an empty list shows that sentence instead of a table with no rows.
 */
export function QueryTable<T>(props: {
  query: UseQueryResult<{ data: T[] }>;
  empty?: string;
  label: string;
  minWidth: number;
  columns: readonly string[];
  row: (item: T, index: number) => ReactNode;
}) {
  return (
    <QueryState query={props.query} isEmpty={props.empty === undefined ? undefined : (page) => page.data.length === 0} empty={props.empty}>
      {(page) => (
        <DataTable label={props.label} minWidth={props.minWidth} columns={props.columns}>
          {page.data.map(props.row)}
        </DataTable>
      )}
    </QueryState>
  );
}
