-- The id of every public event recorded, kept longer than the event itself: an internal event handed
-- over again after its public event left the feed (the embedded mode replays the services' retained
-- outboxes at every start) must still be recognised, or it would be recorded and delivered twice.
-- How long an id is kept: domain/id-retention-plan.ts.
CREATE TABLE recorded_event_ids (
  id          uuid PRIMARY KEY,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recorded_event_ids_by_age ON recorded_event_ids (recorded_at);

INSERT INTO recorded_event_ids (id, recorded_at) SELECT id, recorded_at FROM public_events;
