/** Planner settings a database is opened with (OpenDatabaseOptions.pageCost), the same on both drivers. */

/** The settings for a page cost: none when absent (the server's own stay); both page costs when given. */
export function pageCostSettings(pageCost: number | undefined): [name: string, value: string][] {
  if (pageCost === undefined) return [];
  // Written into a startup packet and a SET statement: a number and nothing else.
  if (!Number.isFinite(pageCost) || pageCost <= 0) throw new Error(`pageCost must be a positive number, got ${pageCost}`);
  return [
    ['seq_page_cost', String(pageCost)],
    ['random_page_cost', String(pageCost)],
  ];
}
