/**
 * The Node flags each service process of the stack runs with: `npm start` uses them, and so do the
 * bench's stacks, so that they measure what `npm start` runs.
 *
 * `--wasm-tiering-budget`: V8 recompiles a WebAssembly function with its optimising compiler once it
 * has executed a budget of about 1.8 MB of code. PGlite's boot runs enough of PostgreSQL once to push
 * hundreds of functions past that budget. Measured on a Minds start-up on an existing data directory:
 * 1.7 s of CPU on V8's worker threads with the default budget, 1.2 s with ten times the budget. With
 * both services starting at once on two cores, the stack answered /v1/status in 3.3 s instead of 3.8 s
 * (median of 5 interleaved runs). The functions a running service keeps calling still cross the
 * larger budget within seconds of load: an interleaved A/B of a forwarded getMind showed no change in
 * CPU per request (gateway 621 → 606 µs, Minds 754 → 726 µs).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--wasm-tiering-budget=18000000'];
