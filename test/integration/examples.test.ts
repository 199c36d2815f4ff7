import { MANUAL_TRIGGER_TYPE, STICKY_NOTE_TYPE } from '../harness/engine';
import { useSandbox } from '../helpers/bank';
import { manualExamples, runExample } from '../helpers/examples';

const sandbox = useSandbox();

describe('example workflows run unchanged through the n8n engine against the sandbox bank', () => {
	const files = manualExamples();
	it('finds the examples', () => {
		expect(files).toEqual(expect.arrayContaining(['fx-trade-report.json', 'fx-trade-execution.json', 'bank-mock-service.json', 'file-service-statements.json']));
	});
	it.each(files)('%s', async (file) => {
		const result = await runExample(file, sandbox.bank());
		expect(result.error).toBeUndefined();
		expect(result.status).toBe('success');
		for (const node of result.workflow.nodes) {
			if (node.type === MANUAL_TRIGGER_TYPE || node.type === STICKY_NOTE_TYPE) continue;
			expect(result.nodeError(node.name)).toBeUndefined();
			expect(result.output(node.name).length).toBeGreaterThan(0);
		}
	});
});
