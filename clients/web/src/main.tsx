import '@mantine/core/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { MantineProvider } from '@mantine/core';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ApiError } from './api.ts';
import { Shell } from './components/Shell.tsx';
import { SignInPage } from './pages/SignIn.tsx';
import { HomePage } from './pages/Home.tsx';
import { ProjectLayout } from './pages/ProjectLayout.tsx';
import { FilesPage } from './pages/Files.tsx';
import { FilePage } from './pages/FilePage.tsx';
import { CommitsPage, CommitPage } from './pages/Commits.tsx';
import { BranchesPage } from './pages/Branches.tsx';
import { LocksPage } from './pages/Locks.tsx';
import { KeysPage } from './pages/Keys.tsx';
import { MembersPage } from './pages/Members.tsx';
import { SettingsPage } from './pages/Settings.tsx';
import { StoragePage } from './pages/Storage.tsx';

/**
 * An ended or idle-expired session makes every call answer 401: asking again who is signed in then
 * finds nobody, and the shell sends the person to sign in, rather than each page showing the error.
 */
function signInAgainOnUnauthorized(error: Error): void {
  if (error instanceof ApiError && error.status === 401) void queryClient.invalidateQueries({ queryKey: ['session'] });
}

const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: signInAgainOnUnauthorized }),
  mutationCache: new MutationCache({ onError: signInAgainOnUnauthorized }),
  defaultOptions: {
    // A 4xx will not change by asking again; a 5xx or a network error may.
    queries: { retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2 },
  },
});

const router = createBrowserRouter([
  { path: '/sign-in', element: <SignInPage /> },
  {
    element: <Shell />,
    children: [
      { path: '/', element: <HomePage /> },
      {
        path: '/projects/:projectId',
        element: <ProjectLayout />,
        children: [
          { index: true, element: <FilesPage /> },
          { path: 'files', element: <FilesPage /> },
          { path: 'files/:fileId', element: <FilePage /> },
          { path: 'commits', element: <CommitsPage /> },
          { path: 'commits/:commitId', element: <CommitPage /> },
          { path: 'branches', element: <BranchesPage /> },
          { path: 'locks', element: <LocksPage /> },
          { path: 'storage', element: <StoragePage /> },
          { path: 'keys', element: <KeysPage /> },
          { path: 'members', element: <MembersPage /> },
          { path: 'settings', element: <SettingsPage /> },
        ],
      },
    ],
  },
]);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
