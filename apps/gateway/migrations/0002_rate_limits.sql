-- The shared rate limiter's counters (RATE_LIMIT_STORE=postgres), in rate-limiter-flexible's own
-- layout. Made here, under the migration lock, so that gateways starting at once never race to
-- create it; the limiter is told the table exists (rate-limit.ts).
create table if not exists rate_limits (
  key varchar(255) primary key,
  points integer not null default 0,
  expire bigint
);
