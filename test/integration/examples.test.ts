import { MANUAL_TRIGGER_TYPE, STICKY_NOTE_TYPE } from '../harness/engine';
import { useSandbox } from '../helpers/bank';
import { PIN_EXAMPLES, pinCredential } from '../e2e/lib/workflows';
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

	it.each(Object.entries(PIN_EXAMPLES))('%s runs with a credential holding only a PIN (%s), and the run enrols it', async (file, bank) => {
		const result = await runExample(file, sandbox.bank());
		expect(result.status).toBe('success');
		const stored = result.store.get(pinCredential(bank).id)!.data;
		expect(stored.pin).toBe('');
		expect(String(stored.enrolmentStatus)).toMatch(/enrolled \d{4}-\d\d-\d\d/);
	});
});
