import type { ReactNode } from 'react';
import { Button, Group, Modal, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';

/**
 * A small red button for an action that cannot be undone (deleting a branch, revoking a key): it
 * opens a dialog saying what will happen, and only the dialog's button acts.
 */
export function ConfirmButton(props: { label: string; ariaLabel: string; title: string; message: ReactNode; confirm: string; onConfirm: () => void }) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button size="xs" color="red" variant="light" onClick={open} aria-label={props.ariaLabel}>
        {props.label}
      </Button>
      <Modal opened={opened} onClose={close} title={props.title} centered>
        <Text size="sm">{props.message}</Text>
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button
            color="red"
            onClick={() => {
              close();
              props.onConfirm();
            }}
          >
            {props.confirm}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
