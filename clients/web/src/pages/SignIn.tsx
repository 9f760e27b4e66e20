import { useEffect, useRef, useState } from 'react';
import { Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, get } from '../api.ts';
import { ErrorNotice } from '../components/States.tsx';
import type { Session } from '../types.ts';

/**
 * Sign-in: a one-time link lands here with its token in the fragment (#token=…), which this page
 * spends with a POST; otherwise it offers single sign-on when the server has it.
 */
export function SignInPage() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const options = useQuery({ queryKey: ['session-options'], queryFn: () => get<{ oidc: boolean }>('/api/v1/session/options') });
  const redeem = useMutation({
    mutationFn: (token: string) => api<Session>('POST', '/api/v1/session', { token }),
    onSuccess: async (session) => {
      client.setQueryData<Session>(['session'], { user: session.user });
      await navigate('/', { replace: true });
    },
  });
  // Each token is spent once, even under StrictMode's double effects; a link opened while this page
  // shows changes only the fragment, hence the hashchange listener.
  const spent = useRef(new Set<string>());
  // A refused single sign-on comes back as #error=<message>.
  const [refused] = useState(() => {
    const message = new URLSearchParams(window.location.hash.slice(1)).get('error');
    return message ? new Error(message) : null;
  });
  const { mutate } = redeem;
  useEffect(() => {
    const spendTokenInHash = () => {
      const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
      if (!token || spent.current.has(token)) return;
      spent.current.add(token);
      window.history.replaceState(null, '', '/sign-in');
      mutate(token);
    };
    spendTokenInHash();
    window.addEventListener('hashchange', spendTokenInHash);
    return () => window.removeEventListener('hashchange', spendTokenInHash);
  }, [mutate]);

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="xl" maw={420} w="100%">
        <Stack>
          <Title order={2}>Sign in to Lode</Title>
          {redeem.isPending && <Text>Signing you in…</Text>}
          <ErrorNotice error={redeem.error ?? refused} />
          <Text size="sm" c="dimmed">
            Open the sign-in link an administrator gave you (npm run admin -- sign-in-link --user NAME). A link works once, for 15 minutes.
          </Text>
          {options.data?.oidc && (
            <Button component="a" href="/api/v1/session/oidc/start">
              Sign in with single sign-on
            </Button>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
