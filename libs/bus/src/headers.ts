/** NATS message headers of Lode's bus protocol. */
export const H = {
  /** Set on an error reply: the AppError code; the body is `{code, message, ...details}`. */
  error: 'Lode-Error',
  /** `i/n` on each frame of a payload split because it exceeds the server's max_payload. */
  chunk: 'Lode-Chunk',
  /** On a large request's opening message: the byte length of the request to follow in chunks. */
  requestBytes: 'Lode-Request-Bytes',
  /** On the responder's answer to that opening: the private subject to stream the chunks to. */
  sendTo: 'Lode-Send-To',
  /** The gateway's request id, so a service's log lines name the API request they served. */
  requestId: 'Lode-Request-Id',
} as const;
