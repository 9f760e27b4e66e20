import { useEffect, useRef, useState } from 'react';
import { Button, Center, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, get } from '../api.ts';
import { ErrorNotice } from '../components/States.tsx';
import { fetchSession } from '../session.ts';
import type { Session, User } from '../types.ts';

/**
 * Why a single sign-on was refused: the server sends only a code (#error=<code>), shown in our own
 * words, so a crafted link cannot put its text on this page; a code not listed gets one general message.
 */
const REFUSALS = new Map([
  ['sign_in_failed', 'Single sign-on did not finish: it took too long, began in another browser, or the identity provider refused it. Start again.'],
  ['not_a_user', 'No Lode user has this verified email: ask an administrator to add you.'],
]);
const UNKNOWN_REFUSAL = 'Single sign-on did not finish. Start again.';

/** A link's token held back until the person signed in here says it may replace their session (null: nobody could tell who). */
interface PendingSwitch {
  token: string;
  signedInAs: User | null;
}

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
      // Whatever was cached was the previous person's, if anyone was signed in.
      client.clear();
      client.setQueryData<Session>(['session'], { user: session.user });
      await navigate('/', { replace: true });
    },
  });
  // Each token is spent once, even under StrictMode's double effects; a link opened while this page
  // shows changes only the fragment, hence the hashchange listener.
  const spent = useRef(new Set<string>());
  const [pending, setPending] = useState<PendingSwitch | null>(null);
  const [refused] = useState(() => {
    const code = new URLSearchParams(window.location.hash.slice(1)).get('error');
    return code === null ? null : new Error(REFUSALS.get(code) ?? UNKNOWN_REFUSAL);
  });
  const { mutate } = redeem;
  useEffect(() => {
    const takeTokenInHash = async () => {
      const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
      if (!token || spent.current.has(token)) return;
      spent.current.add(token);
      window.history.replaceState(null, '', '/sign-in');
      // Anyone can send anyone a link: one opened by a person already signed in would silently make
      // them the link's user. They choose; when who is signed in cannot be told, they are asked too.
      const current = await fetchSession().catch(() => undefined);
      if (current === null) mutate(token);
      else setPending({ token, signedInAs: current?.user ?? null });
    };
    const onHash = () => void takeTokenInHash();
    onHash();
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [mutate]);

  const switchToLink = (token: string) => {
    setPending(null);
    mutate(token);
  };
  const keepSession = async () => {
    setPending(null);
    await navigate('/', { replace: true });
  };

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="xl" maw={420} w="100%">
        <Stack>
          <Title order={2}>Sign in to Lode</Title>
          {redeem.isPending && <Text>Signing you in…</Text>}
          <ErrorNotice error={redeem.error ?? refused} />
          {pending ? (
            <Stack role="region" aria-label="Already signed in">
              <Text>{pending.signedInAs ? `You are signed in as ${pending.signedInAs.name}.` : 'Lode could not tell whether you are signed in already.'}</Text>
              <Text size="sm">
                This sign-in link signs in the person it was made for, in place of your session in this browser. Use it only if you asked for it.
              </Text>
              <Group>
                <Button onClick={() => switchToLink(pending.token)}>Sign in with this link</Button>
                <Button variant="default" onClick={() => void keepSession()}>
                  {pending.signedInAs ? `Stay signed in as ${pending.signedInAs.name}` : 'Cancel'}
                </Button>
              </Group>
            </Stack>
          ) : (
            <>
              <Text size="sm" c="dimmed">
                Open the sign-in link an administrator gave you (npm run admin -- sign-in-link --user NAME). A link works once, for 15 minutes.
              </Text>
              {options.data?.oidc && (
                <Button component="a" href="/api/v1/session/oidc/start">
                  Sign in with single sign-on
                </Button>
              )}
            </>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
