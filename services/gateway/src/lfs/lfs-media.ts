import type { Response } from 'express';
import type { ErrorAnswer } from '../http/error-handler.ts';

/** The Git LFS API's media type: every request and answer of it, errors included. */
export const LFS_MEDIA_TYPE = 'application/vnd.git-lfs+json';

export function sendLfs(res: Response, status: number, body: object): void {
  res.status(status).type(LFS_MEDIA_TYPE).send(JSON.stringify(body));
}

/**
 * A refusal as git-lfs reads one: `message` (which git prints), `request_id`, and Lode's own `code`
 * and details beside them. A 401 carries the challenge git-lfs answers with the credentials its
 * helper stores; LFS-Authenticate rather than WWW-Authenticate, so a browser shows no password
 * prompt. Device refusals say where git-lfs takes the device id from.
 */
export const answerLfs: ErrorAnswer = (res, status, failure) => {
  if (status === 401) res.setHeader('LFS-Authenticate', 'Basic realm="Lode"');
  const hint = failure.code === 'device_mismatch' ? ' (git-lfs sends the user name of its credentials as the device id)' : '';
  sendLfs(res, status, {
    ...failure.toJSON(),
    message: `${failure.message}${hint}`,
    request_id: res.locals.requestId as string,
  });
};
