import type { ReactNode } from 'react';
import { Table } from '@mantine/core';

/**
 * A striped table that scrolls sideways below `minWidth` rather than squeezing its columns, so
 * every list reads the same on a phone; `columns` are the header cells, `children` the rows.
 */
export function DataTable(props: {
  label: string;
  minWidth: number;
  columns: readonly string[];
  highlightOnHover?: boolean;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <Table.ScrollContainer minWidth={props.minWidth}>
      <Table striped highlightOnHover={props.highlightOnHover} aria-label={props.label}>
        <Table.Thead>
          <Table.Tr>
            {props.columns.map((column) => (
              <Table.Th key={column}>{column}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{props.children}</Table.Tbody>
      </Table>
      {props.footer}
    </Table.ScrollContainer>
  );
}
