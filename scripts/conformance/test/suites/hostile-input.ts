/**
 * Hostile input, generated from the spec.
 *
 * For every operation of the contract, fast-check generates requests that
 * break ONE constraint of the operation (src/hostile/mutations.ts): a missing
 * required field, a wrong type, a pattern, a bound, a UTF-8 byte limit within
 * the character bound, an unknown field on a closed body, a bad UUID or ULID,
 * a wrong content type, a body over 64 KiB, malformed JSON, a body on a read,
 * a query where none is taken, a broken header, look-alike and bidi
 * characters. They are sent through the real gateway to the real Minds service
 * with a valid credential of the right kind, so that validation is what
 * refuses them, and each must get its documented code (spec/DECISIONS.md,
 * "Which code for a validation failure") in an ErrorEnvelope that validates,
 * never a 5xx, and change nothing in either service's database.
 *
 * The last two tests send the edges between valid and broken (src/hostile/edges.ts:
 * U+0000, lone surrogates, bytes that are not UTF-8, malformed percent-encodings,
 * `__proto__` query names, an infinite `limit`, impossible dates): each must be
 * refused with its location's code or stored exactly. They are kept out of the
 * generated batch so that it stays a regression net for new 5xx; today they
 * fail, and their message lists every defect.
 *
 * HOSTILE_SEED reproduces a run (the seed is printed); HOSTILE_PER_OPERATION
 * (default 372: 10,044 requests over the 27 operations) and HOSTILE_CONCURRENCY
 * (default 8) size it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack, type Topology } from '@gateway-minds/testkit';
import { HttpClient } from '../../src/hostile/client.js';
import { probeEdges, textEdges, urlEdges } from '../../src/hostile/edges.js';
import { Api, buildWorld, fixtureOf, settle, type World } from '../../src/hostile/fixture.js';
import { sampleHostile } from '../../src/hostile/mutations.js';
import type { Fixture } from '../../src/hostile/requests.js';
import { describeFailure, report, sendAll, tally } from '../../src/hostile/run.js';
import { apiSnapshot, snapshotDiff, sqlSnapshot, type Snapshot } from '../../src/hostile/snapshot.js';
import { operations as allOperations, operationSpec, responseProblems, validationCodes } from '../../src/hostile/spec.js';
import { validSamples, type SampleState } from '../../src/hostile/valid.js';

const seed = Number(process.env.HOSTILE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const perOperation = Number(process.env.HOSTILE_PER_OPERATION ?? 372);
const concurrency = Number(process.env.HOSTILE_CONCURRENCY ?? 8);

/** The suite against one of npm start's topologies: each test file runs it against one. */
export function hostileInputSuite(topology: Topology): void {
  describe(`${topology} topology`, () => {
    let stack: Stack;
    let client: HttpClient;
    let world: World;
    let fixture: Fixture;
    let owner: Api;
    let agent: Api;
    const usageWindow = { from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 86_400_000).toISOString() };

    beforeAll(async () => {
      // Rate limiting (per credential after authentication, per address on the verification): lift it so that it is never what refuses.
      stack = await startStack({ topology, gatewayEnv: { RATE_LIMIT_POINTS: '100000000', VERIFY_RATE_LIMIT_POINTS: '100000000', UNNAMED_PATH_RATE_LIMIT_POINTS: '100000000' } });
      client = new HttpClient(stack.url, concurrency);
      world = await buildWorld(stack, client);
      fixture = fixtureOf(world);
      owner = new Api(client, world.session);
      agent = new Api(client, world.agentToken);
      console.log(`hostile input: seed ${seed} (HOSTILE_SEED=${seed} reproduces this run), ${perOperation} requests per operation`);
    });

    afterAll(async () => {
      client?.close();
      await stack?.close();
    });

    /** Every table of both services; the Minds service through the API when its database is out of reach (PGlite). */
    async function snapshot(role: 'before' | 'after'): Promise<{ how: string; state: Snapshot; serverErrors: number }> {
      const db = stack.gateway.db;
      const { rows } = await db.query<{ schema: string }>('select current_schema() as schema');
      const gatewaySchema = rows[0]!.schema;
      const state = await sqlSnapshot(db, gatewaySchema);
      const counts = await db.query<{ n: number }>(`select coalesce(sum(server_errors), 0)::int as n from "${gatewaySchema}".request_counts`);
      let how = `SQL: ${gatewaySchema}`;
      // testkit gives the Minds service the schema named like the gateway's (minds_e2e_<suffix>) on the same server.
      const mindsSchema = gatewaySchema.replace(/^gateway_/, 'minds_');
      const found = db.driver === 'postgres' && (await db.query('select 1 from information_schema.schemata where schema_name = $1', [mindsSchema])).rows.length === 1;
      if (found) {
        Object.assign(state, await sqlSnapshot(db, mindsSchema));
        how += ` + ${mindsSchema}`;
      } else {
        const minds = await apiSnapshot(owner, agent, [world.mindId], { owner: [world.ownerEvent.storageId], agent: [world.agentEvent.storageId] }, world.mindId, usageWindow, role);
        for (const [key, rows] of Object.entries(minds)) state[`api ${key}`] = rows;
        how += ' + the Minds API (its PGlite database is not reachable from here)';
      }
      return { how, state, serverErrors: counts.rows[0]!.n };
    }

    const flushUsage = () => new Promise((r) => setTimeout(r, 1_200)); // the gateway writes its request counts once a second

    describe('hostile input', () => {
      it('valid requests from the spec are accepted (success or a documented business refusal)', async () => {
        const samples = validSamples(fixture, world, seed);
        const state: SampleState = { world, saved: {} };
        const problems: string[] = [];
        const perOperationCount = new Map<string, number>();
        const slowest: [number, string][] = [];
        for (const sample of samples) {
          const operation = operationSpec(sample.operation);
          const answer = await client.send(sample.build(state));
          slowest.push([answer.ms, `${sample.operation} (${sample.note.slice(0, 40)})`]);
          perOperationCount.set(sample.operation, (perOperationCount.get(sample.operation) ?? 0) + 1);
          const code = answer.json?.error?.code as string | undefined;
          const label = `${sample.operation} (${sample.note})`;
          if (answer.status >= 500) problems.push(`${label}: ${answer.status} ${code}`);
          else if (sample.success && answer.status !== operation.facts.successStatus) problems.push(`${label}: expected ${operation.facts.successStatus}, got ${answer.status} ${answer.text.slice(0, 200)}`);
          else if (answer.status >= 400 && (!code || validationCodes.has(code as never))) problems.push(`${label}: refused by validation: ${answer.status} ${answer.text.slice(0, 300)}`);
          problems.push(...responseProblems(operation, answer.status, answer.json).map((p) => `${label}: response: ${p}`));
          if (sample.save && answer.status < 300) state.saved[sample.save] = answer.json;
          if (sample.check && answer.status < 300) problems.push(...(await sample.check(answer, state, (r) => client.send(r))).map((p) => `${label}: ${p}`));
        }
        slowest.sort((a, b) => b[0] - a[0]);
        console.log(`valid samples: ${samples.length} requests over ${perOperationCount.size} operations; slowest: ${slowest.slice(0, 3).map(([ms, what]) => `${what} ${Math.round(ms)} ms`).join(', ')}`);
        expect(perOperationCount.size).toBe(allOperations.length);
        expect(problems).toEqual([]);
      }, 60_000);

      it(`at least 10,000 hostile requests get their documented 4xx in a valid envelope, no 5xx, and change nothing`, async () => {
        await settle(owner);
        const before = await snapshot('before');
        const cases = allOperations.flatMap((operation, index) => sampleHostile(operation, fixture, perOperation, seed + index));
        const started = performance.now();
        const verdicts = await sendAll(client, cases, concurrency);
        const seconds = (performance.now() - started) / 1000;
        await flushUsage();
        const after = await snapshot('after');

        const result = tally(verdicts);
        console.log(`hostile input, seed ${seed}:\n${report(result, seconds)}\nnothing changed? compared ${Object.keys(before.state).length} tables/views by ${before.how}`);
        for (const failure of result.failures.slice(0, 25)) console.log(`FAIL ${describeFailure(failure)}`);

        expect.soft(verdicts.length).toBeGreaterThanOrEqual(10_000);
        expect.soft(new Set(verdicts.map((v) => v.case.operation)).size).toBe(allOperations.length);
        expect.soft(result.serverErrors).toBe(0);
        expect.soft(after.serverErrors - before.serverErrors, 'server errors counted by the gateway').toBe(0);
        expect.soft(result.failures.slice(0, 25).map(describeFailure)).toEqual([]);
        expect.soft(snapshotDiff(before.state, after.state), 'the databases changed').toEqual([]);
      }, 240_000);
    });

    describe('hostile input: edges between valid and broken (refused with the location code, or stored exactly; never 5xx)', () => {
      it('U+0000, lone surrogates and bytes that are not UTF-8 in text fields', async () => {
        expect(await probeEdges(client, textEdges(fixture, world))).toEqual([]);
      });

      it('malformed percent-encodings in identifiers, query names the parser drops, an infinite limit, impossible dates', async () => {
        expect(await probeEdges(client, urlEdges(fixture, world))).toEqual([]);
      });
    });
  });
}
