import { cursorSecretSetting } from '@lode/db';
import { outboxSettings } from '@lode/outbox';

/** Settings of the identity service, in its own process or embedded. */
export const identitySettings = {
  ...outboxSettings,
  /** Signs the admin lists' cursors (the same secret in every replica). */
  ...cursorSecretSetting,
};
