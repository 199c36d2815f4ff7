/**
 * Runs every example workflow against the local sandbox bank through the n8n workflow engine and
 * prints what each node returned.
 */
import '../test/harness/env';

import { MANUAL_TRIGGER_TYPE, STICKY_NOTE_TYPE } from '../test/harness/engine';
import { manualExamples, runExample } from '../test/helpers/examples';
import { startSandbox } from '../test/sandbox';

function summarise(json: Record<string, unknown>): string {
	const keys = ['tradeId', 'counterpart', 'product', 'maturityDate', 'executionId', 'fileReference', 'FileReference', 'fileName', 'status', 'error'];
	const parts = keys.filter((k) => json[k] !== undefined && json[k] !== null).map((k) => `${k}=${String(json[k])}`);
	for (const k of ['sold', 'bought']) {
		const m = json[k] as { currency?: string; amount?: number } | undefined;
		if (m?.currency) parts.push(`${k}=${m.amount} ${m.currency}`);
	}
	return parts.slice(0, 6).join(', ') || JSON.stringify(json).slice(0, 100);
}

async function main(): Promise<void> {
	const bank = await startSandbox({ seed: 42, mockErrorRate: 0.2 });
	console.log(`Sandbox bank running at ${bank.urls.base} (mutual TLS at ${bank.urls.mtlsBase})\n`);
	let failures = 0;
	try {
		for (const file of manualExamples()) {
			const result = await runExample(file, bank);
			console.log(`== ${result.workflow.name ?? file}  (examples/${file}) -> ${result.status}`);
			for (const node of result.workflow.nodes) {
				if (node.type === MANUAL_TRIGGER_TYPE || node.type === STICKY_NOTE_TYPE) continue;
				const error = result.nodeError(node.name);
				if (error) {
					failures++;
					console.log(`   ${node.name}: ERROR ${error.message}`);
					continue;
				}
				const items = result.output(node.name);
				console.log(`   ${node.name}: ${items.length} item(s)`);
				for (const item of items.slice(0, 3)) console.log(`     - ${summarise(item.json)}${item.binary ? ` [file: ${Object.values(item.binary)[0].fileName}]` : ''}`);
				if (items.length > 3) console.log(`     ... and ${items.length - 3} more`);
			}
			console.log('');
		}
		console.log(`Bank saw ${bank.stats.tokenRequests} token request(s), ${bank.stats.executions} trade execution(s), ${bank.stats.mockCalls} mock call(s) (${bank.stats.mockErrors} random errors survived).`);
	} finally {
		await bank.stop();
	}
	process.exit(failures ? 1 : 0);
}

void main();
