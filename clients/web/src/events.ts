import type { Webhook } from './types.ts';

/** A type of the public event catalogue (docs/api.md, Public events): what a webhook subscribes to and the live feed streams. */
export type EventType = Webhook['events'][number];

/**
 * The public event catalogue, in its order, each type with whether the project's pages show what it
 * reports (and so refresh on it). Checked against the SDK's generated API types, which follow the
 * server's catalogue through the OpenAPI document: a type added to the catalogue fails to compile
 * here until it is listed, and so does one listed here that the API does not accept.
 */
const CATALOGUE = {
  'commit.created': true,
  'lock.acquired': true,
  'lock.released': true,
  'branch.created': true,
  'branch.deleted': true,
  // The organization's plugins: no page of the dashboard shows them.
  'plugin.published': false,
  // An obliteration or a retention run changes the files' histories, the storage figures and the
  // retention rules' last run; a quota warning follows new storage figures.
  'file.obliterated': true,
  'retention.applied': true,
  'quota.warning': true,
} satisfies Record<EventType, boolean>;

/** Every type a webhook accepts: what the webhook form offers. */
export const EVENT_TYPES = Object.keys(CATALOGUE) as EventType[];

/** The types the project's pages refresh on, from the live feed. */
export const LIVE_TYPES = EVENT_TYPES.filter((type) => CATALOGUE[type]);
