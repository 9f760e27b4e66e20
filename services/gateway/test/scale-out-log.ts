import { jetstreamManager, type ConsumerInfo, type SequenceInfo } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { commit } from '@lode/contracts';
import type { TryOutcome } from '@lode/testkit';

/**
 * The scale-out run's account of itself, written to the test's output as it goes: each line carries
 * the wall clock, to line it up with the processes' own logs, and the time since the run started.
 * A run that stalls in CI then shows which step it was in and what it last saw.
 */
export class RunLog {
  readonly #started = performance.now();
  /** Each phase's first mark, in ms since the start, for the summary of a run that passed. */
  readonly phases: Record<string, number> = {};

  /** A phase begins (or a step ends): recorded for the summary and written at once. */
  mark(phase: string, details?: string): void {
    this.phases[phase] ??= this.#elapsed();
    this.line(details === undefined ? phase : `${phase}: ${details}`);
  }

  line(text: string): void {
    process.stdout.write(`[scale-out ${new Date().toISOString()} +${this.#elapsed()} ms] ${text}\n`);
  }

  #elapsed(): number {
    return Math.round(performance.now() - this.#started);
  }
}

/** One try of a sync probe as a log line: its status and the answer's code, message and details, or the error that ended it. */
export function describeTry(outcome: TryOutcome): string {
  const tried = `${outcome.method} ${outcome.path} try ${outcome.attempt} via ${outcome.gateway}`;
  const next = outcome.retrying ? ', retrying' : '';
  if (outcome.status === undefined) return `${tried}: no answer (${outcome.error ?? 'unknown error'})${next}`;
  if (outcome.status === 200) return `${tried}: 200`;
  const answer = JSON.stringify(outcome.body) ?? '';
  return `${tried}: ${outcome.status} ${answer.length > 1000 ? `${answer.slice(0, 1000)}…` : answer}${next}`;
}

/**
 * The state of every durable consumer of the run's event stream, one line each: what is still to
 * deliver (num_pending), delivered and not acknowledged (num_ack_pending), delivered more than once
 * (num_redelivered), and how far acknowledgement (ack_floor) and delivery have come. The stream is
 * found by the namespaced subject its events go to. Never throws: a failing run's report must not
 * be lost to a failing diagnosis.
 */
export async function jetStreamConsumers(natsUrl: string, namespace: string): Promise<string> {
  try {
    const nc = await connect({ servers: natsUrl.split(','), name: 'scale-out-diagnosis', timeout: 5000 });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = await jsm.streams.find(`${namespace}.${commit.commitCreated.subject}`);
      const { state } = await jsm.streams.info(stream);
      const lines = [`stream ${stream}: ${state.messages} events, sequence ${state.first_seq}..${state.last_seq}`];
      for await (const consumer of jsm.consumers.list(stream)) {
        if (consumer.config.durable_name !== undefined) lines.push(`  ${describeConsumer(consumer)}`);
      }
      return lines.join('\n');
    } finally {
      await nc.close();
    }
  } catch (error) {
    return `the JetStream consumers could not be read: ${(error as Error).message}`;
  }
}

function describeConsumer(c: ConsumerInfo): string {
  const position = (s: SequenceInfo) => `consumer_seq ${s.consumer_seq} stream_seq ${s.stream_seq} last_active ${String(s.last_active ?? '-')}`;
  return (
    `${c.name} (${c.config.filter_subject ?? 'all subjects'}): num_pending ${c.num_pending}, num_ack_pending ${c.num_ack_pending}, ` +
    `num_redelivered ${c.num_redelivered}, num_waiting ${c.num_waiting}, ack_floor {${position(c.ack_floor)}}, delivered {${position(c.delivered)}}`
  );
}
