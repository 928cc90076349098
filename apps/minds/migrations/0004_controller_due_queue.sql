-- The controller's work queue (src/controller/controller.ts): each Mind says when it next needs the
-- controller (due_at; NULL when nothing is to be done until its desired state changes) and in which
-- lane. Lane 0 is changed work: a new desired generation, one not yet handed to the host or not yet
-- finished, a pending or uncertain observation. Lane 1 is a running Mind's heartbeat. A tick claims
-- lane 0 before lane 1, each oldest due first, through this index, so new work never waits behind
-- a scan of the running Minds. A claim moves due_at to the end of its lease: a replica that stops
-- mid-claim leaves the Mind due again when the lease runs out.
ALTER TABLE minds ADD COLUMN due_lane smallint NOT NULL DEFAULT 0 CHECK (due_lane IN (0, 1));
ALTER TABLE minds ADD COLUMN due_at timestamptz DEFAULT now();
UPDATE minds SET
  due_lane = CASE
    WHEN host_requested_generation < desired_generation
      OR (observed_generation < desired_generation AND observed_state <> 'failed')
      OR observed_state IN ('pending', 'uncertain') THEN 0
    ELSE 1 END,
  due_at = CASE
    WHEN host_requested_generation < desired_generation
      OR (observed_generation < desired_generation AND observed_state <> 'failed')
      OR observed_state IN ('pending', 'uncertain')
      OR observed_state = 'running' THEN now()
    ELSE NULL END;
CREATE INDEX minds_due ON minds (due_lane, due_at) WHERE due_at IS NOT NULL;
