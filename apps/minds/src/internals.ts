/**
 * The pieces under the service's HTTP surface that the benchmarks measure alone (scripts/bench): the
 * memory search statement, the Mind view reader and what a Mind's status is derived from. Not an
 * interface for other services; they speak to the Minds service over HTTP.
 */
export { MINDS_PAGE_COST, DEFAULT_REGION, migrationsDir } from './service.js';
export { SERVICE_AUDIENCE } from './auth.js';
export { SEARCH_RANKING_WINDOW, IDEMPOTENCY_HEADER, CREATION_CONTEXT_HEADER } from './spec.js';
export { insertEvent, searchEvents, searchParams, OWNER_NAMESPACE, SEARCH_SQL, type MemoryScope } from './memory/store.js';
export { mindViewReader, type Tenant } from './minds/store.js';
export { MIND_SERVICES } from './minds/lifecycle.js';
export { resolveCapacity } from './minds/profiles.js';
export { deriveStatus } from './controller/state.js';
