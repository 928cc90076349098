-- The search index takes each event's words at once instead of collecting them in a
-- pending list first. Every search reads the whole pending list (up to 4 MB) until a
-- vacuum merges it, and PGlite never vacuums: measured at 100k events, a rare word's
-- index scan took 4.9 ms with the list and 1.5 ms without. Inserts pay about 8% (scripts/bench).
ALTER INDEX memory_events_search SET (fastupdate = off);
SELECT gin_clean_pending_list('memory_events_search'::regclass);
