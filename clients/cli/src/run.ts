import type { Command } from 'commander';
import { connect, type Context, type GlobalOptions } from './context.ts';
import { EXIT, interrupted, toCliError } from './failure.ts';
import { Output } from './output.ts';

/** Ctrl-C aborts transfers in flight; the journal keeps what was done. */
const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('interrupted')));
/** Aborted by Ctrl-C: the signal for a command's calls, which replaces Node's own exit on Ctrl-C. */
export const interruption = controller.signal;

/**
 * Wraps a command's body: its options merged with the global ones, every failure reported (as JSON
 * with `--json`) and turned into the exit code. Commander passes the command last.
 */
export function action<A extends unknown[]>(body: (...args: A) => Promise<number | void>): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const options = command.optsWithGlobals<GlobalOptions>();
    const merged = [...args.slice(0, -2), { ...(args[args.length - 2] as object), ...options }] as A;
    try {
      process.exitCode = (await body(...merged)) ?? EXIT.ok;
    } catch (error) {
      // Whatever the abort made the call in flight throw ("aborted", "This operation was aborted"), say what happened.
      const failure = controller.signal.aborted ? interrupted() : toCliError(error);
      new Output(Boolean(options.json)).failure(failure);
      process.exitCode = failure.exitCode;
    }
  };
}

/** The same for commands that talk to the server: they get a connected context. */
export function connected<A extends unknown[]>(body: (ctx: Context, ...args: A) => Promise<number | void>): (...args: unknown[]) => Promise<void> {
  return action(async (...args: A) => {
    const options = args[args.length - 1] as GlobalOptions;
    return body(await connect(options, controller.signal), ...args);
  });
}
