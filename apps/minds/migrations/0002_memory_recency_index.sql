-- Search ranks the newest matching events of a namespace (x-ranking-window):
-- this index hands them out newest first, ties broken by storage id, so a
-- search for a common word stops after the window instead of ranking every match.
CREATE INDEX memory_events_recent ON memory_events (mind_id, namespace, created_at, storage_id);
DROP INDEX memory_events_by_namespace;
