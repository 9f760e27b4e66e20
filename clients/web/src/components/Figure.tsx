import { Paper, Text } from '@mantine/core';

/** One figure of a page (a size, a count), labelled for screen readers, with an optional word on what it counts. */
export function Figure(props: { label: string; value: string; hint?: string }) {
  return (
    <Paper withBorder p="sm" role="group" aria-label={props.label}>
      <Text size="xs" c="dimmed">
        {props.label}
      </Text>
      <Text fw={600} size="lg">
        {props.value}
      </Text>
      {props.hint && (
        <Text size="xs" c="dimmed">
          {props.hint}
        </Text>
      )}
    </Paper>
  );
}
