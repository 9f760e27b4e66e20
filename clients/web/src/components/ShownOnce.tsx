import { Alert, Button, Code, CopyButton, Group } from '@mantine/core';

/** A secret the server shows only at creation (an API key, a webhook's signing secret), with a copy button. */
export function ShownOnce(props: { title: string; value: string; testId?: string }) {
  return (
    <Alert color="green" title={props.title}>
      <Group gap="xs" wrap="nowrap">
        <Code data-testid={props.testId} style={{ wordBreak: 'break-all' }}>
          {props.value}
        </Code>
        <CopyButton value={props.value}>
          {({ copied, copy }) => (
            <Button size="xs" onClick={copy}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Alert>
  );
}
