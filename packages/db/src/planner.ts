/** Planner settings a database is opened with (OpenDatabaseOptions.pageCost), the same on both drivers. */

/** Whether a value can be a page cost: written into a startup packet and a SET statement, a positive number and nothing else. */
export const isPageCost = (value: number): boolean => Number.isFinite(value) && value > 0;

/** The settings for a page cost: none when absent (the server's own stay); both page costs when given. */
export function pageCostSettings(pageCost: number | undefined): [name: string, value: string][] {
  if (pageCost === undefined) return [];
  if (!isPageCost(pageCost)) throw new Error(`pageCost must be a positive number, got ${pageCost}`);
  return [
    ['seq_page_cost', String(pageCost)],
    ['random_page_cost', String(pageCost)],
  ];
}
