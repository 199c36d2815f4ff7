/**
 * EBICS in a real n8n, from a new credential to the first statement: the packed package in n8n
 * 2.41, the sandbox EBICS bank as its own process, the editor in headless Chromium.
 *
 * 1. The user opens a new "Corporate Banking EBICS API" credential in the editor, types the bank's
 *    URL, the IDs and the hashes of the bank's letter key by key (spaces, a line break) and saves:
 *    n8n's credential test makes the keys and sends INI and HIA; the dialog says what to do next.
 * 2. The EBICS node's panels (Download, Upload) as the user sees them; a value typed into one.
 * 3. `n8n execute` of the letters workflow: the INI and HIA letters as fields, PDF and HTML; the
 *    HTML letter as a browser renders it.
 * 4. The bank activates the subscriber (sandbox admin API); opening the credential tests it again:
 *    HPB fetches the bank's keys, they match the pinned hashes, the status says ready.
 * 5. `n8n execute` of the payments example: a pain.001 built, checked, signed and uploaded; the
 *    sandbox bank verified its A006 signature and stored it; the customer acknowledgement follows.
 * 6. `n8n execute` of the statements example: the camt.053 statements downloaded, parsed, and
 *    marked delivered at the bank only after n8n had them.
 * 7. No private key of the credential in any output, n8n's log or its database file.
 *
 * The screenshots docs/ebics.md shows are saved under docs/ebics/. Waiting is always for
 * something to appear (a text, a saved request), never for time.
 */
import { X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

import { ensureChromium, N8N_VERSION } from './lib/install';
import { binaryFile, nodeItems } from './lib/n8n';
import { PROJECT_ROOT } from './lib/sandbox';
import { requireContext, skipAll, startStack, type Stack } from './lib/stack';
import type { EbicsRecord } from '../sandbox/ebics/bank';
import { choose, emptyMarker, escapeRegExp, executeStep, goTo, outputPane, panelEntry, parameterInput, retype, searchNewWorkflow, seeInOutput, typeInto } from './lib/editor';
import { ebicsNodeWorkflow, executeCleanly, until, withEbicsCredential } from './lib/ebicsSandbox';
import { openEditor } from './lib/ui';
import { credentialId, credentialName, loadExample, prepareForImport, type WorkflowJson } from './lib/workflows';

const SHOTS = path.join(PROJECT_ROOT, 'docs', 'ebics');
const EBICS = 'corporateBankingEbicsApi';
const CREDENTIAL = { id: 'ebics-new-subscriber-01', name: 'Bank EBICS (new subscriber)' };
const WORKFLOWS = { letters: 'cbebicsletters0001', payments: 'cbebicspayments001', statements: 'cbebicsstatement01' };

const chromium = ensureChromium((line) => process.stderr.write(`[e2e] ${line}\n`));

interface SubscriberInfo {
	partnerId: string;
	userId: string;
	state: string;
	keyHashes: Record<'signature' | 'authentication' | 'encryption', string | null>;
	files: Array<{ serviceName: string; msgName: string; name: string; date: string; delivered: boolean; bytes: number }>;
	uploads: Array<{ orderId: string; orderType: string; service: { serviceName: string } | null; fileName: string | null; bytes: number; signatureFlag: string }>;
}

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let bankHashes: { authentication: string; encryption: string };
const outputs: string[] = [];

const subscriber = async (): Promise<SubscriberInfo> => {
	const all = await stack.bank.admin<{ subscribers: SubscriberInfo[] }>('GET', '/ebics/subscribers');
	return all.subscribers.find((s) => s.partnerId === 'PARTNER1' && s.userId === 'USER1')!;
};

const storedCredential = async (): Promise<Record<string, unknown>> =>
	(await stack.n8n.decryptedCredentials()).find((c) => c.id === CREDENTIAL.id)!.data;

function field(name: string, scope: Locator | Page = page): Locator {
	return scope.locator(`[data-test-id="parameter-input-${name}"]`).locator('input:not([type="hidden"]), textarea').first();
}

/** Types into a credential field key by key, as a person does, and leaves the field. */
async function typeIn(dialog: Locator, name: string, text: string): Promise<void> {
	const input = field(name, dialog);
	await input.click();
	await input.pressSequentially(text);
	expect(await input.inputValue()).toBe(text);
	await input.press('Tab');
}

async function shot(locator: Locator, name: string): Promise<void> {
	mkdirSync(SHOTS, { recursive: true });
	await locator.screenshot({ path: path.join(SHOTS, name) });
}

/** The credential dialog on screen (one the editor closed may stay in the page, hidden). */
function credentialDialog(): Locator {
	return page.locator('[data-test-id="credential-edit-dialog"]:visible').first();
}

/** The whole credential modal (header with name and Save, and the body) around its body. */
function modal(body: Locator): Locator {
	return page.getByRole('dialog').filter({ has: body }).first();
}

/** The hash as a letter prints it, as the user types it: two lines of 16 byte pairs. */
const asTyped = (hash: string): string => hash.replace(/\s+/g, ' ').replace(/^((?:\S\S ){15}\S\S) /, '$1\n');

if (!chromium.path) skipAll('EBICS in real n8n and its editor', chromium.reason ?? 'chromium is not available');
else {
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		stack = await startStack({ install, pkg, n8nPort: 15710 });
		const sandbox = await stack.bank.admin<{ bankHashes: { authentication: string; encryption: string } }>('GET', '/ebics/subscribers');
		bankHashes = sandbox.bankHashes;
		// The credential as a user starts it: the type chosen, keys to be made in n8n, the bank's TLS CA.
		await stack.n8n.importCredentials([{ ...CREDENTIAL, type: EBICS, data: { keySource: 'generate', caCertificate: stack.bank.caPem } }]);
		await stack.n8n.importWorkflows([
			withEbicsCredential(ebicsNodeWorkflow('Initialisation Letters', { operation: 'initialisationLetters' }), CREDENTIAL, WORKFLOWS.letters, 'EBICS: initialisation letters of the new subscriber'),
			withEbicsCredential(loadExample('ebics-payments.json'), CREDENTIAL, WORKFLOWS.payments, 'EBICS: payments of the new subscriber'),
			withEbicsCredential(loadExample('ebics-statements.json'), CREDENTIAL, WORKFLOWS.statements, 'EBICS: statements of the new subscriber'),
		]);
		await stack.n8n.start();
		({ browser, context, page } = await openEditor(stack.n8n.baseUrl, chromium.path!));
	}, 600_000);

	afterAll(async () => {
		await browser?.close();
		await stack?.stop();
	});

	describe(`EBICS from a new credential to the first statement, in real n8n ${N8N_VERSION} and its editor`, () => {
		test('the user types the contract data into the new credential and saves: n8n makes the keys and sends INI and HIA; the dialog says to send the letters', async () => {
			await page.goto(`${stack.n8n.baseUrl}/home/credentials/${CREDENTIAL.id}`, { waitUntil: 'commit' });
			const dialog = credentialDialog();
			await field('url', dialog).waitFor();
			// Secrets are masked, certificates are not: the private key fields are password inputs.
			await typeIn(dialog, 'url', `${stack.bank.state.urls.ebics}`);
			await typeIn(dialog, 'hostId', 'SBXEBICS');
			await typeIn(dialog, 'partnerId', 'PARTNER1');
			await typeIn(dialog, 'userId', 'USER1');
			await typeIn(dialog, 'bankAuthenticationHash', asTyped(bankHashes.authentication));
			await typeIn(dialog, 'bankEncryptionHash', asTyped(bankHashes.encryption).toLowerCase());
			await typeIn(dialog, 'subscriberName', 'Erika Mustermann, Sandbox Customer GmbH');
			// Saving stores the credential (with every value as typed), then the editor tests it.
			const saved = page.waitForRequest((r) => /\/rest\/credentials\//.test(r.url()) && ['PATCH', 'POST'].includes(r.method()) && !/\/test$/.test(r.url()));
			const tested = page.waitForResponse((r) => /\/rest\/credentials\/test/.test(r.url()));
			await page.locator('[data-test-id="credential-save-button"]').click();
			const sent = ((await saved).postDataJSON() as { data: Record<string, unknown> }).data;
			expect(sent).toMatchObject({
				url: stack.bank.state.urls.ebics,
				hostId: 'SBXEBICS',
				partnerId: 'PARTNER1',
				userId: 'USER1',
				bankAuthenticationHash: asTyped(bankHashes.authentication),
				bankEncryptionHash: asTyped(bankHashes.encryption).toLowerCase(),
				subscriberName: 'Erika Mustermann, Sandbox Customer GmbH',
			});
			await tested;
			await dialog.getByText(/Couldn.t connect with these settings/).first().waitFor();
			await dialog.getByText('More details').first().click();
			await dialog.getByText(/Letters sent: the keys went to the bank with INI and HIA on \d{4}-\d\d-\d\d/).first().waitFor();
			await dialog.getByText(/print the initialisation letters/).first().waitFor();
			// The Save button shows its label again once the save and the test are done.
			await page.waitForFunction(() => !!document.querySelector('[data-test-id="credential-save-button"]')?.textContent?.trim());
			await page.mouse.move(0, 0);
			await shot(modal(dialog), 'credential-letters-sent.png');
			expect((await subscriber()).state).toBe('initialised');
			await page.keyboard.press('Escape');
		});

		test('the EBICS node in the editor: the Download and Upload panels, a Scope typed into the upload', async () => {
			const statements = loadExample('ebics-statements.json');
			const download = statements.nodes.find((n) => n.name === 'Download Statements (BTD)')!;
			await goTo(page, stack.n8n.baseUrl, `/workflow/${WORKFLOWS.statements}/${download.id}`);
			const ndv = page.locator('[data-test-id="ndv"]');
			await ndv.locator('[data-test-id="parameter-input-downloadService"]').waitFor();
			expect(await ndv.locator('[data-test-id="node-issues"], [data-test-id="parameter-issues"]').count()).toBe(0);
			await shot(ndv, 'node-download.png');

			const payments = loadExample('ebics-payments.json');
			const upload = payments.nodes.find((n) => n.name === 'Upload Credit Transfer (BTU)')!;
			await goTo(page, stack.n8n.baseUrl, `/workflow/${WORKFLOWS.payments}/${upload.id}`);
			await ndv.locator('[data-test-id="parameter-input-uploadService"]').waitFor();
			await ndv.getByText(/Running this node sends the file to the bank as an order/).first().waitFor();
			const scope = field('scope', ndv);
			const saved = page.waitForRequest((r) => /\/rest\/workflows\//.test(r.url()) && r.method() !== 'GET' && (r.postData() ?? '').includes('"scope":"DE"'));
			await scope.click();
			await scope.press('ControlOrMeta+a');
			await scope.press('Backspace');
			await scope.pressSequentially('DE');
			await scope.press('Tab');
			await saved;
			expect(await scope.inputValue()).toBe('DE');
			await page.mouse.move(0, 0);
			await shot(ndv, 'node-upload.png');
			await stack.n8n.stop();
		});

		test('the letters: the hashes of the keys n8n made, as fields, PDF and HTML; the HTML letter as printed', async () => {
			const run = (await executeCleanly(stack, WORKFLOWS.letters, outputs)).run!;
			const [letter] = nodeItems(run, 'Initialisation Letters');
			const state = JSON.parse(String((await storedCredential()).ebicsState)) as { generated: Record<string, { certificatePem: string }> };
			const hash = (pem: string) => new X509Certificate(pem).fingerprint256.replace(/:/g, ' ');
			expect(letter.json).toMatchObject({
				partnerId: 'PARTNER1',
				userId: 'USER1',
				signatureHash: hash(state.generated.signature.certificatePem),
				authenticationHash: hash(state.generated.authentication.certificatePem),
				encryptionHash: hash(state.generated.encryption.certificatePem),
			});
			const pdf = readFileSync(binaryFile(stack.n8n.userFolder, letter.binary!.data.id)!);
			expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
			const html = readFileSync(binaryFile(stack.n8n.userFolder, letter.binary!.html.id)!, 'utf8');
			// The letter prints the byte pairs 16 a line.
			expect(html).toContain(String(letter.json.signatureHash).slice(0, 47));
			const viewer = await context.newPage();
			await viewer.setViewportSize({ width: 900, height: 1200 });
			await viewer.setContent(html);
			await viewer.getByText('EBICS initialisation letter (INI)').waitFor();
			await shot(viewer.locator('section.letter').first(), 'letter-ini.png');
			await viewer.close();
		});

		test('the bank activates the subscriber; opening the credential tests it: HPB, keys matching the letter, ready', async () => {
			await stack.bank.admin('POST', '/ebics/subscribers/PARTNER1/USER1/activate', {});
			await stack.n8n.start();
			const dialog = credentialDialog();
			const open = async (): Promise<void> => {
				const tested = page.waitForResponse((r) => /\/rest\/credentials\/test/.test(r.url()));
				await page.goto(`${stack.n8n.baseUrl}/home/credentials/${CREDENTIAL.id}`, { waitUntil: 'commit' });
				// What n8n's credential test answered the editor.
				expect(((await (await tested).json()) as { data: unknown }).data).toEqual({ status: 'OK', message: 'Connection successful!' });
				await dialog.getByText('Connection tested successfully').first().waitFor();
			};
			await open();
			await page.keyboard.press('Escape');
			// Opened again: the test's answer is the status, ready.
			await open();
			await shot(modal(dialog), 'credential-ready.png');
			await page.keyboard.press('Escape');
			await stack.n8n.stop();
			const stored = await storedCredential();
			expect(JSON.parse(String(stored.ebicsState))).toMatchObject({ phase: 'ready', bank: { hashes: bankHashes } });
			expect(String(stored.ebicsStatus)).toMatch(/^Ready: the bank's keys were fetched on \d{4}-\d\d-\d\d and match the hashes of its letter/);
		});

		test('a pain.001 built from approved invoices, checked against the EPC schema, signed and uploaded; the bank verified the signature and stored it; HAC reports it accepted', async () => {
			const before = (await subscriber()).uploads.length;
			const run = (await executeCleanly(stack, WORKFLOWS.payments, outputs)).run!;
			const [built] = nodeItems(run, 'Build pain.001');
			const [uploaded] = nodeItems(run, 'Upload Credit Transfer (BTU)');
			expect(uploaded.json).toMatchObject({ orderId: expect.stringMatching(/^[A-Z][A-Z0-9]{3}$/), service: 'BTU SCT DE pain.001.09', schema: 'pain.001.001.09 (EPC SEPA credit transfer)', signature: 'authorise' });
			const file = readFileSync(binaryFile(stack.n8n.userFolder, built.binary!.data.id)!);
			const uploads = (await subscriber()).uploads;
			expect(uploads.length).toBe(before + 1);
			// The sandbox stores an upload only after its A006 signature verified against the order data.
			expect(uploads.at(-1)).toMatchObject({ orderId: uploaded.json.orderId, orderType: 'BTU', service: expect.objectContaining({ serviceName: 'SCT' }), bytes: file.length, signatureFlag: 'authorise' });
			const hac = nodeItems(run, 'What the Bank Did (HAC)').map((i) => i.json);
			expect(hac.filter((e) => e.orderId === uploaded.json.orderId).map((e) => e.action)).toEqual(['FILE_UPLOAD', 'ES_VERIFICATION', 'ORDER_HAC_FINAL_POS']);
		});

		test('the camt.053 statements downloaded (BTD, ZIP), parsed into entries, and delivered at the bank only then', async () => {
			const waiting = (await subscriber()).files.filter((f) => f.serviceName === 'EOP' && f.msgName === 'camt.053');
			expect(waiting.length).toBe(5);
			expect(waiting.some((f) => f.delivered)).toBe(false);
			const run = (await executeCleanly(stack, WORKFLOWS.statements, outputs)).run!;
			const files = nodeItems(run, 'Download Statements (BTD)');
			expect(files.map((i) => i.json.fileName)).toEqual(waiting.map((f) => f.name));
			for (const item of files) {
				expect(item.json.receipt).toBe('positive');
				expect(readFileSync(binaryFile(stack.n8n.userFolder, item.binary!.data.id)!).length).toBe(waiting.find((f) => f.name === item.json.fileName)!.bytes);
			}
			expect(nodeItems(run, 'Statement Entries').length).toBeGreaterThan(5);
			expect(nodeItems(run, 'Statement Entries', 1).map((s) => s.json.check)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
			expect((await subscriber()).files.filter((f) => f.msgName === 'camt.053').every((f) => f.delivered)).toBe(true);
		});

		test("no private key of the credential appears in any output, in n8n's log or readable in its database", async () => {
			const state = JSON.parse(String((await storedCredential()).ebicsState)) as { generated: Record<string, { privateKeyPem: string }> };
			const lines = Object.values(state.generated).flatMap((pair) => pair.privateKeyPem.split('\n').filter((line) => line.length > 40 && !line.startsWith('-----')));
			expect(lines.length).toBeGreaterThan(30);
			const log = readFileSync(stack.n8n.logFile, 'utf8');
			const database = readFileSync(stack.n8n.databaseFile).toString('latin1');
			const shown = lines.filter((line) => outputs.some((out) => out.includes(line)) || log.includes(line) || database.includes(line));
			expect(shown.length).toBe(0);
		});
	});

	/**
	 * The panels of the EBICS Trigger and the EBICS node typed the way a person types: values with
	 * spaces around them, in lower case, left empty, too long. Each test asserts what the panel or
	 * the step's output says and what the sandbox bank received (its record of every request,
	 * GET /__sandbox/ebics/records, with the BTF service and date range of each initialisation).
	 * The subscribers are the sandbox's ready ones (PARTNER2/READY1; PARTNER3/SIGNER1 and SIGNER2
	 * for the distributed signature), so these tests share this file's n8n and need nothing of the
	 * new subscriber above.
	 */
	describe(`the EBICS panels typed by hand, in real n8n ${N8N_VERSION}'s editor`, () => {
		const READY = { id: credentialId(EBICS), name: credentialName(EBICS) };
		const TYPED = { download: 'cbebicstypeddown01', payments: 'cbebicstypedpay001', approve: 'cbebicstypedveu001', cancel: 'cbebicstypedhvs001', h004: 'cbebicstypedh00401', h004Upload: 'cbebicstypedh00402', keys: 'cbebicstypedkeys01' };
		const SIGN = 'Approve: Sign the Order (HVE)';
		const CANCEL = 'Cancel the Order (HVS)';
		// The ready subscriber with an EBICS 2.5 (H004) credential: the same keys, the bank's EBICS 2.5 hashes.
		const READY_H004 = { id: 'ebics-ready-h004-01', name: 'Sandbox bank: EBICS 2.5 (H004)' };
		const ndv = (): Locator => page.locator('[data-test-id="ndv"]');

		/** What the bank recorded since `from` (a count of records read before). */
		const records = async (from = 0): Promise<EbicsRecord[]> => (await stack.bank.admin<EbicsRecord[]>('GET', '/ebics/records')).slice(from);
		const readyUploads = async (): Promise<SubscriberInfo['uploads']> => (await subscriberOf('PARTNER2', 'READY1')).uploads;

		const subscriberOf = async (partnerId: string, userId: string): Promise<SubscriberInfo> => {
			const all = await stack.bank.admin<{ subscribers: SubscriberInfo[] }>('GET', '/ebics/subscribers');
			return all.subscribers.find((s) => s.partnerId === partnerId && s.userId === userId)!;
		};

		/** Opens a node of an imported workflow the way a link to it does. */
		const openNode = async (workflowId: string, nodeId: string): Promise<void> => {
			await goTo(page, stack.n8n.baseUrl, `/workflow/${workflowId}/${nodeId}`);
			await ndv().locator('[data-test-id="node-parameters"]').waitFor();
		};

		/** Types (or pastes) into a field of the open panel and leaves it; the field shows what was typed. */
		const typeText = async (name: string, text: string, paste = false): Promise<void> => {
			const input = parameterInput(ndv(), name);
			await retype(input, text, { leave: 'Tab', paste });
			expect(await input.inputValue()).toBe(text);
		};

		/** A notice of the open panel, by the start of its text. */
		const notice = (start: string): Locator => ndv().getByText(new RegExp(`^${escapeRegExp(start)}`)).first();

		/** The notice under an EBICS 2.5 Other Order Type. */
		const orderTypeNotice = (): Locator => notice('Other Order Type: not an order type. It must be three upper-case letters or digits');

		/**
		 * An Other Order Type typed wrong: the notice shows, the step is refused naming the field and
		 * no order reaches the bank (only the credential's first use fetches the bank's keys, HPB).
		 */
		const refusedOrderType = async (field: string, typed: string): Promise<void> => {
			const before = (await records()).length;
			await typeInto(page, field, typed);
			await orderTypeNotice().waitFor();
			await executeStep(page);
			await seeInOutput(page, `Other Order Type: "${typed.trim()}" is not valid: it must be three upper-case letters or digits`);
			expect((await records(before)).map((r) => r.orderType).filter((t) => t !== 'HPB')).toEqual([]);
		};

		/** A workflow of a Manual Trigger and one EBICS node. */
		const oneNode = (id: string, name: string, nodeName: string, parameters: Record<string, unknown>, credential: { id: string; name: string }): WorkflowJson => ({
			id,
			name,
			active: false,
			settings: { executionOrder: 'v1' },
			nodes: [
				{ id: `${id}-start`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{ id: `${id}-node`, name: nodeName, type: 'n8n-nodes-corporate-banking.ebics', typeVersion: 1, position: [240, 0], parameters, credentials: { [EBICS]: { ...credential } } },
			],
			connections: { Start: { main: [[{ node: nodeName, type: 'main', index: 0 }]] } },
		});

		beforeAll(async () => {
			if (stack.n8n.running) await stack.n8n.stop();
			const download: WorkflowJson = {
				id: TYPED.download,
				name: 'EBICS: statements of chosen days',
				active: false,
				settings: { executionOrder: 'v1' },
				nodes: [
					{ id: 'typed-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
					{
						id: 'typed-download',
						name: 'Statements of Chosen Days (BTD)',
						type: 'n8n-nodes-corporate-banking.ebics',
						typeVersion: 1,
						position: [240, 0],
						parameters: { operation: 'download', downloadService: 'camt053' },
						credentials: { [EBICS]: { ...READY } },
					},
				],
				connections: { Start: { main: [[{ node: 'Statements of Chosen Days (BTD)', type: 'main', index: 0 }]] } },
			};
			const payments = prepareForImport('ebics-payments.json', stack.bank.state, stack.bank.caPem, stack.filesFolder);
			const approve = prepareForImport('ebics-approve.json', stack.bank.state, stack.bank.caPem, stack.filesFolder);
			// The approver types the digest: the Sign node starts with an empty Confirmed Data Digest.
			approve.nodes.find((n) => n.name === SIGN)!.parameters.confirmedDigest = '';
			// Cancelling instead of signing: the approval with a Cancel Order (HVS) node in place of Sign.
			const cancel = JSON.parse(JSON.stringify(prepareForImport('ebics-approve.json', stack.bank.state, stack.bank.caPem, stack.filesFolder)).split(SIGN).join(CANCEL)) as WorkflowJson;
			Object.assign(cancel.nodes.find((n) => n.name === CANCEL)!.parameters, { operation: 'veuCancel', confirmedDigest: '' });
			// The payments sent with an EBICS 2.5 order type typed, by the same subscriber over H004.
			const h004Upload: WorkflowJson = { ...prepareForImport('ebics-payments.json', stack.bank.state, stack.bank.caPem, stack.filesFolder), id: TYPED.h004Upload, name: 'EBICS 2.5: payments, order type typed' };
			const h004UploadNode = h004Upload.nodes.find((n) => n.name === 'Upload Credit Transfer (BTU)')!;
			Object.assign(h004UploadNode.parameters, { uploadService: 'orderType', uploadOrderType: 'other', uploadOtherOrderType: '' });
			h004UploadNode.credentials = { [EBICS]: { ...READY_H004 } };
			const { bankHashesH004 } = await stack.bank.admin<{ bankHashesH004: { authentication: string; encryption: string } }>('GET', '/ebics/subscribers');
			await stack.n8n.importCredentials([
				{
					...READY_H004,
					type: EBICS,
					data: { ...stack.bank.state.credentials[EBICS], ebicsVersion: 'H004', bankAuthenticationHash: bankHashesH004.authentication, bankEncryptionHash: bankHashesH004.encryption },
				},
			]);
			await stack.n8n.importWorkflows([
				download,
				{ ...payments, id: TYPED.payments, name: 'EBICS: payments, service typed' },
				{ ...approve, id: TYPED.approve, name: 'EBICS: approval, digest typed' },
				{ ...cancel, id: TYPED.cancel, name: 'EBICS: cancelling an order, digest typed' },
				h004Upload,
				oneNode(TYPED.h004, 'EBICS 2.5: an order type typed', 'Download (Order Type Typed)', { operation: 'download', downloadService: 'orderType', downloadOrderType: 'other', downloadOtherOrderType: '' }, READY_H004),
				// The new subscriber of the first tests: its keys were made in n8n, so it can change them.
				oneNode(TYPED.keys, 'EBICS: new keys for the new subscriber', 'Change Keys', { operation: 'changeKeys', keyChangeOrder: 'HCS', confirmKeyChange: false }, CREDENTIAL),
			]);
			await stack.n8n.start();
			// Leaving a new workflow (the trigger's) may ask whether to leave: a person says yes.
			page.on('dialog', (dialog) => void dialog.accept());
		}, 300_000);

		afterAll(async () => {
			await stack.n8n.stop();
		});

		test('EBICS Trigger added from the node panel: a scope in lower case and a typed service with a space or too long are refused naming the field, nothing reaches the bank; typed right, Fetch Test Event shows a statement and the bank received BTD EOP DE camt.053 ZIP', async () => {
			await searchNewWorkflow(page, stack.n8n.baseUrl, 'EBICS');
			// n8n folds the trigger into the EBICS entry (which shows the trigger's description).
			await panelEntry(page, 'EBICS').getByText(/^Starts the workflow when the bank has new files/).waitFor();
			await panelEntry(page, 'EBICS').click();
			await page.locator('[data-test-id="node-creator"]').getByText('On new EBICS event', { exact: true }).click();
			const addButton = page.getByRole('button', { name: 'Add to workflow' });
			await ndv().locator('[data-test-id="node-parameters"]').or(addButton).first().waitFor();
			if (await addButton.isVisible()) await addButton.click();
			await ndv().getByText(/^Every file the bank delivers is emitted once/).waitFor();
			// The credential: the sandbox's ready subscriber, picked by name.
			await ndv().locator('[data-test-id="node-credentials-select"]').click();
			await page.locator(`[data-test-id="node-credentials-select-item-${READY.id}"]`).click();
			await expect(ndv().locator('[data-test-id="node-credentials-select"] input').first().inputValue()).resolves.toBe(READY.name);
			// Services: camt.053 is chosen; the intraday report is added from the list.
			await ndv().locator('[data-test-id="parameter-input-services"]').click();
			await page.getByRole('option', { name: /^Intraday report \(camt\.052\)/ }).click();
			await ndv().getByText('Services', { exact: true }).first().click();
			await choose(page, 'output', 'Parsed Entries');
			await ndv().getByText('Parse Options', { exact: true }).waitFor();

			// A scope typed in lower case, with spaces around it: refused, naming the service and the rule.
			let before = (await records()).length;
			await typeText('scope', ' de ');
			// The panel says so as typed, before anything runs.
			await ndv().getByText(/^Scope: not a BTF Scope\. Write two or three upper-case letters or digits, such as DE/).waitFor();
			await executeStep(page);
			await seeInOutput(page, 'Services: End-of-day statement (camt.053): Scope "de" is not valid: it must be two or three upper-case letters or digits');
			await seeInOutput(page, 'Nothing was sent to the bank.');
			expect(await records(before)).toEqual([]);

			// The scope as the bank writes it (a trailing space is only a space); a typed service with a space in its name.
			await typeText('scope', 'DE ');
			await ndv().getByText(/^Scope: not a BTF Scope/).waitFor({ state: 'detached' });
			await ndv().getByRole('button', { name: 'Add Service (Type Its BTF Parameters)' }).click();
			await typeText('serviceName', 'EO P');
			// The entry says so as typed, by the rule the step applies; a message name in upper case too.
			const serviceNotice = notice('Service Name: not a BTF ServiceName. It must be three upper-case letters or digits');
			await serviceNotice.waitFor();
			await typeText('msgName', 'CAMT.053');
			await notice('Message Name: not a BTF MsgName. It must be one to ten lower-case letters, digits or dots').waitFor();
			await page.mouse.move(0, 0);
			await shot(ndv(), 'trigger-typed-service-notices.png');
			await typeText('msgName', 'camt.053');
			await notice('Message Name: not a BTF MsgName').waitFor({ state: 'detached' });
			await executeStep(page);
			await seeInOutput(page, 'Other Services 1: Service Name "EO P" is not valid: it must be three upper-case letters or digits');
			// Too long.
			await typeText('serviceName', 'EOPX');
			await executeStep(page);
			await seeInOutput(page, 'Other Services 1: Service Name "EOPX" is not valid');
			// An empty Message Name: the field is marked and the step names it.
			await typeText('serviceName', 'STM');
			await serviceNotice.waitFor({ state: 'detached' });
			await typeText('msgName', '');
			await emptyMarker(page, 'msgName').waitFor();
			expect(await ndv().locator('[data-test-id="node-execute-button"]').first().isDisabled()).toBe(true);
			expect(await records(before)).toEqual([]);

			// Typed right: the test event is the bank's statement, handed back with the negative receipt.
			await typeText('msgName', ' camt.052');
			before = (await records()).length;
			const waiting = (await subscriberOf('PARTNER2', 'READY1')).files.filter((f) => f.msgName === 'camt.053' && !f.delivered);
			expect(waiting.length).toBeGreaterThan(0);
			await executeStep(page);
			await until('the negative receipt of the test event at the bank', async () => (await records(before)).map((r) => r.phase), (phases) => phases.includes('Receipt'));
			// Parsed Entries: the statement's entries, the statement and the file.
			await outputPane(page).locator('[data-test-id="ndv-items-count"]').getByText(/^([2-9]|\d{2,}) items$/).waitFor();
			const btd = (await records(before)).filter((r) => r.orderType === 'BTD' && r.phase === 'Initialisation');
			expect(btd.map((r) => r.service)).toEqual([{ serviceName: 'EOP', scope: 'DE', container: 'ZIP', msgName: 'camt.053' }]);
			expect(btd[0]).toMatchObject({ partnerId: 'PARTNER2', userId: 'READY1', technical: '000000', business: '000000' });
			// Nothing taken: every statement the bank had waiting is still waiting.
			const after = (await subscriberOf('PARTNER2', 'READY1')).files.filter((f) => f.msgName === 'camt.053' && !f.delivered);
			expect(after.map((f) => f.name)).toEqual(waiting.map((f) => f.name));
			await page.keyboard.press('Escape');
		});

		test('EBICS Download of a date range typed by hand: a month 13, a comma or an end before the start is refused naming the field with nothing sent; typed right, the bank received exactly that range', async () => {
			await openNode(TYPED.download, 'typed-download');
			await choose(page, 'which', 'Date Range');
			const days = [...new Set((await subscriberOf('PARTNER2', 'READY1')).files.filter((f) => f.msgName === 'camt.053').map((f) => f.date))].sort();
			const [first, last] = [days[1], days.at(-1)!];
			await typeInto(page, 'endDate', last);
			const notice = ndv().getByText(/^Start Date: not a day written YYYY-MM-DD \(such as 2026-01-31\)/);
			const before = (await records()).length;
			for (const [typed, error] of [
				['2026-13-01', 'Start Date: "2026-13-01" is not a day of the calendar'],
				['2026-02-30', 'Start Date: "2026-02-30" is not a day of the calendar'],
				['2026-01-05,', 'Start Date: must be a date (YYYY-MM-DD), got "2026-01-05,"'],
			]) {
				// The field keeps what was typed, the panel marks it, and the step names the field.
				await typeInto(page, 'startDate', typed);
				expect(await parameterInput(ndv(), 'startDate').inputValue()).toBe(typed);
				// The notice checks the form; February's length is checked when the node runs.
				if (typed !== '2026-02-30') await notice.waitFor();
				await executeStep(page);
				await seeInOutput(page, error);
			}
			// An end before the start.
			await typeInto(page, 'startDate', last);
			await typeInto(page, 'endDate', first);
			await notice.waitFor({ state: 'detached' });
			await executeStep(page);
			await seeInOutput(page, `Date Range: the start ${last} is after the end ${first}`);
			await seeInOutput(page, 'Nothing was sent to the bank.');
			expect(await records(before)).toEqual([]);
			// Typed right (with a space after the day): the bank received exactly that range.
			await typeInto(page, 'startDate', `${first} `);
			await typeInto(page, 'endDate', last);
			await executeStep(page);
			const init = await until('the BTD of the range at the bank', async () => (await records(before)).filter((r) => r.orderType === 'BTD' && r.phase === 'Initialisation'), (r) => r.length > 0);
			expect(init.map((r) => [r.service, r.dateRange])).toEqual([[{ serviceName: 'EOP', container: 'ZIP', msgName: 'camt.053' }, { start: first, end: last }]]);
			const expected = (await subscriberOf('PARTNER2', 'READY1')).files.filter((f) => f.msgName === 'camt.053' && f.date >= first && f.date <= last);
			await outputPane(page).locator('[data-test-id="ndv-items-count"]').getByText(`${expected.length} items`).waitFor();
		});

		test('EBICS Download with Other Service typed: each BTF parameter typed wrong gets its notice as typed and the step names the field with nothing sent; typed right, every notice goes', async () => {
			await openNode(TYPED.download, 'typed-download');
			await choose(page, 'downloadService', 'Other Service (Type Its BTF Parameters)');
			const typed: Array<[string, string, string, string]> = [
				['serviceName', ' eop', 'Service Name: not a BTF ServiceName. It must be three upper-case letters or digits', ' EOP'],
				['customScope', 'd e', 'Scope: not a BTF Scope. It must be two or three upper-case letters or digits', 'DE '],
				['serviceOption', 'co', 'Service Option: not a BTF ServiceOption. It must be three to ten upper-case letters or digits', ''],
				['msgName', 'camt 053', 'Message Name: not a BTF MsgName. It must be one to ten lower-case letters, digits or dots', 'camt.053'],
				['customMsgVersion', '8', 'Message Version: not a BTF MsgName version. It must be two or three digits', ' 08'],
			];
			for (const [name, wrong, text] of typed) {
				await typeText(name, wrong);
				await notice(text).waitFor();
			}
			await page.mouse.move(0, 0);
			await shot(ndv(), 'node-typed-service-notices.png');
			const before = (await records()).length;
			await executeStep(page);
			await seeInOutput(page, 'Service Name "eop" is not valid: it must be three upper-case letters or digits');
			await seeInOutput(page, 'Nothing was sent to the bank.');
			expect(await records(before)).toEqual([]);
			for (const [name, , text, right] of typed) {
				await typeText(name, right);
				await notice(text).waitFor({ state: 'detached' });
			}
		});

		test('EBICS Upload with a preset and its Scope typed in lower case with spaces (` de `): saved as typed, marked and refused naming the field with nothing sent; typed ` DE `, the bank received SCT DE pain.001', async () => {
			const payments = loadExample('ebics-payments.json');
			const upload = payments.nodes.find((n) => n.name === 'Upload Credit Transfer (BTU)')!;
			await openNode(TYPED.payments, upload.id!);
			const uploads = (await readyUploads()).length;
			const before = (await records()).length;
			// The workflow is saved with what was typed: the editor never changes it.
			await typeInto(page, 'scope', ' de ');
			const scopeNotice = notice('Scope: not a BTF Scope. Write two or three upper-case letters or digits, such as DE');
			await scopeNotice.waitFor();
			await executeStep(page);
			await seeInOutput(page, 'Scope "de" is not valid: it must be two or three upper-case letters or digits');
			await seeInOutput(page, 'Nothing was sent to the bank.');
			expect((await records(before)).filter((r) => r.orderType === 'BTU')).toEqual([]);
			expect((await readyUploads()).length).toBe(uploads);
			await typeInto(page, 'scope', ' DE ');
			await scopeNotice.waitFor({ state: 'detached' });
			await executeStep(page);
			const [sent] = (await until('the upload at the bank', readyUploads, (u) => u.length === uploads + 1)).slice(-1);
			await seeInOutput(page, sent.orderId);
			expect(sent.service).toEqual({ serviceName: 'SCT', scope: 'DE', msgName: 'pain.001', msgVersion: '09' });
			expect((await records(before)).filter((r) => r.orderType === 'BTU' && r.phase === 'Initialisation').map((r) => r.service)).toEqual([{ serviceName: 'SCT', scope: 'DE', msgName: 'pain.001', msgVersion: '09' }]);
		});

		test('EBICS Upload with its BTF service typed: a Service Name in lower case is refused naming the field, nothing sent; typed right with an empty Scope, the bank received SCT pain.001 without a scope', async () => {
			const payments = loadExample('ebics-payments.json');
			const upload = payments.nodes.find((n) => n.name === 'Upload Credit Transfer (BTU)')!;
			await openNode(TYPED.payments, upload.id!);
			await choose(page, 'uploadService', 'Other Service (Type Its BTF Parameters)');
			await typeText('serviceName', 'sct');
			await typeText('msgName', 'pain.001');
			const uploads = (await readyUploads()).length;
			const before = (await records()).length;
			await executeStep(page);
			await seeInOutput(page, 'Service Name "sct" is not valid: it must be three upper-case letters or digits');
			expect((await records(before)).filter((r) => r.orderType === 'BTU')).toEqual([]);
			expect((await readyUploads()).length).toBe(uploads);
			await typeText('serviceName', 'SCT');
			await executeStep(page);
			const [sent] = (await until('the upload at the bank', readyUploads, (u) => u.length === uploads + 1)).slice(-1);
			await seeInOutput(page, sent.orderId);
			const stored = await readyUploads();
			expect(stored.length).toBe(uploads + 1);
			expect(stored.at(-1)!.service).toEqual({ serviceName: 'SCT', msgName: 'pain.001', msgVersion: '09' });
			expect((await records(before)).filter((r) => r.orderType === 'BTU' && r.phase === 'Initialisation').map((r) => r.service)).toEqual([{ serviceName: 'SCT', msgName: 'pain.001', msgVersion: '09' }]);
		});

		test('VEU Sign with the digest pasted as copied (lower case, spaces): a malformed one is refused before any request, another order\'s before anything is signed; the right one signs and the bank executes the order', async () => {
			const approve = loadExample('ebics-approve.json');
			const hvd = approve.nodes.find((n) => n.name === 'What Is Signed (HVD)')!;
			await openNode(TYPED.approve, hvd.id!);
			await executeStep(page);
			await outputPane(page).locator('[data-test-id="ndv-items-count"]').getByText(/^1 item$/).waitFor();
			const order = (await stack.bank.admin<Array<{ orderId: string; state: string; dataDigest: string; signatures: Array<{ userId: string; level: string }> }>>('GET', '/ebics/veu')).at(-1)!;
			expect(order).toMatchObject({ state: 'waiting', signatures: [expect.objectContaining({ userId: 'SIGNER1' })] });
			const copied = order.dataDigest.toLowerCase().match(/../g)!.join(' ');
			// To the Sign node in the same editor (its input is HVD's output of this run).
			await page.keyboard.press('Escape');
			await page.locator('[data-test-id="canvas-node"]').filter({ hasText: 'Approve: Sign' }).first().dblclick();
			await ndv().locator('[data-test-id="parameter-input-confirmedDigest"]').waitFor();
			let before = (await records()).length;
			await typeText('confirmedDigest', copied.slice(0, -1), true);
			await ndv().getByText(/^Confirmed Data Digest: not a SHA-256 digest\. Copy the dataDigest of Get Order Details/).waitFor();
			await executeStep(page);
			await seeInOutput(page, /Confirmed Data Digest is not a SHA-256 digest/);
			expect(await records(before)).toEqual([]);
			const other = `${copied.slice(0, 3)}${copied[3] === '0' ? '1' : '0'}${copied.slice(4)}`;
			await typeText('confirmedDigest', other, true);
			await ndv().getByText(/^Confirmed Data Digest: not a SHA-256 digest/).waitFor({ state: 'detached' });
			await executeStep(page);
			await seeInOutput(page, new RegExp(`is not the data digest the bank reports for order ${order.orderId}`));
			expect((await records(before)).map((r) => r.orderType)).not.toContain('HVE');
			before = (await records()).length;
			await typeText('confirmedDigest', ` ${copied} `, true);
			await executeStep(page);
			const after = await until(
				'the order executed at the bank',
				async () => (await stack.bank.admin<Array<{ orderId: string; state: string; signatures: Array<{ userId: string; level: string }> }>>('GET', '/ebics/veu')).find((o) => o.orderId === order.orderId)!,
				(o) => o.state !== 'waiting',
			);
			expect(after.state).toBe('executed');
			// The step's output is the signature, no longer the refusal.
			await outputPane(page).locator('[data-test-id="node-error-message"]').waitFor({ state: 'detached' });
			expect(after.signatures.map((s) => `${s.userId}:${s.level}`)).toEqual(['SIGNER1:A', 'SIGNER2:B']);
			expect((await records(before)).map((r) => r.orderType).filter((t) => t === 'BTU')).toEqual([]);
		});

		test('VEU Cancel (HVS) with the digest pasted as copied: another order\'s digest is refused with nothing cancelled; the right one in lower case with spaces cancels, and the bank never executes the order', async () => {
			type VeuOrder = { orderId: string; state: string; dataDigest: string; signatures: Array<{ userId: string }> };
			const veu = async (): Promise<VeuOrder[]> => await stack.bank.admin<VeuOrder[]>('GET', '/ebics/veu');
			const approve = loadExample('ebics-approve.json');
			const hvd = approve.nodes.find((n) => n.name === 'What Is Signed (HVD)')!;
			const known = (await veu()).length;
			// The first signer uploads a new order; HVD shows the second what is signed.
			await openNode(TYPED.cancel, hvd.id!);
			await executeStep(page);
			await outputPane(page).locator('[data-test-id="ndv-items-count"]').getByText(/^1 item$/).waitFor();
			const orders = await veu();
			expect(orders.length).toBe(known + 1);
			const order = orders.at(-1)!;
			expect(order).toMatchObject({ state: 'waiting', signatures: [expect.objectContaining({ userId: 'SIGNER1' })] });
			const copied = order.dataDigest.toLowerCase().match(/../g)!.join(' ');
			await page.keyboard.press('Escape');
			await page.locator('[data-test-id="canvas-node"]').filter({ hasText: CANCEL }).first().dblclick();
			await ndv().getByText(/^Cancelling \(HVS\) removes the order from the distributed signature/).waitFor();
			let before = (await records()).length;
			const other = `${copied.slice(0, 3)}${copied[3] === '0' ? '1' : '0'}${copied.slice(4)}`;
			await typeText('confirmedDigest', other, true);
			await executeStep(page);
			await seeInOutput(page, new RegExp(`is not the data digest the bank reports for order ${order.orderId}`));
			expect((await records(before)).map((r) => r.orderType)).not.toContain('HVS');
			expect((await veu()).find((o) => o.orderId === order.orderId)!.state).toBe('waiting');
			before = (await records()).length;
			await typeText('confirmedDigest', ` ${copied} `, true);
			await executeStep(page);
			const after = await until('the order cancelled at the bank', async () => (await veu()).find((o) => o.orderId === order.orderId)!, (o) => o.state !== 'waiting');
			expect(after.state).toBe('cancelled');
			expect(after.signatures.map((s) => s.userId)).toEqual(['SIGNER1']);
			await outputPane(page).locator('[data-test-id="node-error-message"]').waitFor({ state: 'detached' });
			expect((await records(before)).filter((r) => r.phase === 'Initialisation').map((r) => r.orderType)).toContain('HVS');
		});

		test('EBICS 2.5 (H004 credential) Download with Other Order Type: typed in lower case it gets the notice and is refused naming the field with nothing sent; typed with a space after it, the bank received that order type', async () => {
			await openNode(TYPED.h004, `${TYPED.h004}-node`);
			await refusedOrderType('downloadOtherOrderType', ' c53');
			const before = (await records()).length;
			// A statement waiting at the bank, so the download has something to bring.
			await stack.bank.admin('POST', '/ebics/files', { partnerId: 'PARTNER2', userId: 'READY1', serviceName: 'EOP', msgName: 'camt.053', name: 'h004-typed.xml', content: '<Document/>' });
			await typeInto(page, 'downloadOtherOrderType', 'C53 ');
			await orderTypeNotice().waitFor({ state: 'detached' });
			await executeStep(page);
			const init = await until('the H004 download at the bank', async () => (await records(before)).filter((r) => r.phase === 'Initialisation' && r.orderType === 'C53'), (r) => r.length > 0);
			expect(init[0]).toMatchObject({ protocol: 'H004', partnerId: 'PARTNER2', userId: 'READY1', technical: '000000' });
			await outputPane(page).locator('[data-test-id="ndv-items-count"]').getByText(/^\d+ items?$/).waitFor();
		});

		test('EBICS 2.5 (H004 credential) Upload with Other Order Type: typed in lower case it is refused naming the field with nothing uploaded; typed with a space before it, the bank stored the payments as CCT', async () => {
			const payments = loadExample('ebics-payments.json');
			const upload = payments.nodes.find((n) => n.name === 'Upload Credit Transfer (BTU)')!;
			await openNode(TYPED.h004Upload, upload.id!);
			const uploads = (await readyUploads()).length;
			await refusedOrderType('uploadOtherOrderType', 'cct ');
			expect((await readyUploads()).length).toBe(uploads);
			const before = (await records()).length;
			await typeInto(page, 'uploadOtherOrderType', ' CCT');
			await orderTypeNotice().waitFor({ state: 'detached' });
			await executeStep(page);
			const [sent] = (await until('the upload at the bank', readyUploads, (u) => u.length === uploads + 1)).slice(-1);
			await seeInOutput(page, sent.orderId);
			expect(sent).toMatchObject({ orderType: 'CCT', signatureFlag: 'authorise' });
			expect((await records(before)).filter((r) => r.phase === 'Initialisation').map((r) => [r.protocol, r.orderType])).toEqual([['H004', 'CCT']]);
		});

		test('Change Keys of the new subscriber: with Confirm Key Change off it is refused with nothing sent; switched on, HCA replaces the authentication and encryption keys at the bank and a download works with the new keys', async () => {
			await openNode(TYPED.keys, `${TYPED.keys}-node`);
			await choose(page, 'keyChangeOrder', 'Authentication and Encryption Keys (HCA)');
			const keysBefore = (await subscriber()).keyHashes;
			let before = (await records()).length;
			await executeStep(page);
			await seeInOutput(page, 'Confirm Key Change: switch it on to replace the keys at the bank. Nothing was sent to the bank');
			expect(await records(before)).toEqual([]);
			const confirmed = page.waitForRequest((r) => /\/rest\/workflows\//.test(r.url()) && r.method() !== 'GET' && (r.postData() ?? '').includes('"confirmKeyChange":true'));
			await ndv().locator('[data-test-id="parameter-input-confirmKeyChange"]').locator('[role="switch"], .el-switch').first().click();
			await confirmed;
			before = (await records()).length;
			await executeStep(page);
			await outputPane(page).locator('[data-test-id="ndv-items-count"]').getByText(/^1 item$/).waitFor();
			await seeInOutput(page, 'HCA');
			expect((await records(before)).filter((r) => r.phase === 'Initialisation').map((r) => r.orderType)).toEqual(['HCA']);
			const keysAfter = (await subscriber()).keyHashes;
			expect(keysAfter.signature).toBe(keysBefore.signature);
			expect(keysAfter.authentication).not.toBe(keysBefore.authentication);
			expect(keysAfter.encryption).not.toBe(keysBefore.encryption);
			// A later download, with the keys the bank now holds: a new statement arrives and comes.
			await stack.bank.admin('POST', '/ebics/files', { partnerId: 'PARTNER1', userId: 'USER1', serviceName: 'EOP', msgName: 'camt.053', name: 'after-key-change.xml', content: '<Document/>' });
			const statements = loadExample('ebics-statements.json');
			const download = statements.nodes.find((n) => n.name === 'Download Statements (BTD)')!;
			before = (await records()).length;
			await openNode(WORKFLOWS.statements, download.id!);
			await executeStep(page);
			await outputPane(page).locator('[data-test-id="ndv-items-count"]').getByText(/^1 item$/).waitFor();
			await seeInOutput(page, 'after-key-change.xml');
			expect((await records(before)).filter((r) => r.orderType === 'BTD' && r.phase === 'Initialisation').map((r) => [r.partnerId, r.userId, r.technical])).toEqual([['PARTNER1', 'USER1', '000000']]);
		});
	});
}
