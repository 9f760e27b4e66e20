import { isAppError } from '@lode/errors';
import { instruments, secondsSince, type Instruments } from '@lode/telemetry';

type Side = Instruments['busCallDuration'];

/** Times work into a bus histogram by subject and outcome: `ok`, the AppError's code, or `error`. */
export async function measured<T>(histogram: Side, subject: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  let outcome = 'ok';
  try {
    return await work();
  } catch (error) {
    outcome = isAppError(error) ? error.code : 'error';
    throw error;
  } finally {
    histogram.record(secondsSince(started), { 'messaging.destination.name': subject, outcome });
  }
}

export const callHistogram = (): Side => instruments().busCallDuration;
export const handlerHistogram = (): Side => instruments().busHandlerDuration;
