/**
 * What the EBICS end-to-end tests read from the sandbox EBICS bank's admin API, waiting for a
 * state of it (an event at the bank, never a time), and running their workflows.
 */
import { nodeError, sleep, type ExecuteResult } from './n8n';
import type { Stack } from './stack';
import type { WorkflowJson } from './workflows';

/** The EBICS credential type. */
export const EBICS_CREDENTIAL = 'corporateBankingEbicsApi';

export interface EbicsBankFile {
	id?: number;
	serviceName: string;
	msgName: string;
	name: string;
	delivered: boolean;
}

/** A subscriber's end-of-day statements (camt.053) at the bank. */
export async function statementsAt(stack: Stack, partnerId: string, userId: string): Promise<EbicsBankFile[]> {
	const { subscribers } = await stack.bank.admin<{ subscribers: Array<{ partnerId: string; userId: string; files: EbicsBankFile[] }> }>('GET', '/ebics/subscribers');
	const subscriber = subscribers.find((s) => s.partnerId === partnerId && s.userId === userId)!;
	return subscriber.files.filter((f) => f.serviceName === 'EOP' && f.msgName === 'camt.053');
}

/** Reads until `check` holds; fails naming `what` (and the last value read) after 3 minutes. */
export async function until<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
	const deadline = Date.now() + 180_000;
	for (;;) {
		const value = await read();
		if (check(value)) return value;
		if (Date.now() > deadline) throw new Error(`waited 180 s for ${what}; last: ${JSON.stringify(value)}`);
		await sleep(500);
	}
}

/** A workflow to import, its EBICS nodes using `credential`, under this id and name. */
export function withEbicsCredential(workflow: WorkflowJson, credential: { id: string; name: string }, id: string, name: string): WorkflowJson {
	for (const node of workflow.nodes) if (node.credentials?.[EBICS_CREDENTIAL]) node.credentials[EBICS_CREDENTIAL] = { ...credential };
	return { ...workflow, id, name, active: false, settings: { executionOrder: 'v1' } };
}

/**
 * Runs a workflow with `n8n execute` (n8n stopped first: both share the database), keeps its
 * output in `outputs` for the secret checks, and expects no node to have failed.
 */
export async function executeCleanly(stack: Stack, id: string, outputs: string[]): Promise<ExecuteResult> {
	await stack.n8n.stop();
	const result = await stack.n8n.execute(id);
	outputs.push(result.output);
	if (!result.run) throw new Error(`no run JSON in the output of n8n execute (exit ${result.exitCode}):\n${result.output.slice(-3000)}`);
	for (const name of Object.keys(result.run.data.resultData.runData)) expect([name, nodeError(result.run, name)?.message]).toEqual([name, undefined]);
	return result;
}

/** Manual Trigger -> one EBICS node named `name` with these parameters (its credential set by withEbicsCredential). */
export function ebicsNodeWorkflow(name: string, parameters: Record<string, unknown>): WorkflowJson {
	return {
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'ebics', name, type: 'n8n-nodes-corporate-banking.ebics', typeVersion: 1, position: [240, 0], parameters, credentials: { [EBICS_CREDENTIAL]: { id: '', name: '' } } },
		],
		connections: { Start: { main: [[{ node: name, type: 'main', index: 0 }]] } },
	} as WorkflowJson;
}
