import { LodeClient } from '@lode/sdk';
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
  const client = new LodeClient({
    ...connection,
    onRetry: options.verbose ? (e) => out.note(`retrying ${e.method} ${e.path} in ${e.delayMs} ms (${e.reason})`) : undefined,
  });
  return { client, out, signal };
}
