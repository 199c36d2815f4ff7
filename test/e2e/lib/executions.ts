/**
 * What `n8n start` ran on its own: the stored executions of a published workflow, read back from
 * n8n's database until a trigger has emitted everything the bank was given.
 */
import { readFileSync } from 'node:fs';

import { nodeError, sleep, type N8n, type StoredExecution } from './n8n';
import type { WorkflowJson } from './workflows';

/** An execution n8n is done with, whichever way it ended. */
export const finished = (e: StoredExecution): boolean =>
	e.finished || ['success', 'error', 'crashed', 'canceled'].includes(e.status);

/**
 * Waits until every wanted key (a file reference, an event's jti) has been emitted by finished
 * executions of the workflow and none is still running; returns the finished executions.
 * `emittedKeys` reads the keys out of them; `what` names the keys in the time-out error, which
 * also lists the executions and ends with the tail of n8n's log.
 */
export async function waitForEmitted(
	n8n: N8n,
	workflowId: string,
	wanted: string[],
	emittedKeys: (done: StoredExecution[]) => string[],
	what: string,
	timeoutMs: number,
): Promise<StoredExecution[]> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const executions = n8n.executions(workflowId);
		const done = executions.filter(finished);
		const seen = new Set(emittedKeys(done));
		if (executions.length === done.length && wanted.every((k) => seen.has(k))) return done;
		if (Date.now() > deadline)
			throw new Error(
				`waited ${timeoutMs / 1000} s for ${what} ${wanted.filter((k) => !seen.has(k)).join(', ')}; executions: ${JSON.stringify(executions.map((e) => ({ id: e.id, status: e.status, mode: e.mode })))}\n` +
					readFileSync(n8n.logFile, 'utf8').slice(-3000),
			);
		await sleep(1000);
	}
}

/** No node of the workflow has an error in the execution. */
export function expectNoNodeErrors(execution: StoredExecution, workflow: WorkflowJson): void {
	for (const node of workflow.nodes)
		expect([node.name, execution.run && nodeError(execution.run, node.name)?.message]).toEqual([
			node.name,
			undefined,
		]);
}
