/**
 * The Bank Event Trigger in a real n8n: the example workflow is published and `n8n start` runs it
 * on its own (activation polls at once, then on its schedule) against the sandbox bank over mutual
 * TLS. Executions are read back from n8n's sqlite database. n8n is then stopped, more events are
 * queued and n8n is started again: only the new events may arrive.
 */
import { readFileSync } from 'node:fs';

import { expectNoNodeErrors, finished, waitForEmitted } from './lib/executions';
import { N8N_VERSION } from './lib/install';
import { nodeItems, type StoredExecution } from './lib/n8n';
import { skipAll, useTriggerExample, type Stack } from './lib/stack';
import {
	exampleUsing,
	missingNodeTypes,
	packageManifest,
	PACKAGE_NAME,
	type WorkflowJson,
	type WorkflowNode,
} from './lib/workflows';

const TRIGGER = 'bankEventTrigger';
const OB = 'urn:uk:org:openbanking:events:';
const EVENTS_OUTPUT = 0;
const REJECTED_OUTPUT = 1;

const manifest = packageManifest();
const example = exampleUsing(TRIGGER);
const missing = example ? missingNodeTypes(example.workflow) : [TRIGGER];
const skipReason = !manifest.nodes.includes(TRIGGER)
	? `package.json does not list the ${TRIGGER} node`
	: !example
		? 'no example workflow uses the Bank Event Trigger'
		: missing.length
			? `package.json does not list ${missing.join(', ')} (used by examples/${example.file})`
			: undefined;

interface Emitted {
	jti: string;
	execution: string;
	output: number;
	json: Record<string, unknown>;
}

let stack: Stack | undefined;
let trigger: WorkflowNode;
let workflow: WorkflowJson;
let id: string;
const batch1: { emitted: string[]; filtered: string[]; rejected: string[] } = {
	emitted: [],
	filtered: [],
	rejected: [],
};
let batch2: string[] = [];

/** Items the trigger emitted in every finished execution so far. */
function emitted(executions: StoredExecution[]): Emitted[] {
	return executions.flatMap((e) =>
		[EVENTS_OUTPUT, REJECTED_OUTPUT].flatMap((output) =>
			(e.run ? nodeItems(e.run, trigger.name, output) : []).map((item) => ({
				jti: String(item.json.jti ?? ''),
				execution: e.id,
				output,
				json: item.json,
			})),
		),
	);
}

/** Waits until every jti wanted has been emitted by finished trigger executions. */
async function waitForEvents(wanted: string[]): Promise<StoredExecution[]> {
	return await waitForEmitted(
		stack!.n8n,
		id,
		wanted,
		(done) => emitted(done).map((e) => e.jti),
		'events',
		120_000,
	);
}

const selectedTypes = (): string[] =>
	((trigger.parameters.eventTypes as string[] | undefined) ?? []).map(String);

if (skipReason) skipAll('Bank Event Trigger in real n8n', skipReason);
else {
	({ workflow, trigger, id } = useTriggerExample(
		example!,
		TRIGGER,
		(started) => (stack = started),
	));

	describe(`examples/${example!.file} ("${example!.workflow.name}"): published and run by n8n ${N8N_VERSION} start`, () => {
		it('first start: one item per queued event of the selected types on the Events output, the bad-signature event on Rejected, other types dropped; the following nodes ran', async () => {
			const s = stack!;
			const selected = selectedTypes();
			const types = [
				`${OB}resource-update`,
				`${OB}consent-authorization-revoked`,
				`${OB}account-access-consent-linked-account-update`,
			];
			const wanted = types.filter((t) => !selected.length || selected.includes(t));
			const dropped = types.filter((t) => !wanted.includes(t));
			const good = [
				...wanted.map((type) => ({
					type,
					eventData: type.endsWith('revoked') ? { reason: 'customer_request' } : {},
				})),
				{ type: wanted[0] },
			];
			batch1.emitted = (
				await s.bank.admin<{ jtis: string[] }>('POST', '/events', { events: good })
			).jtis;
			batch1.filtered = (
				await s.bank.admin<{ jtis: string[] }>('POST', '/events', {
					events: dropped.map((type) => ({ type })),
				})
			).jtis;
			batch1.rejected = (
				await s.bank.admin<{ jtis: string[] }>('POST', '/events', {
					events: [{ type: wanted[0], defect: 'badSignature' }],
				})
			).jtis;

			await s.n8n.publish(id);
			await s.n8n.start();
			const executions = await waitForEvents([...batch1.emitted, ...batch1.rejected]);
			const all = emitted(executions);

			const events = all.filter((e) => e.output === EVENTS_OUTPUT);
			expect(events.map((e) => e.jti).sort()).toEqual([...batch1.emitted].sort());
			for (const e of events) {
				expect(wanted).toContain(e.json.eventType);
				expect(e.json).toMatchObject({
					iss: s.bank.state.events.issuer,
					aud: s.bank.state.events.audience,
				});
				expect(typeof e.json.sub).toBe('string');
			}
			expect(all.filter((e) => e.output === REJECTED_OUTPUT).map((e) => e.jti)).toEqual(
				batch1.rejected,
			);
			for (const jti of batch1.filtered) expect(all.some((e) => e.jti === jti)).toBe(false);

			for (const execution of executions) {
				expect(execution.mode).toBe('trigger');
				expect(execution.status).toBe('success');
				expectNoNodeErrors(execution, workflow);
			}
			// nodes after the Events output ran on the events
			const first = executions.find((e) => emitted([e]).some((x) => x.output === EVENTS_OUTPUT))!;
			const connections = workflow.connections[trigger.name] as {
				main: Array<Array<{ node: string }>>;
			};
			for (const { node } of connections.main[EVENTS_OUTPUT] ?? []) {
				const ran = first.run!.data.resultData.runData[node];
				expect([node, ran?.length ?? 0]).toEqual([node, 1]);
				if (workflow.nodes.find((n) => n.name === node)?.type.startsWith(PACKAGE_NAME))
					expect(nodeItems(first.run!, node).length).toBeGreaterThan(0);
			}
		});

		it('restart: n8n stopped, two more events queued, n8n started again: only the two new events are emitted, no event twice; the bank got the acknowledgements of the first batch and the report of the rejected one', async () => {
			const s = stack!;
			expect(batch1.emitted.length).toBeGreaterThan(0);
			await s.n8n.stop();
			const before = s.n8n.executions(id).length;
			batch2 = (
				await s.bank.admin<{ jtis: string[] }>('POST', '/events', {
					events: [{ type: `${OB}resource-update` }, { type: `${OB}resource-update` }],
				})
			).jtis;
			await s.n8n.start();
			const executions = await waitForEvents(batch2);
			// n8n's graceful stop lets running executions finish: once it has stopped, every
			// execution of this run is stored, one carrying a wrongly re-delivered event included.
			await s.n8n.stop();
			const all = emitted(s.n8n.executions(id).filter(finished));
			expect(executions.length).toBeGreaterThan(before);

			const jtis = all.map((e) => e.jti).sort();
			expect(jtis).toEqual([...batch1.emitted, ...batch1.rejected, ...batch2].sort());
			const afterRestart = emitted(executions.slice(before))
				.map((e) => e.jti)
				.sort();
			expect(afterRestart).toEqual([...batch2].sort());

			const stats = await s.bank.admin<{
				eventsAcked: string[];
				setErrsReceived: Array<Record<string, unknown>>;
			}>('GET', '/stats');
			for (const jti of [...batch1.emitted, ...batch1.filtered])
				expect(stats.eventsAcked).toContain(jti);
			expect(JSON.stringify(stats.setErrsReceived)).toContain(batch1.rejected[0]);
		});

		it("no access token appears in the stored executions or in n8n's log", async () => {
			const s = stack!;
			await s.n8n.stop();
			const tokens = (await s.n8n.decryptedCredentials())
				.flatMap((c) => Object.entries(c.data))
				.filter(
					([key, value]) => /token$/i.test(key) && typeof value === 'string' && value.length >= 12,
				)
				.map(([, value]) => value as string);
			expect(tokens.length).toBeGreaterThan(0);
			const stored = JSON.stringify(s.n8n.executions(id));
			const log = readFileSync(s.n8n.logFile, 'utf8');
			expect(tokens.filter((t) => stored.includes(t) || log.includes(t)).length).toBe(0);
		});
	});
}
