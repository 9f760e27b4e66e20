import { createInterface } from 'node:readline/promises';

/** Asks one question on the terminal (on stderr, so stdout stays the command's result) and answers what was typed. */
export async function ask(question: string): Promise<string> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await prompt.question(question)).trim();
  } finally {
    prompt.close();
  }
}

/** Whether commands that ask before acting for good may ask here: a terminal on both ends, and no --json. */
export function canAsk(json: boolean): boolean {
  return !json && process.stdin.isTTY && process.stderr.isTTY;
}
