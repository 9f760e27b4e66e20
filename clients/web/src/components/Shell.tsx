import { Anchor, AppShell, Button, Center, Group, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, Navigate, Outlet, useNavigate } from 'react-router';
import { api } from '../api.ts';
import { useSession } from '../session.ts';
import { ErrorNotice, Loading } from './States.tsx';

/** Every signed-in page: the header with who is signed in and sign-out; nobody signed in goes to /sign-in. */
export function Shell() {
  const session = useSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: () => api('DELETE', '/api/v1/session'),
    onSettled: async () => {
      client.clear();
      await navigate('/sign-in');
    },
  });
  if (session.isPending) {
    return (
      <Center h="100vh">
        <Loading />
      </Center>
    );
  }
  if (session.isError) return <ErrorNotice error={session.error} />;
  if (!session.data) return <Navigate to="/sign-in" replace />;
  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Anchor component={Link} to="/" underline="never" c="inherit">
            <Title order={3}>Lode</Title>
          </Anchor>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" visibleFrom="xs">
              {session.data.user.name}
            </Text>
            <Button variant="default" size="xs" onClick={() => signOut.mutate()} loading={signOut.isPending}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
