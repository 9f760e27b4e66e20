-- The webhooks service's schema: the public event catalogue as the live feed reads it, the
-- projects' webhooks, and the delivery log that is also the retry schedule. No other service reads it.

-- A project's webhook endpoints (docs/api.md, Webhooks). The secret signs deliveries (Standard
-- Webhooks): kept as issued, since signing needs it, and answered only when made.
CREATE TABLE webhooks (
  id              uuid PRIMARY KEY,
  project_id      uuid NOT NULL,
  url             text NOT NULL,
  events          text[] NOT NULL,
  description     text NOT NULL DEFAULT '',
  secret          text NOT NULL,
  disabled        boolean NOT NULL DEFAULT false,
  disabled_reason text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_by_project ON webhooks (project_id, created_at, id);

-- Each project's last feed position: taking the next one row-locks it until the event's transaction
-- commits, so positions become visible in order and a reader paging by position never skips one.
CREATE TABLE feed_heads (
  project_id uuid PRIMARY KEY,
  last_position bigint NOT NULL
);

-- Public events, kept for the feed's retention. `id` is derived from the internal event's id, so an
-- internal event delivered twice is recorded (and delivered to webhooks) once.
CREATE TABLE public_events (
  project_id  uuid NOT NULL,
  position    bigint NOT NULL,
  id          uuid NOT NULL UNIQUE,
  type        text NOT NULL,
  envelope    jsonb NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, position)
);
CREATE INDEX public_events_by_age ON public_events (recorded_at);

-- One row per (webhook, event): the delivery log and the retry schedule. `body` is the exact JSON
-- that is signed and sent, so every attempt sends the same bytes under the same webhook-id. A
-- delivery being attempted has next_attempt_at moved past the request's timeout first (its lease):
-- if the process dies mid-request, the row comes due again by itself and nothing is lost.
CREATE TABLE deliveries (
  seq             bigserial PRIMARY KEY,
  webhook_id      uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id        uuid NOT NULL,
  event_type      text NOT NULL,
  body            text NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  last_status     integer,
  last_error      text,
  next_attempt_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  delivered_at    timestamptz,
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, seq DESC);
CREATE INDEX deliveries_by_age ON deliveries (created_at) WHERE status <> 'pending';
