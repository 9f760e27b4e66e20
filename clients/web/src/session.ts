import { useQuery } from '@tanstack/react-query';
import { ApiError, get } from './api.ts';
import type { Session } from './types.ts';

/** The signed-in person, asked of the server now, or null when nobody is (a 401); other failures are errors. */
export async function fetchSession(): Promise<Session | null> {
  try {
    return await get<Session>('/api/v1/session');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

/** The signed-in person, or null when nobody is (a 401); other failures are errors. */
export function useSession() {
  return useQuery({ queryKey: ['session'], queryFn: fetchSession, staleTime: 60_000 });
}
