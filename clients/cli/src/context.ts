import { LodeClient, type RetryEvent } from '@lode/sdk';
import { Output } from './output.ts';
import { resolveConnection } from './settings.ts';

export interface GlobalOptions {
  json?: boolean;
  verbose?: boolean;
}

/** What every command that talks to the server starts from. */
export interface Context {
  client: LodeClient;
  out: Output;
  signal: AbortSignal;
}

export async function connect(options: GlobalOptions, signal: AbortSignal): Promise<Context> {
  const out = new Output(Boolean(options.json));
  const connection = await resolveConnection();
  const client = new LodeClient({ ...connection, onRetry: retryNotes(out, options.verbose) });
  return { client, out, signal };
}

/** With --verbose, each retry of a call is told on stderr. */
export function retryNotes(out: Output, verbose: boolean | undefined): ((event: RetryEvent) => void) | undefined {
  return verbose ? (e) => out.note(`retrying ${e.method} ${e.path} in ${e.delayMs} ms (${e.reason})`) : undefined;
}
