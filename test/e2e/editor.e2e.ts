/**
 * The editor as a treasury user meets it: real n8n with the packed package, the sandbox
 * bank, every example imported, driven in headless Chromium (Debian's `chromium` with
 * playwright-core). Values are typed the way a person types them, key by key, and each test
 * asserts what the person sees and what the bank received.
 *
 * Every node panel is saved under docs/panels/ (docs/editor.md shows them).
 *
 * Waiting is always for something to appear (a text, a marker, a response), never for time.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { DateTime } from 'luxon';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

import {
	choose as chooseOption,
	emptyMarker as emptyMarkerOf,
	escapeRegExp,
	executeStep as executeStepOf,
	goTo,
	outputPane,
	panelEntry as panelEntryOf,
	parameterInput,
	retype,
	searchNewWorkflow as searchNodePanel,
	seeInOutput as seeInOutputOf,
	typeDate as typeDay,
	typeInto as typeIntoField,
} from './lib/editor';
import { pinForm, pinFormLines } from './lib/enrolment';
import { ensureChromium, N8N_VERSION } from './lib/install';
import { PROJECT_ROOT } from './lib/sandbox';
import { requireContext, skipAll, startStack, type Stack } from './lib/stack';
import { launchChromium, setupOwner } from './lib/ui';
import {
	credentialId,
	exampleFiles,
	isManual,
	loadExample,
	packageManifest,
	PACKAGE_NAME,
	workflowId,
	type WorkflowJson,
} from './lib/workflows';

export const PANELS_DIR = path.join(PROJECT_ROOT, 'docs', 'panels');

const chromium = ensureChromium((line) => process.stderr.write(`[e2e] ${line}\n`));
const manifest = packageManifest();
const examples = exampleFiles().map((file) => ({ file, workflow: loadExample(file) }));

interface BankStats {
	executions: number;
	executionBodies: Array<Record<string, unknown>>;
}

interface BankFileState {
	fileReference: string;
	fileType: string;
	status: string;
	userFilename?: string;
}

let stack: Stack | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;

const baseUrl = () => stack!.n8n.baseUrl;
const stats = async () => await stack!.bank.admin<BankStats>('GET', '/stats');

/** The example and node id of the first node of a type in the examples. */
function exampleNode(type: string): { id: string; file: string; workflow: WorkflowJson; node: { id: string; name: string } } {
	for (const { file, workflow } of examples) {
		const node = (workflow.nodes as Array<{ id: string; name: string; type: string }>).find(
			(n) => n.type === `${PACKAGE_NAME}.${type}`,
		);
		if (node) return { id: workflowId(file), file, workflow, node };
	}
	throw new Error(`no example uses ${type}`);
}

/** Goes to a page of the editor; what to wait for is up to the caller. */
async function goto(route: string): Promise<void> {
	await goTo(page, baseUrl(), route);
}

/** Opens a node's panel the way a link to it does, and waits for its parameters. */
async function openNode(type: string): Promise<Locator> {
	const { id, node } = exampleNode(type);
	await goto(`/workflow/${id}/${node.id}`);
	const ndv = page.locator('[data-test-id="ndv"]');
	await ndv.locator('[data-test-id="node-parameters"]').waitFor();
	return ndv;
}

const field = (name: string): Locator => parameterInput(page, name);
const emptyMarker = (name: string): Locator => emptyMarkerOf(page, name);
const typeInto = async (name: string, text: string): Promise<void> => await typeIntoField(page, name, text);
const choose = async (name: string, option: string): Promise<void> => await chooseOption(page, name, option);
const typeDate = async (name: string, date: string): Promise<void> => await typeDay(page, name, date);

/** Chooses the mode of a resource locator field (From list, Code) unless it shows it already. */
async function switchMode(rl: Locator, mode: string): Promise<void> {
	const selector = rl.locator('[data-test-id="rlc-mode-selector"]');
	if ((await selector.locator('input').first().inputValue()).toLowerCase() === mode.toLowerCase()) return;
	await selector.click();
	await page.getByRole('option', { name: new RegExp(`^${escapeRegExp(mode)}`, 'i') }).first().click();
}

/** A currency field switched to its Code mode, with a code typed key by key; waits until saved. */
async function typeCurrencyCode(name: string, code: string): Promise<void> {
	const rl = page.locator(`[data-test-id="resource-locator-${name}"]`);
	await switchMode(rl, 'Code');
	const input = rl.locator('input[data-test-id="rlc-input"]');
	const saved = page.waitForRequest(
		(request) => /\/rest\/workflows\//.test(request.url()) && request.method() !== 'GET' && (request.postData() ?? '').includes(`"value":${JSON.stringify(code)}`),
	);
	await retype(input, code, { leave: 'Tab' });
	await saved;
}

/** A currency picked from the list by searching for it, as the example has it. */
async function pickCurrency(name: string, search: string, option: string): Promise<void> {
	const rl = page.locator(`[data-test-id="resource-locator-${name}"]`);
	await switchMode(rl, 'From list');
	const code = option.slice(0, 3);
	const saved = page.waitForRequest((request) => {
		const body = request.postData() ?? '';
		return /\/rest\/workflows\//.test(request.url()) && request.method() !== 'GET' && body.includes(`"value":"${code}"`) && body.includes('"mode":"list"');
	});
	await rl.locator('[data-test-id="rlc-input"]').click();
	await page.keyboard.type(search);
	await page.getByText(option).first().click();
	await saved;
}

const searchNewWorkflow = async (term: string): Promise<void> => await searchNodePanel(page, baseUrl(), term);
const panelEntry = (name: string): Locator => panelEntryOf(page, name);
const executeStep = async (): Promise<void> => await executeStepOf(page);
const output = (): Locator => outputPane(page);
const seeInOutput = async (text: string | RegExp): Promise<void> => await seeInOutputOf(page, text);

async function panelShot(name: string, what: Locator = page.locator('[data-test-id="ndv"]')): Promise<void> {
	mkdirSync(PANELS_DIR, { recursive: true });
	await what.screenshot({ path: path.join(PANELS_DIR, `${name}.png`) });
}

/**
 * An action of the entry open in the node panel: on an empty canvas n8n lists the entry's trigger
 * first and may show its actions folded under their heading ("Actions", or "<Resource> Actions");
 * a person unfolds them.
 */
async function showAction(action: string): Promise<void> {
	const creator = page.locator('[data-test-id="node-creator"]');
	const item = creator.getByText(action, { exact: true });
	const heading = creator.getByText(/Actions\b/).first();
	await item.or(heading).first().waitFor();
	if (!(await item.isVisible())) await heading.click();
	await item.waitFor();
}

if (!chromium.path) skipAll('the editor in headless Chromium', chromium.reason ?? 'chromium is not available');
else {
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		stack = await startStack({ install, pkg, trustSandboxCa: true, n8nPort: 15700 });
		await stack.importExamples(examples.map((e) => e.file));
		await stack.n8n.start();
		const cookie = await setupOwner(stack.n8n.baseUrl);
		browser = await launchChromium(chromium.path!);
		context = await browser.newContext({ viewport: { width: 1440, height: 960 }, deviceScaleFactor: 1 });
		const { hostname } = new URL(stack.n8n.baseUrl);
		await context.addCookies([{ name: 'n8n-auth', value: cookie.slice('n8n-auth='.length), domain: hostname, path: '/' }]);
		// Generous: the machine may be busy. Every wait is for something to appear, so a fast
		// machine never waits this long.
		context.setDefaultTimeout(180_000);
		page = await context.newPage();
		// Leaving a workflow may ask whether to leave: a person says yes.
		page.on('dialog', (dialog) => void dialog.accept());
	}, 300_000);

	afterAll(async () => {
		await browser?.close();
		await stack?.stop();
	});

	describe(`the n8n ${N8N_VERSION} editor as a user meets it (headless Chromium, sandbox bank)`, () => {
		describe('every node of package.json', () => {
			for (const type of manifest.nodes) {
				it(`${type}: its panel opens from an example with its fields; saved as docs/panels/${type}.png`, async () => {
					const ndv = await openNode(type);
					await ndv.locator('[data-test-id="parameter-item"]').first().waitFor();
					expect(await ndv.locator('[data-test-id="node-issues"], [data-test-id="parameter-issues"]').count()).toBe(0);
					await panelShot(type);
				});
			}
		});

		describe('the node panel of an empty workflow', () => {
			it('"bank file" finds one Bank File entry holding the trigger and the Parse and Build actions; Build a payment file from items adds Bank File with Build Payment File', async () => {
				await searchNewWorkflow('bank file');
				// n8n folds a node and its "... Trigger" into one entry once the node has actions.
				await panelEntry('Bank File').click();
				const creator = page.locator('[data-test-id="node-creator"]');
				await creator.getByText('On new Bank File event', { exact: true }).waitFor();
				await showAction('Build a payment file from items');
				await creator.getByText('Parse a bank file into items', { exact: true }).waitFor();
				await creator.getByText('Build a direct debit file from items', { exact: true }).waitFor();
				await panelShot('bank-file-actions', creator);
				await creator.getByText('Build a payment file from items', { exact: true }).click();
				const ndv = page.locator('[data-test-id="ndv"]');
				await ndv.locator('[data-test-id="node-parameters"]').waitFor();
				expect(await field('operation').inputValue()).toBe('Build Payment File');
				await page.locator('[data-test-id="parameter-input-version"]').waitFor();
				await page.keyboard.press('Escape');
				// A manual trigger was added before it, and the node kept its name.
				const lines = (await page.locator('[data-test-id="canvas-node"]').allInnerTexts()).flatMap((n) => n.split('\n').map((l) => l.trim()));
				expect(lines).toEqual(expect.arrayContaining(['When clicking ‘Execute workflow’', 'Bank File']));
			});

			it('"bank file" adds the Bank File Trigger from the trigger in its entry', async () => {
				await searchNewWorkflow('bank file');
				await panelEntry('Bank File').click();
				await page.locator('[data-test-id="node-creator"]').getByText('On new Bank File event', { exact: true }).click();
				const addButton = page.getByRole('button', { name: 'Add to workflow' });
				const ndv = page.locator('[data-test-id="ndv"]');
				await ndv.locator('[data-test-id="node-parameters"]').or(addButton).first().waitFor();
				if (await addButton.isVisible()) await addButton.click();
				await ndv.getByText(/^Every file that arrives at the bank is emitted once/).waitFor();
				await page.keyboard.press('Escape');
			});

			it('"EBICS" lists its actions by resource; Get initialisation letters adds EBICS with Subscriber → Get Initialisation Letters, the canvas shows the operation\'s name; a resource chosen after gives its own first operation; saved as docs/panels/ebics-actions.png and ebics-canvas.png', async () => {
				await searchNewWorkflow('EBICS');
				await panelEntry('EBICS').click();
				const creator = page.locator('[data-test-id="node-creator"]');
				await creator.getByText('On new EBICS event', { exact: true }).waitFor();
				await showAction('Get initialisation letters');
				for (const action of ['Download bank files', 'Upload a payment file', 'Sign an order waiting for signatures', 'Get bank versions', 'Get customer acknowledgement'])
					await creator.getByText(action, { exact: true }).waitFor();
				await panelShot('ebics-actions', creator);
				await creator.getByText('Get initialisation letters', { exact: true }).click();
				const ndv = page.locator('[data-test-id="ndv"]');
				await ndv.locator('[data-test-id="node-parameters"]').waitFor();
				expect(await field('resource').inputValue()).toBe('Subscriber');
				expect(await field('operation').inputValue()).toBe('Get Initialisation Letters');
				await ndv.getByText(/^Gives the INI and HIA letters as one item/).waitFor();
				await panelShot('ebics-letters');
				await page.keyboard.press('Escape');
				const node = page.locator('[data-test-id="canvas-node"]').filter({ hasText: 'Get Initialisation Letters' });
				await node.waitFor();
				const lines = (await node.innerText()).split('\n').map((l) => l.trim());
				// n8n names a new node after its action; the subtitle is the operation's name, not its value.
				expect(lines).toEqual(expect.arrayContaining(['Get initialisation letters', 'Get Initialisation Letters']));
				expect(lines).not.toContain('initialisationLetters');
				mkdirSync(PANELS_DIR, { recursive: true });
				await page.locator('[data-test-id="canvas-wrapper"], #canvas').first().screenshot({ path: path.join(PANELS_DIR, 'ebics-canvas.png') });
				// Another resource: its own first operation, and its name on the canvas.
				await node.dblclick();
				await ndv.locator('[data-test-id="node-parameters"]').waitFor();
				await choose('resource', 'Bank');
				await page.waitForFunction(
					() => (document.querySelector('[data-test-id="parameter-input-operation"] input:not([type="hidden"])') as HTMLInputElement | null)?.value === 'Get Versions (HEV)',
				);
				await page.keyboard.press('Escape');
				await page.locator('[data-test-id="canvas-node"]').filter({ hasText: 'Get Versions (HEV)' }).waitFor();
			});

			it('Bank Mock Service offers its execute action beside the report actions; choosing it opens the execution API', async () => {
				await searchNewWorkflow('bank mock');
				await panelEntry('Bank Mock Service').click();
				const creator = page.locator('[data-test-id="node-creator"]');
				await creator.getByText('Get open trades', { exact: true }).waitFor();
				await creator.getByText('Execute an FX trade', { exact: true }).click();
				await page.locator('[data-test-id="ndv"] [data-test-id="node-parameters"]').waitFor();
				expect(await field('resource').inputValue()).toBe('FX Trade Execution');
				expect(await field('operation').inputValue()).toBe('Execute Trade');
				await page.keyboard.press('Escape');
			});
		});

		describe('FX Trade Execution', () => {
			it('says on the panel, before anything runs, that running the node trades', async () => {
				const ndv = await openNode('fxTradeExecution');
				await ndv.getByText(/^Running this node places a real FX trade at the bank for every input item/).waitFor();
				await ndv.getByText('Executing this node trades: each input item is sent to the bank as one real FX trade.').first().waitFor();
			});

			it.each([
				['-5', 'Amount: must be greater than zero, got -5'],
				['1,5', 'Amount: "1,5" uses a comma'],
				['1 000 000', 'Amount: "1 000 000" is not an amount'],
				['100.005', 'Amount: EUR amounts have at most 2 decimals, got "100.005"'],
			])('an Amount typed as %j is shown back as typed and refused with the field named; the bank receives nothing', async (typed, message) => {
				await stack!.bank.admin('POST', '/reset', { all: true });
				await openNode('fxTradeExecution');
				await typeInto('amount', typed);
				expect(await field('amount').inputValue()).toBe(typed);
				await executeStep();
				await seeInOutput(message);
				await seeInOutput('Nothing was sent to the bank.');
				expect((await stats()).executions).toBe(0);
			});

			it('an empty Amount is marked on the field and the step does not start; the bank receives nothing', async () => {
				await stack!.bank.admin('POST', '/reset', { all: true });
				await openNode('fxTradeExecution');
				await typeInto('amount', '');
				await emptyMarker('amount').waitFor();
				await executeStep();
				await page.getByText('Parameter "Amount" is required.').first().waitFor();
				expect((await stats()).executions).toBe(0);
			});

			it('-5, "EURO" and a past date are each marked on the panel as typed, and one run names all three in one error; the bank receives nothing', async () => {
				await stack!.bank.admin('POST', '/reset', { all: true });
				const ndv = await openNode('fxTradeExecution');
				await typeInto('amount', '-5');
				await ndv.getByText(/^Amount: not an amount the node sends/).waitFor();
				await typeCurrencyCode('buyCurrency', 'EURO');
				await ndv.getByText(/^Buy Currency: not an ISO 4217 currency code/).waitFor();
				await choose('maturityType', 'Date');
				const past = DateTime.now().minus({ days: 3 }).toISODate()!;
				await typeDate('maturityDate', past);
				expect([await field('amount').inputValue(), await field('maturityDate').inputValue()]).toEqual(['-5', past]);
				await executeStep();
				await seeInOutput(
					`3 fields to fix: (1) Buy Currency: "EURO" is not an ISO 4217 currency code (2) Amount: must be greater than zero, got -5 (3) Maturity Date: ${past} is in the past; it must be today or later`,
				);
				expect((await stats()).executions).toBe(0);
				// Back to the example's currency picked from the list, and its tenor.
				await pickCurrency('buyCurrency', 'danish', 'DKK: Danish Krone');
				await typeInto('maturityDate', '');
				await choose('maturityType', 'Tenor');
			});

			it('a typed amount and a typed maturity date reach the bank exactly as typed, and the output says a trade was placed', async () => {
				await stack!.bank.admin('POST', '/reset', { all: true });
				await openNode('fxTradeExecution');
				await typeInto('amount', '1500.50');
				await choose('maturityType', 'Date');
				// A day that does not exist stays as typed, marked: never turned into another day.
				await typeDate('maturityDate', '2026-13-01');
				expect(await field('maturityDate').inputValue()).toBe('2026-13-01');
				const notice = page.getByText(/^Maturity Date: not a day written YYYY-MM-DD/);
				await notice.waitFor();
				const date = DateTime.now().plus({ days: 40 }).toISODate()!;
				await typeDate('maturityDate', date);
				expect(await field('maturityDate').inputValue()).toBe(date);
				await notice.waitFor({ state: 'hidden' });
				await executeStep();
				await seeInOutput(/^This run placed 1 trade at the bank in the Sandbox environment\./);
				const bank = await stats();
				expect(bank.executions).toBe(1);
				expect(bank.executionBodies[0]).toMatchObject({ amount: 1500.5, maturityDate: date, buyCurrency: 'DKK', sellCurrency: 'EUR' });
				expect(bank.executionBodies[0]).not.toHaveProperty('tenor');
			});

			it('currencies are picked from the ISO 4217 list by searching for a name', async () => {
				await openNode('fxTradeExecution');
				const rl = page.locator('[data-test-id="resource-locator-buyCurrency"]');
				await rl.locator('[data-test-id="rlc-input"]').click();
				await page.keyboard.type('swiss');
				await page.getByText('CHF: Swiss Franc').first().click();
				const shown = await rl.locator('input').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
				expect(shown).toEqual(['From list', expect.stringMatching(/^CHF/)]);
			});
		});

		describe('Bank Event Trigger', () => {
			it('"Fetch Test Event" with nothing queued shows information and how to get a sample, not an error', async () => {
				await stack!.bank.admin('POST', '/reset', { all: true });
				await openNode('bankEventTrigger');
				await executeStep();
				await seeInOutput(/No events are waiting at the bank right now\. Nothing was acknowledged/);
				await seeInOutput(/Ask the bank to queue a test event/);
				await seeInOutput(/or publish the workflow \(the Publish button\)/);
				expect(await page.getByText('Problem in node').count()).toBe(0);
			});

			it('with an event queued, "Fetch Test Event" shows it and acknowledges nothing', async () => {
				const { jtis } = await stack!.bank.admin<{ jtis: string[] }>('POST', '/events', { count: 1 });
				await openNode('bankEventTrigger');
				await executeStep();
				await seeInOutput(jtis[0]);
				expect(await stack!.bank.admin<{ pending: string[] }>('GET', '/events')).toEqual({ pending: jtis });
			});
		});

		describe('Bank File Trigger', () => {
			it('"Fetch Test Event" carries a file, in Output Files and Parsed Entries, and leaves every new file new at the bank', async () => {
				await stack!.bank.admin('POST', '/reset', { all: true });
				const before = await stack!.bank.admin<BankFileState[]>('GET', '/files');
				const handedOut = before.filter((f) => f.fileType === 'XT' && f.status !== 'NEW');
				expect(handedOut.length).toBeGreaterThan(0);
				await openNode('bankFileTrigger');
				for (const mode of ['Files', 'Parsed Entries']) {
					await choose('output', mode);
					await executeStep();
					// Files: one item; Parsed Entries: the entries, the statement and the file.
					const count = output().locator('[data-test-id="ndv-items-count"]');
					await count.getByText(mode === 'Files' ? /^1 item$/ : /^([2-9]|\d{2,}) items$/).waitFor();
					await output().locator('[data-test-id="radio-button-binary"]').click();
					const file = output().locator('[data-test-id="ndv-binary-data_0"]');
					await file.getByText('File Name:').waitFor();
					const shown = await file.innerText();
					expect([mode, handedOut.some((f) => f.userFilename && shown.includes(f.userFilename))]).toEqual([mode, true]);
					if (mode === 'Files') {
						// What the test event is, in its JSON.
						await output().locator('[data-test-id="radio-button-json"]').click();
						await seeInOutput(/already handed out, downloaded again \(its status stays\)/);
					} else {
						// The entries to build the next steps on.
						await output().locator('[data-test-id="radio-button-schema"]').click();
						await output().getByText('bookingDate', { exact: true }).first().waitFor();
					}
				}
				const after = await stack!.bank.admin<BankFileState[]>('GET', '/files');
				for (const file of before) expect([file.fileReference, after.find((f) => f.fileReference === file.fileReference)?.status]).toEqual([file.fileReference, file.status]);
				await choose('output', 'Files');
			});
		});

		describe('enrolment from a PIN', () => {
			it('a PIN the demo prints, typed into a new File Service credential field by field, enrols it on Save; saved as docs/panels/credential-enrol-with-pin.png', async () => {
				const form = await pinForm(stack!.bank, 'op', path.join(stack!.n8n.userFolder, 'pins'));
				const printed = pinFormLines(form).join('\n');
				expect(printed).toContain(`PIN or Transfer Key:`);
				expect(printed).toContain(form.pin);
				expect(printed).toContain('choose "Enrol With a PIN From the Bank"');
				await goto('/home/credentials/create');
				await page.locator('[data-test-id="new-credential-type-select"]').click();
				await page.keyboard.type('Corporate Banking File');
				await page.locator('[data-test-id="new-credential-type-select-option"]').filter({ hasText: 'Corporate Banking File Service API' }).click();
				await page.locator('[data-test-id="new-credential-type-button"]').click();
				const dialog = page.locator('[data-test-id="credential-edit-dialog"]');
				await dialog.waitFor();
				for (const entry of form.fields.filter((f) => !f.optional)) {
					const box = dialog.locator(`[data-test-id="parameter-input-${entry.name}"]`);
					await box.waitFor();
					// The label the demo names is the one the person sees above the field.
					const label = dialog
						.locator('[data-test-id="credential-connection-parameter"]')
						.filter({ has: page.locator(`[data-test-id="parameter-input-${entry.name}"]`) })
						.locator('label')
						.first();
					// Its first line (the Fixed / Expression switch follows it; a required field has a *).
					expect((await label.innerText()).split('\n')[0].replace(/\s*\*\s*$/, '').trim()).toBe(entry.label);
					if (entry.kind === 'option') {
						await box.click();
						await page.getByRole('option', { name: new RegExp(`^${escapeRegExp(entry.value)}`) }).first().click();
						continue;
					}
					// A certificate is pasted from the file the demo names; everything else is typed.
					const input = box.locator('input:not([type="hidden"]), textarea').first();
					if (entry.kind === 'file') await retype(input, readFileSync(entry.file!, 'utf8'), { paste: true });
					else await retype(input, entry.value);
				}
				const name = await page.locator('[data-test-id="credential-name"]').innerText();
				await page.locator('[data-test-id="credential-save-button"]').click();
				await dialog.getByText(/Connection tested successfully|Couldn.t connect with these settings/).first().waitFor();
				if (await dialog.getByText(/Couldn.t connect with these settings/).count()) throw new Error(`enrolment failed: ${await dialog.innerText()}`);
				const { records } = await stack!.bank.admin<{ records: Array<{ command: string; responseCode: string }> }>('GET', '/enrolment');
				expect(records.map((r) => [r.command, r.responseCode])).toContainEqual(['GetCertificate', '00']);
				await page.keyboard.press('Escape');

				// Opened again, as a person checks it: enrolled, the PIN spent and cleared.
				const again = await browser!.newContext({ viewport: { width: 1440, height: 960 }, deviceScaleFactor: 1, storageState: await context.storageState() });
				try {
					const view = await again.newPage();
					await view.goto(`${baseUrl()}/home/credentials`, { waitUntil: 'commit' });
					await view.locator('[data-test-id="resources-list-item"]').filter({ hasText: name.trim() }).first().click();
					const reopened = view.locator('[data-test-id="credential-edit-dialog"]');
					const status = reopened.locator('[data-test-id="parameter-input-enrolmentStatus"] input');
					await status.waitFor();
					await view.waitForFunction((el) => (el as HTMLInputElement).value !== '', await status.elementHandle());
					expect(await status.inputValue()).toMatch(/^Certificate enrolled \d{4}-\d\d-\d\d; valid until /);
					expect(await reopened.locator('[data-test-id="parameter-input-pin"] input').first().inputValue()).toBe('');
					expect(await reopened.locator('[data-test-id="parameter-input-signingMode"] input').first().inputValue()).toBe('Enrol With a PIN From the Bank');
					// Every other field kept what was typed or pasted into it.
					for (const entry of form.fields.filter((f) => !f.optional && f.name !== 'pin')) {
						const input = reopened.locator(`[data-test-id="parameter-input-${entry.name}"]`).locator('input:not([type="hidden"]), textarea').first();
						expect([entry.label, (await input.inputValue()).trim()]).toEqual([entry.label, entry.value.trim()]);
					}
					// The picture starts at the Certificate field: the enrolment, the spent PIN, the status.
					await reopened
						.locator('[data-test-id="credential-connection-parameter"]')
						.filter({ has: view.locator('[data-test-id="parameter-input-signingMode"]') })
						.evaluate((el) => el.scrollIntoView({ block: 'start' }));
					mkdirSync(PANELS_DIR, { recursive: true });
					const shot = path.join(PANELS_DIR, 'credential-enrol-with-pin.png');
					await reopened.screenshot({ path: shot });
					expect(existsSync(shot)).toBe(true);
				} finally {
					await again.close();
				}
			});
		});

		describe('Bank Mock Service', () => {
			it("says in its output that the answer is the mock's example data", async () => {
				await openNode('bankMockService');
				await executeStep();
				await seeInOutput(/Example answer from the bank's mock service/);
			});
		});

		describe('Corporate File Service', () => {
			it('List Files that finds nothing says why in the output pane', async () => {
				await openNode('corporateFileService');
				// Everything new is downloaded first, so the next list of new files is empty.
				await stack!.bank.admin('POST', '/reset', { all: true });
				await executeStep();
				await output().locator('[data-test-id="ndv-data-container"]').waitFor();
				const { id, node } = exampleNode('corporateFileService');
				expect(node).toBeDefined();
				await goto(`/workflow/${id}`);
				await page.locator('[data-test-id="execute-workflow-button"]').click();
				await page.getByText('Workflow executed successfully').first().waitFor();
				await openNode('corporateFileService');
				await executeStep();
				await seeInOutput(/The bank has no new files .*A file stops being New once it has been downloaded/);
			});
		});

		describe('every example runs from the editor with "Execute workflow"', () => {
			for (const { file, workflow } of examples.filter((e) => isManual(e.workflow))) {
				it(`examples/${file}: every node succeeds`, async () => {
					await stack!.bank.admin('POST', '/reset', { all: true });
					await goto(`/workflow/${workflowId(file)}`);
					await page.locator('[data-test-id="execute-workflow-button"]').click();
					await page.getByText('Workflow executed successfully').first().waitFor();
					const nodes = (workflow.nodes as Array<{ type: string }>).filter((n) => n.type !== 'n8n-nodes-base.stickyNote').length;
					const marks = page.locator('[data-test-id="canvas-node-status-success"]');
					await marks.nth(nodes - 1).waitFor();
					expect(await marks.count()).toBe(nodes);
				});
			}
		});

		describe('every credential', () => {
			for (const type of manifest.credentials) {
				it(`${type}: opens, shows its certificates, masks its secrets, and its test passes against the sandbox`, async () => {
					await goto(`/home/credentials/${credentialId(type)}`);
					const dialog = page.locator('[data-test-id="credential-edit-dialog"]');
					await dialog.waitFor();
					// What the credential trusts the bank by, shown in clear: the CA of an HTTPS bank,
					// the pinned host key fingerprint of an SFTP server.
					const trust =
						type === 'corporateBankingSftpApi'
							? { field: 'hostKeyFingerprint', box: 'input', value: /^SHA256:[A-Za-z0-9+/]{43}$/ }
							: { field: 'caCertificate', box: 'textarea', value: /^-----BEGIN CERTIFICATE-----/ };
					const anchor = dialog.locator(`[data-test-id="parameter-input-${trust.field}"] ${trust.box}`);
					await anchor.waitFor();
					expect(await anchor.inputValue()).toMatch(trust.value);
					// n8n masks a one-line secret as a password input and a multi-line one as a
					// textarea drawn with discs (its "masked" style).
					const masked = (box: Locator) => box.locator('input[type="password"], textarea[class*="_masked_"]');
					expect(await masked(dialog.locator(`[data-test-id="parameter-input-${trust.field}"]`)).count()).toBe(0);
					for (const secret of ['privateKey', 'signingPrivateKey', 'clientId', 'pgpPrivateKey', 'password']) {
						const box = dialog.locator(`[data-test-id="parameter-input-${secret}"]`);
						if (await box.count()) expect([secret, await masked(box).count()]).toEqual([secret, 1]);
					}
					await dialog.getByText(/Connection tested successfully|Couldn.t connect with these settings/).first().waitFor();
					const failure = dialog.getByText(/Couldn.t connect with these settings/);
					if (await failure.count()) {
						await dialog.getByText('More details').first().click();
						throw new Error(`credential test failed: ${await dialog.innerText()}`);
					}
					mkdirSync(PANELS_DIR, { recursive: true });
					await dialog.screenshot({ path: path.join(PANELS_DIR, `credential-${type}.png`) });
					await page.keyboard.press('Escape');
				});
			}
		});
	});
}
