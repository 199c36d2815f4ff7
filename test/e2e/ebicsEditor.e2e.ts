/**
 * The first hour with EBICS in the editor, as a newcomer meets it with `npm run demo -- --ui`: one
 * real n8n with the packed package (trusting the sandbox's test CA, as the demo's does) and the
 * sandbox bank, headless Chromium; values typed key by key, as a person types them. Each test
 * asserts what the person sees (and, where it matters, what the bank got), and takes a picture of
 * it: the two docs/ebics.md shows under docs/ebics/, the others in corporate-banking-ebics-editor
 * of the system's temporary folder.
 *
 * 1. What the demo prints for EBICS typed into a new credential: the labels it names are the
 *    editor's, a hash being typed is marked until it is one, the dialog shows no status of its
 *    own (its values are those it opened with) but says where the status shows; Save sends INI
 *    and HIA and the test's answer names the step reached; the printed activation command
 *    activates the subscriber at this very bank.
 * 2. After the activation: opened again, the test's answer is that it is ready, and nothing in the
 *    dialog still says what was true before; a Save in that dialog is tested again and is ready;
 *    Get Initialisation Letters gives the status "Ready".
 * 3. The letters run in the editor: the hashes as fields on one line, each the bank's own hash of
 *    the key it received.
 * 4. The Upload's notice says whose signature it carries; its output names the subscriber.
 * 5. A second test download of new data says what Which Data brings the files again.
 * 6. The EBICS Trigger's panel names no EBICS version it cannot know.
 *
 * Waiting is always for something to appear (a text, a response), never for time.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { Browser, Locator, Page } from 'playwright-core';

import { ebicsForm, ebicsFormLines, ebicsNodeWorkflow, EBICS_CREDENTIAL, type EbicsForm } from './lib/ebicsSandbox';
import { credentialDialog, credentialEntry, runFromCanvas, escapeRegExp, executeStep, goTo, outputPane } from './lib/editor';
import { ensureChromium, N8N_VERSION } from './lib/install';
import { nodeError, nodeItems, type StoredExecution } from './lib/n8n';
import { PROJECT_ROOT } from './lib/sandbox';
import { requireContext, skipAll, startStack, type Stack } from './lib/stack';
import { openEditor } from './lib/ui';
import { loadExample, workflowId } from './lib/workflows';

/** The pictures docs/ebics.md shows; the others (each check's) go to a folder outside the package. */
const DOC_SHOTS = path.join(PROJECT_ROOT, 'docs', 'ebics');
const DOC_PICTURES = ['editor-credential-hash-typed.png', 'editor-credential-ready.png'];
const CHECK_SHOTS = path.join(os.tmpdir(), 'corporate-banking-ebics-editor');
const EXAMPLES = ['ebics-statements.json', 'ebics-payments.json', 'ebics-trigger.json'];

const chromium = ensureChromium((line) => process.stderr.write(`[e2e] ${line}\n`));

let stack: Stack;
let browser: Browser;
let page: Page;
let cookie: string;
let form: EbicsForm;
let printed: string[];
/** The credential made in the first test, as n8n saved it. */
let made: { id: string; name: string };

async function shot(locator: Locator | Page, name: string): Promise<void> {
	const folder = DOC_PICTURES.includes(name) ? DOC_SHOTS : CHECK_SHOTS;
	mkdirSync(folder, { recursive: true });
	await page.mouse.move(0, 0);
	await locator.screenshot({ path: path.join(folder, name) });
}

/** Waits until the output pane shows the text; a picture of the panel when it does not come. */
async function seeInOutput(text: string | RegExp): Promise<void> {
	try {
		await outputPane(page).getByText(text).first().waitFor({ timeout: 60_000 });
	} catch (error) {
		await shot(page, 'editor-failed.png');
		throw error;
	}
}

/** The credential dialog on screen (one the editor closed may stay in the page, hidden). */
const dialog = (): Locator => credentialDialog(page);
const ndv = (): Locator => page.locator('[data-test-id="ndv"]');

/** The form entry (label and input) of a credential field. */
const entryOf = (name: string): Locator => credentialEntry(page, name);

/** The notice that says where the subscriber's status shows. */
function statusNotice(): Locator {
	return dialog().getByText(/Where the subscriber stands shows above this notice after each test/).first();
}

/** What the dialog's fields show (labels, values, notices), without the test's answer at its top. */
async function fieldsText(): Promise<string> {
	const texts = await dialog().locator('[data-test-id="credential-connection-parameter"]').allInnerTexts();
	const values = await dialog().locator('[data-test-id="credential-connection-parameter"] input, [data-test-id="credential-connection-parameter"] textarea').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
	return [...texts, ...values].join('\n');
}

/** Opens a saved credential; resolves with what its test (n8n runs it on opening) answered. */
async function openCredential(id: string): Promise<{ status: string; message: string }> {
	const tested = page.waitForResponse((r) => /\/rest\/credentials\/test/.test(r.url()));
	await page.goto(`${stack.n8n.baseUrl}/home/credentials/${id}`, { waitUntil: 'commit' });
	await dialog().waitFor();
	return ((await (await tested).json()) as { data: { status: string; message: string } }).data;
}

interface BankSubscriber {
	partnerId: string;
	userId: string;
	state: string;
	certificateHashes: Record<'signature' | 'authentication' | 'encryption', string | null>;
}

async function subscriber(partnerId: string, userId: string): Promise<BankSubscriber> {
	const { subscribers } = await stack.bank.admin<{ subscribers: BankSubscriber[] }>('GET', '/ebics/subscribers');
	return subscribers.find((s) => s.partnerId === partnerId && s.userId === userId)!;
}

/** Creates a workflow through n8n's REST API (as the editor does), for the credential made in the editor. */
async function createWorkflow(workflow: object, name: string): Promise<string> {
	const res = await fetch(`${stack.n8n.baseUrl}/rest/workflows`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', cookie },
		body: JSON.stringify({ ...workflow, name, settings: { executionOrder: 'v1' } }),
	});
	const text = await res.text();
	if (!res.ok) throw new Error(`POST /rest/workflows answered ${res.status}: ${text.slice(0, 300)}`);
	return (JSON.parse(text) as { data: { id: string } }).data.id;
}

/** Runs the open node's step and waits for n8n to have saved the execution. */
async function runStep(id: string): Promise<void> {
	const before = stack.n8n.executions(id).length;
	await executeStep(page);
	await outputPane(page).locator('[data-test-id="ndv-data-container"], [data-test-id="ndv-items-count"]').first().waitFor();
	const deadline = Date.now() + 120_000;
	while (stack.n8n.executions(id).filter((e) => e.finished || e.status === 'success' || e.status === 'error').length <= before) {
		if (Date.now() > deadline) throw new Error(`no execution of ${id} was saved`);
		await page.waitForTimeout(250);
	}
}

/** "Execute workflow" on the canvas of the open workflow; resolves with the execution n8n saved, every node without an error. */
async function runWorkflow(id: string): Promise<StoredExecution> {
	const done = await runFromCanvas(page, () => stack.n8n.executions(id), async () => await shot(page, 'editor-failed.png'));
	const failed = Object.keys(done.run?.data.resultData.runData ?? {}).map((name) => [name, nodeError(done.run!, name)?.message]).filter(([, message]) => message);
	expect(failed).toEqual([]);
	return done;
}

const partnerIdOf = (f: EbicsForm): string => f.fields.find((x) => x.name === 'partnerId')!.value;
const userIdOf = (f: EbicsForm): string => f.fields.find((x) => x.name === 'userId')!.value;

if (!chromium.path) skipAll('the EBICS first hour in the editor', chromium.reason ?? 'chromium is not available');
else {
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		// As `npm run demo -- --ui` runs it: n8n trusts the sandbox's CA, the examples imported.
		stack = await startStack({ install, pkg, trustSandboxCa: true });
		await stack.importExamples(EXAMPLES);
		await stack.n8n.start();
		({ cookie, browser, page } = await openEditor(stack.n8n.baseUrl, chromium.path!));
		form = await ebicsForm(stack.bank);
		printed = ebicsFormLines(form);
	}, 600_000);

	afterAll(async () => {
		await browser?.close();
		await stack?.stop();
	});

	describe(`the EBICS first hour in real n8n ${N8N_VERSION}'s editor`, () => {
		test('what the demo prints for EBICS, typed into a new credential: the labels are the editor\'s, a hash is marked while it is not one, the dialog says where the status shows; Save sends INI and HIA', async () => {
			// The demo prints every field with its value, and the activation command for its own bank.
			for (const field of form.fields) expect(printed.some((line) => line.includes(`${field.label}:`) && line.endsWith(` ${field.value}`))).toBe(true);
			expect(form.fields.map((f) => f.name)).toEqual(['url', 'hostId', 'partnerId', 'userId', 'bankAuthenticationHash', 'bankEncryptionHash']);
			expect(form.fields[0].value).toBe(stack.bank.state.urls.ebics);
			expect(printed.join('\n')).toContain(`${stack.bank.state.urls.admin}/ebics/subscribers/${partnerIdOf(form)}/${userIdOf(form)}/activate`);
			expect((await subscriber(partnerIdOf(form), userIdOf(form))).state).toBe('new');

			await page.goto(`${stack.n8n.baseUrl}/home/credentials/create`, { waitUntil: 'commit' });
			await page.locator('[data-test-id="new-credential-type-select"]').click();
			await page.keyboard.type('Corporate Banking EBICS');
			await page.locator('[data-test-id="new-credential-type-select-option"]').filter({ hasText: 'Corporate Banking EBICS API' }).click();
			await page.locator('[data-test-id="new-credential-type-button"]').click();
			await dialog().waitFor();

			// Before anything: no Status field (n8n's dialog would show it as it opened, never as a test
			// writes it), but a notice saying where the status shows.
			await statusNotice().waitFor();
			expect(await dialog().locator('[data-test-id="parameter-input-ebicsStatus"]').count()).toBe(0);
			expect(await fieldsText()).not.toMatch(/^(New|Letters sent|Waiting|Ready):/m);

			for (const field of form.fields) {
				const entry = entryOf(field.name);
				await entry.waitFor();
				// The label the demo prints is the one above the field (a required one has a *).
				expect((await entry.locator('label').first().innerText()).split('\n')[0].replace(/\s*\*\s*$/, '').trim()).toBe(field.label);
				const input = entry.locator('input:not([type="hidden"]), textarea').first();
				await input.click();
				if (field.name === 'bankAuthenticationHash') {
					// Typed pair by pair: marked while it is not a hash yet, no longer once it is one.
					const notice = dialog().getByText(/Bank Authentication Key Hash \(X002\): not a hash yet/);
					await input.pressSequentially(field.value.slice(0, 8));
					await notice.waitFor();
					await entry.scrollIntoViewIfNeeded();
					await shot(dialog(), 'editor-credential-hash-typed.png');
					await input.pressSequentially(field.value.slice(8));
					await notice.waitFor({ state: 'detached' });
				} else await input.pressSequentially(field.value);
				expect(await input.inputValue()).toBe(field.value);
			}
			// Both hashes typed in full: no notice left (it goes once the editor has taken the last key).
			await dialog().getByText(/not a hash yet/).first().waitFor({ state: 'detached' });

			const created = page.waitForResponse((r) => /\/rest\/credentials\/?$/.test(r.url()) && r.request().method() === 'POST');
			const tested = page.waitForResponse((r) => /\/rest\/credentials\/test/.test(r.url()));
			await page.locator('[data-test-id="credential-save-button"]').click();
			const saved = ((await (await created).json()) as { data: { id: string; name: string } }).data;
			made = { id: saved.id, name: saved.name };
			expect(((await (await tested).json()) as { data: { message: string } }).data.message).toMatch(/^Letters sent: the keys went to the bank with INI and HIA/);
			await dialog().getByText(/Couldn.t connect with these settings/).first().waitFor();
			await dialog().getByText('More details').first().click();
			await dialog().getByText(/Letters sent: the keys went to the bank with INI and HIA on \d{4}-\d\d-\d\d/).first().waitFor();
			// The dialog's fields still hold what they opened with; none of them claims a status.
			expect(await fieldsText()).not.toMatch(/New: test|Letters sent/);
			expect((await subscriber(partnerIdOf(form), userIdOf(form))).state).toBe('initialised');
			await page.waitForFunction(() => !!document.querySelector('[data-test-id="credential-save-button"]')?.textContent?.trim());
			await shot(page.getByRole('dialog').filter({ has: dialog() }).first(), 'editor-credential-saved.png');
			await page.keyboard.press('Escape');
		});

		test('the printed activation command activates the subscriber at this bank; after each test the dialog shows the status that test found, and nothing from before', async () => {
			const command = printed.map((l) => l.trim()).find((l) => l.startsWith('curl ') && l.endsWith(`/${partnerIdOf(form)}/${userIdOf(form)}/activate`))!;
			execFileSync('sh', ['-c', command], { stdio: 'pipe' });
			expect((await subscriber(partnerIdOf(form), userIdOf(form))).state).toBe('ready');

			// Opened: n8n tests it, the test fetches the bank's keys (HPB): connection tested successfully.
			expect(await openCredential(made.id)).toEqual({ status: 'OK', message: 'Connection successful!' });
			await dialog().getByText('Connection tested successfully').first().waitFor();
			// Nothing in the dialog still says where the subscriber stood before this test.
			expect(await fieldsText()).not.toMatch(/Letters sent|not activated|Waiting for the bank|New: /);
			await statusNotice().scrollIntoViewIfNeeded();
			await shot(page.getByRole('dialog').filter({ has: dialog() }).first(), 'editor-credential-activated.png');
			// A change saved in this dialog (the letters' bank name): saved with the dialog's fields, tested again.
			const bankName = entryOf('bankName').locator('input').first();
			await bankName.click();
			await bankName.pressSequentially('Sandbox Bank AG');
			const tested = page.waitForResponse((r) => /\/rest\/credentials\/test/.test(r.url()));
			await page.locator('[data-test-id="credential-save-button"]').click();
			expect(((await (await tested).json()) as { data: unknown }).data).toEqual({ status: 'OK', message: 'Connection successful!' });
			await dialog().getByText('Connection tested successfully').first().waitFor();
			expect(await fieldsText()).not.toMatch(/Letters sent|not activated|Waiting for the bank|New: /);
			await page.keyboard.press('Escape');

			// Opened once more: ready, and the status the test wrote (which the nodes read) says so.
			expect(await openCredential(made.id)).toEqual({ status: 'OK', message: 'Connection successful!' });
			await dialog().getByText('Connection tested successfully').first().waitFor();
			await statusNotice().scrollIntoViewIfNeeded();
			await shot(page.getByRole('dialog').filter({ has: dialog() }).first(), 'editor-credential-ready.png');
			await page.keyboard.press('Escape');
		});

		test("the letters run in the editor: each hash a field on one line, the bank's own hash of the key it received", async () => {
			const workflow = ebicsNodeWorkflow('Initialisation Letters', { operation: 'initialisationLetters' });
			for (const node of workflow.nodes) if (node.credentials?.[EBICS_CREDENTIAL]) node.credentials[EBICS_CREDENTIAL] = { ...made };
			const id = await createWorkflow(workflow, 'EBICS: letters of the subscriber made in the editor');
			await goTo(page, stack.n8n.baseUrl, `/workflow/${id}/ebics`);
			await ndv().locator('[data-test-id="node-parameters"]').waitFor();
			await runStep(id);
			const [letter] = nodeItems(stack.n8n.executions(id).at(-1)!.run!, 'Initialisation Letters');
			const bank = (await subscriber(partnerIdOf(form), userIdOf(form))).certificateHashes;
			// Where the subscriber stands, as the credential's last test wrote it: ready.
			expect(String(letter.json.status)).toMatch(/^Ready: the bank's keys were fetched on \d{4}-\d\d-\d\d and match the hashes of its letter\. Nothing to do$/);
			for (const key of ['signature', 'authentication', 'encryption'] as const) {
				const value = String(letter.json[`${key}Hash`]);
				expect(value).not.toContain('\n');
				expect(value).toMatch(/^([0-9A-F]{2} ){31}[0-9A-F]{2}$/);
				expect(value).toBe(bank[key]);
			}
			// The output pane opens on the binary files; its JSON view shows each hash on one line.
			await outputPane(page).getByText('JSON', { exact: true }).first().click();
			await seeInOutput(`"signatureHash": "${String(letter.json.signatureHash)}"`);
			await shot(outputPane(page), 'editor-letters-output.png');
		});

		test("the Upload's notice says whose signature it carries, and its output names that subscriber", async () => {
			const payments = loadExample('ebics-payments.json');
			const upload = payments.nodes.find((n) => n.name === 'Upload Credit Transfer (BTU)')!;
			const id = workflowId('ebics-payments.json');
			await goTo(page, stack.n8n.baseUrl, `/workflow/${id}`);
			await runWorkflow(id);
			// The run's output stays with the workflow open: the node opened from the canvas.
			await page.locator('[data-test-id="canvas-node"]').filter({ hasText: upload.name }).first().dblclick();
			const notice = ndv().getByText(/signed with the electronic signature of the subscriber of the credential chosen above: its Partner ID and User ID at its Host ID/);
			await notice.waitFor();
			expect(await ndv().getByText(/The output names that subscriber \(partnerId, userId, hostId\)/).count()).toBe(1);
			const [uploaded] = nodeItems(stack.n8n.executions(id).at(-1)!.run!, upload.name);
			// The sandbox credential of the demo is PARTNER2 / READY1; the bank stored the order as signed by it.
			expect(uploaded.json).toMatchObject({ partnerId: 'PARTNER2', userId: 'READY1', hostId: 'SBXEBICS' });
			const { subscribers } = await stack.bank.admin<{ subscribers: Array<{ partnerId: string; userId: string; uploads: Array<{ orderId: string }> }> }>('GET', '/ebics/subscribers');
			expect(subscribers.find((s) => s.uploads.some((u) => u.orderId === uploaded.json.orderId))).toMatchObject({ partnerId: 'PARTNER2', userId: 'READY1' });
			await seeInOutput('READY1');
			await shot(ndv(), 'editor-upload-subscriber.png');
		});

		test('a second test download of new data says that what was downloaded is delivered, and which Which Data brings it again', async () => {
			const statements = loadExample('ebics-statements.json');
			const download = statements.nodes.find((n) => n.name === 'Download Statements (BTD)')!;
			const id = workflowId('ebics-statements.json');
			// The first run downloads the new statements, and the bank marks them delivered.
			await goTo(page, stack.n8n.baseUrl, `/workflow/${id}`);
			await runWorkflow(id);
			const { subscribers } = await stack.bank.admin<{ subscribers: Array<{ partnerId: string; userId: string; files: Array<{ msgName: string; delivered: boolean }> }> }>('GET', '/ebics/subscribers');
			const camt = subscribers.find((s) => s.userId === 'READY1')!.files.filter((f) => f.msgName === 'camt.053');
			expect(camt.length).toBeGreaterThan(0);
			expect(camt.every((f) => f.delivered)).toBe(true);
			// The step tried again, as a person tests the node.
			await goTo(page, stack.n8n.baseUrl, `/workflow/${id}/${download.id}`);
			await ndv().locator('[data-test-id="parameter-input-which"]').waitFor();
			await executeStep(page);
			await seeInOutput(/Which Data is "New \(Not Downloaded Yet\)": the bank gives only what it has not delivered yet/);
			await seeInOutput(new RegExp(escapeRegExp('set Which Data to "Date Range (Again, Delivered or Not)" with its Start Date and End Date')));
			// The option the message names is the one the panel offers.
			await ndv().locator('[data-test-id="parameter-input-which"]').click();
			await page.getByRole('option', { name: /^Date Range \(Again, Delivered or Not\)/ }).first().waitFor();
			await page.keyboard.press('Escape');
			await shot(ndv(), 'editor-download-no-data.png');
		});

		test('the EBICS Trigger names its order types field for no EBICS version (the panel cannot know the credential\'s)', async () => {
			const trigger = loadExample('ebics-trigger.json').nodes.find((n) => n.type.endsWith('.ebicsTrigger'))!;
			await goTo(page, stack.n8n.baseUrl, `/workflow/${workflowId('ebics-trigger.json')}/${trigger.id}`);
			const entry = ndv().locator('[data-test-id="parameter-item"]').filter({ has: page.locator('[data-test-id="parameter-input-h004OrderTypes"]') }).first();
			await entry.waitFor();
			expect((await entry.locator('label').first().innerText()).split('\n')[0].trim()).toBe('Order Types');
			expect(await entry.locator('input').first().getAttribute('placeholder')).toBe('CRZ, Z01 (EBICS 2.5 credentials only)');
			expect(await ndv().getByText('EBICS 2.5 Order Types', { exact: true }).count()).toBe(0);
			await entry.scrollIntoViewIfNeeded();
			await shot(ndv(), 'editor-trigger-order-types.png');
		});
	});
}
