/**
 * The Bank SFTP credential typed in real n8n's editor, in headless Chromium, and an upload run from
 * the editor. The bank is a host-to-host SFTP server run by this test (test/sandbox/sftp.ts, on
 * ssh2's server side) with GnuPG as its OpenPGP side: what the editor shows is compared with what
 * OpenSSH's own tools print (ssh-keyscan | ssh-keygen -l) and gpg, and what the bank received is
 * opened with gpg.
 *
 * 1. A new "Bank SFTP (Host-to-Host)" credential: host, port and user typed key by key, the SSH
 *    key pasted, the host key fingerprint left empty. Save: the test refuses and shows the
 *    server's fingerprint, the one ssh-keygen prints. Pasted: the test logs in and lists the
 *    incoming folder. The bank's armoured public key and the customer's key pasted: opened again,
 *    Key Fingerprints shows both as gpg prints them.
 * 2. Wrong values typed the way people type them (a port with a minus sign, with a letter, a host
 *    given as a URL, a fingerprint with a typo or cut short): the test's message names the field,
 *    and the field keeps what was typed (it never becomes another valid value). An empty host is
 *    marked by n8n as required (it neither saves nor tests).
 * 3. The upload example run from the editor with that credential: the output says signed and
 *    encrypted; the bank holds one file under its own name, which gpg decrypts (the bank's key)
 *    and verifies (the customer's signature): the pain.001 built in the workflow.
 *
 * Pictures: the three docs/sftp.md shows under docs/sftp/, the others in corporate-banking-sftp-
 * editor of the system's temporary folder. Waiting is always for something to appear.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import type { Browser, Locator, Page } from 'playwright-core';

import { startSandboxSftp, type SandboxSftp } from '../sandbox/sftp';
import { Gpg } from '../helpers/gpg';
import { credentialDialog, credentialEntry, runFromCanvas, goTo, parameterInput, retype } from './lib/editor';
import { ensureChromium, N8N_VERSION } from './lib/install';
import { nodeError, nodeItems, type StoredExecution } from './lib/n8n';
import { PROJECT_ROOT } from './lib/sandbox';
import { requireContext, skipAll, startStack, type Stack } from './lib/stack';
import { openEditor } from './lib/ui';
import { loadExample, packageManifest, type WorkflowJson } from './lib/workflows';

const DOC_SHOTS = path.join(PROJECT_ROOT, 'docs', 'sftp');
const DOC_PICTURES = ['editor-credential-fingerprint-shown.png', 'editor-credential-key-fingerprints.png', 'editor-upload-output.png'];
const CHECK_SHOTS = path.join(os.tmpdir(), 'corporate-banking-sftp-editor');
const SFTP_CREDENTIAL = 'corporateBankingSftpApi';
const UPLOAD_NODE = 'Upload to Bank (SFTP)';

const chromium = ensureChromium((line) => process.stderr.write(`[e2e] ${line}\n`));
const manifest = packageManifest();

let stack: Stack;
let bank: SandboxSftp;
let gpg: Gpg;
let bankFp: string;
let customerFp: string;
let sshKeyFolder: string;
let sshPrivateKey: string;
/** The host key fingerprint as OpenSSH's own tools print it. */
let opensshFingerprint: string;
let browser: Browser;
let page: Page;
let cookie: string;
let made: { id: string; name: string };

const spaced = (fp: string): string => fp.replace(/(.{4})/g, '$1 ').trim();

async function shot(locator: Locator | Page, name: string): Promise<void> {
	const folder = DOC_PICTURES.includes(name) ? DOC_SHOTS : CHECK_SHOTS;
	mkdirSync(folder, { recursive: true });
	await page.mouse.move(0, 0);
	await locator.screenshot({ path: path.join(folder, name) });
}

const dialog = (): Locator => credentialDialog(page);
const modal = (): Locator => page.getByRole('dialog').filter({ has: dialog() }).first();
const ndv = (): Locator => page.locator('[data-test-id="ndv"]');

/** The form entry (label and input) of a credential field. */
const entryOf = (name: string): Locator => credentialEntry(page, name);

const inputOf = (name: string): Locator => parameterInput(dialog(), name);

/** Types (or pastes) a value into a credential field, as a person does. */
async function put(name: string, value: string, paste = false): Promise<void> {
	const input = inputOf(name);
	await input.waitFor();
	await retype(input, value, { paste });
	expect(await input.inputValue()).toBe(value);
}

/** Chooses an option of a credential's options field by its label. */
async function choose(name: string, option: string): Promise<void> {
	await dialog().locator(`[data-test-id="parameter-input-${name}"]`).click();
	await page.getByRole('option', { name: new RegExp(`^${option}`) }).first().click();
}

/** Save in the dialog; resolves with what the credential's test answered. */
async function saveAndTest(): Promise<{ status: string; message: string }> {
	const tested = page.waitForResponse((r) => /\/rest\/credentials\/test/.test(r.url()));
	await page.locator('[data-test-id="credential-save-button"]').click();
	const answer = ((await (await tested).json()) as { data: { status: string; message: string } }).data;
	if (answer.status === 'OK') await dialog().getByText('Connection tested successfully').first().waitFor();
	else {
		await dialog().getByText(/Couldn.t connect with these settings/).first().waitFor();
		const more = dialog().getByText('More details').first();
		if (await more.count()) await more.click();
		await dialog().getByText(answer.message.slice(0, 40), { exact: false }).first().waitFor();
	}
	return answer;
}

/** Opens a saved credential; resolves with what its test (n8n runs it on opening) answered. */
async function openCredential(id: string): Promise<{ status: string; message: string }> {
	const tested = page.waitForResponse((r) => /\/rest\/credentials\/test/.test(r.url()));
	await page.goto(`${stack.n8n.baseUrl}/home/credentials/${id}`, { waitUntil: 'commit' });
	await dialog().waitFor();
	return ((await (await tested).json()) as { data: { status: string; message: string } }).data;
}

/** Creates a workflow through n8n's REST API (as the editor does). */
async function createWorkflow(workflow: WorkflowJson, name: string): Promise<string> {
	const res = await fetch(`${stack.n8n.baseUrl}/rest/workflows`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', cookie },
		body: JSON.stringify({ nodes: workflow.nodes, connections: workflow.connections, name, settings: { executionOrder: 'v1' } }),
	});
	const text = await res.text();
	if (!res.ok) throw new Error(`POST /rest/workflows answered ${res.status}: ${text.slice(0, 300)}`);
	return (JSON.parse(text) as { data: { id: string } }).data.id;
}

/** "Execute workflow" on the canvas of the open workflow; resolves with the execution n8n saved. */
async function runWorkflow(id: string): Promise<StoredExecution> {
	return await runFromCanvas(page, () => stack.n8n.executions(id), async () => await shot(page, 'editor-failed.png'));
}

if (!manifest.nodes.includes('bankSftp')) skipAll('Bank SFTP in the editor', 'package.json does not list the Bank SFTP node');
else if (!chromium.path) skipAll('Bank SFTP in the editor', chromium.reason ?? 'chromium is not available');
else {
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		// The bank: an SSH key for the login, GnuPG keys for the bank and for the customer.
		sshKeyFolder = mkdtempSync(path.join(os.tmpdir(), 'sftp-editor-ssh-'));
		const keyFile = path.join(sshKeyFolder, 'id_ed25519');
		execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'treasury@customer.example', '-f', keyFile]);
		sshPrivateKey = readFileSync(keyFile, 'utf8');
		bank = await startSandboxSftp({ authorizedKeys: [readFileSync(`${keyFile}.pub`, 'utf8').trim()] });
		// OpenSSH's view of the host key, independent of the node: ssh-keyscan, ssh-keygen -l.
		// (asynchronously: the server answers from this very process)
		const { stdout: scanned } = await promisify(execFile)('ssh-keyscan', ['-T', '20', '-t', 'ed25519', '-p', String(bank.port), bank.host]);
		opensshFingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', '-'], { input: scanned }).toString('utf8').split(' ')[1];
		gpg = new Gpg();
		bankFp = gpg.generate('Bank H2H <h2h@bank.example>', { algorithm: 'ed25519' });
		customerFp = gpg.generate('Esimerkki Oyj <treasury@esimerkki.example>', { algorithm: 'ed25519' });

		stack = await startStack({ install, pkg });
		await stack.n8n.start();
		({ cookie, browser, page } = await openEditor(stack.n8n.baseUrl, chromium.path!));
	}, 600_000);

	afterAll(async () => {
		await browser?.close();
		await stack?.stop();
		await bank?.stop();
		gpg?.remove();
		if (sshKeyFolder) rmSync(sshKeyFolder, { recursive: true, force: true });
	});

	describe(`Bank SFTP typed in real n8n ${N8N_VERSION}'s editor`, () => {
		test("a new credential typed in: without a fingerprint the test shows the server's (as ssh-keygen prints it) and refuses; pasted, it logs in; the pasted OpenPGP keys' fingerprints are shown", async () => {
			expect(opensshFingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
			await page.goto(`${stack.n8n.baseUrl}/home/credentials/create`, { waitUntil: 'commit' });
			await page.locator('[data-test-id="new-credential-type-select"]').click();
			await page.keyboard.type('Bank SFTP');
			await page.locator('[data-test-id="new-credential-type-select-option"]').filter({ hasText: 'Bank SFTP (Host-to-Host)' }).click();
			await page.locator('[data-test-id="new-credential-type-button"]').click();
			await dialog().waitFor();

			await put('host', bank.host);
			await put('port', String(bank.port));
			await put('username', bank.username);
			// SSH Key is the default authentication: the key pasted as it is in its file.
			expect(await inputOf('authentication').inputValue()).toBe('SSH Key');
			await put('privateKey', sshPrivateKey, true);
			expect(await inputOf('hostKeyFingerprint').inputValue()).toBe('');

			const created = page.waitForResponse((r) => /\/rest\/credentials\/?$/.test(r.url()) && r.request().method() === 'POST');
			const refused = await saveAndTest();
			made = ((await (await created).json()) as { data: { id: string; name: string } }).data;
			expect(refused.status).toBe('Error');
			expect(refused.message).toBe(
				`Host Key Fingerprint: No host key is pinned. The server shows ssh-ed25519 ${opensshFingerprint}: compare it with the fingerprint your bank gave you and, if it is the same, paste it into Host Key Fingerprint`,
			);
			expect(opensshFingerprint).toBe(bank.fingerprint);
			await dialog().getByText(opensshFingerprint).first().waitFor();
			await shot(modal(), 'editor-credential-fingerprint-shown.png');

			// The fingerprint pasted: logs in and lists the incoming folder.
			await put('hostKeyFingerprint', opensshFingerprint, true);
			expect(await saveAndTest()).toEqual({ status: 'OK', message: 'Connection successful!' });
			await shot(modal(), 'editor-credential-tested.png');

			// The bank's public key and the customer's key pasted; saved, the test reads them.
			await put('bankPublicKeys', gpg.exportPublic(bankFp), true);
			await choose('pgpKeySource', 'Paste a Key');
			await put('pgpPrivateKey', gpg.exportSecret(customerFp), true);
			expect(await saveAndTest()).toEqual({ status: 'OK', message: 'Connection successful!' });
			await page.keyboard.press('Escape');

			// Opened again: Key Fingerprints shows both keys as gpg prints them; nothing secret.
			expect(await openCredential(made.id)).toEqual({ status: 'OK', message: 'Connection successful!' });
			// Text n8n shows with a Copy button (no input), as the EBICS credential's Status.
			const keys = dialog()
				.locator('[data-test-id="credential-connection-parameter"]')
				.filter({ has: page.locator('[data-test-id="copy-input"]') })
				.filter({ hasText: /^Key Fingerprints/ })
				.first();
			await keys.waitFor();
			await keys.getByText(spaced(bankFp), { exact: false }).first().waitFor();
			const shown = await keys.innerText();
			expect(shown).toContain(`Bank: ${spaced(bankFp)} (EdDSA (ed25519), no expiry)`);
			expect(shown).toContain(`Yours: ${spaced(customerFp)} (EdDSA (ed25519), no expiry)`);
			expect(shown).not.toContain('PRIVATE');
			expect(await dialog().locator('[data-test-id="parameter-input-keyFingerprints"] input, [data-test-id="parameter-input-keyFingerprints"] textarea').count()).toBe(0);
			await keys.scrollIntoViewIfNeeded();
			await shot(modal(), 'editor-credential-key-fingerprints.png');
			await page.keyboard.press('Escape');
		});

		test('wrong values typed as people type them: the message names the field, and the field keeps what was typed', async () => {
			expect(await openCredential(made.id)).toEqual({ status: 'OK', message: 'Connection successful!' });
			const cases: Array<{ field: string; typed: string; message: string | RegExp; paste?: boolean }> = [
				{ field: 'port', typed: `-${bank.port}`, message: `Port: "-${bank.port}" is not a port: digits only, a whole number from 1 to 65535 (22 when empty)` },
				{ field: 'port', typed: `${String(bank.port).slice(0, 2)}o${String(bank.port).slice(2)}`, message: `Port: "${String(bank.port).slice(0, 2)}o${String(bank.port).slice(2)}" is not a port: digits only, a whole number from 1 to 65535 (22 when empty)` },
				{ field: 'host', typed: `sftp://${bank.host}`, message: `Host: "sftp://${bank.host}" must be a host name or address only (no sftp://, no path)` },
			];
			// A fingerprint with one character typed wrong: another key, both named, nothing sent.
			const typo = `${opensshFingerprint.slice(0, 20)}${opensshFingerprint[20] === 'x' ? 'y' : 'x'}${opensshFingerprint.slice(21)}`;
			cases.push({
				field: 'hostKeyFingerprint',
				typed: typo,
				message: `Host Key Fingerprint: The server's host key (ssh-ed25519 ${opensshFingerprint}) is not the pinned one (${typo}): the connection was refused before logging in`,
			});
			// Cut short when copied: not a fingerprint at all.
			const short = opensshFingerprint.slice(0, -1);
			cases.push({ field: 'hostKeyFingerprint', typed: short, message: `Host Key Fingerprint: "${short}" is not a SHA256 fingerprint as OpenSSH prints it (SHA256: and 43 base64 characters)` });
			const good: Record<string, string> = { port: String(bank.port), host: bank.host, hostKeyFingerprint: opensshFingerprint };
			for (const wrong of cases) {
				await put(wrong.field, wrong.typed);
				const answer = await saveAndTest();
				expect([wrong.field, answer]).toEqual([wrong.field, { status: 'Error', message: wrong.message }]);
				// Still what was typed: not taken as another value.
				expect(await inputOf(wrong.field).inputValue()).toBe(wrong.typed);
				if (wrong.field === 'port' && wrong.typed.includes('o')) await shot(modal(), 'editor-credential-port-typo.png');
				await put(wrong.field, good[wrong.field]);
			}
			// An empty host: n8n 2.41.3 marks the required field ("This field is required") and
			// neither saves nor tests; had it tested, the credential's own check names the field.
			await put('host', '');
			await inputOf('host').press('Tab');
			const tested = page
				.waitForResponse((r) => /\/rest\/credentials\/test/.test(r.url()), { timeout: 60_000 })
				.then(async (r) => ((await r.json()) as { data: { status: string; message: string } }).data)
				.catch(() => undefined);
			await page.locator('[data-test-id="credential-save-button"]').click();
			const marked = entryOf('host').getByText(/required/i).first();
			const seen = await Promise.race([tested, marked.waitFor({ timeout: 60_000 }).then(() => 'marked' as const)]);
			process.stderr.write(`[e2e] an empty Host: ${JSON.stringify(seen)}\n`);
			if (seen === 'marked') await entryOf('host').getByText('This field is required').first().waitFor();
			else expect(seen).toEqual({ status: 'Error', message: "Host: is required: the bank SFTP server's name" });
			await shot(modal(), 'editor-credential-host-empty.png');
			await put('host', bank.host);
			expect(await saveAndTest()).toEqual({ status: 'OK', message: 'Connection successful!' });
			await page.keyboard.press('Escape');
		});

		test('the upload example run from the editor with that credential: the output says signed and encrypted; gpg at the bank decrypts it and verifies the signature', async () => {
			const workflow = loadExample('sftp-payments-upload.json');
			for (const node of workflow.nodes) if (node.credentials?.[SFTP_CREDENTIAL]) node.credentials[SFTP_CREDENTIAL] = { ...made };
			const id = await createWorkflow(workflow, 'Bank SFTP: upload with the credential typed in the editor');
			await goTo(page, stack.n8n.baseUrl, `/workflow/${id}`);
			const done = await runWorkflow(id);
			const failed = workflow.nodes.map((n) => [n.name, nodeError(done.run!, n.name)?.message]).filter(([, m]) => m);
			expect(failed).toEqual([]);
			const [sent] = nodeItems(done.run!, UPLOAD_NODE);
			expect(sent.json).toMatchObject({ folder: 'outgoing', signed: true, encrypted: true, signedBy: spaced(customerFp), encryptedTo: [spaced(bankFp)] });
			const name = String(sent.json.name);
			expect(name).toMatch(/^pain001-\d{8}-\d{6}\.xml\.pgp$/);

			// What the person sees: the node's output names the file, signed and encrypted.
			await page.locator('[data-test-id="canvas-node"]').filter({ hasText: UPLOAD_NODE }).first().dblclick();
			const output = page.locator('[data-test-id="output-panel"]');
			await output.getByText('JSON', { exact: true }).first().click();
			await output.getByText(`"name": "${name}"`).first().waitFor();
			await output.getByText(`"signedBy": "${spaced(customerFp)}"`).first().waitFor();
			await shot(ndv(), 'editor-upload-output.png');

			// What the bank received: one file under its own name (no temporary one left), which gpg
			// decrypts with the bank's key and whose signature is the customer's.
			expect(readdirSync(path.join(bank.root, bank.folders.outgoing))).toEqual([name]);
			const opened = gpg.decrypt(readFileSync(path.join(bank.root, bank.folders.outgoing, name)));
			expect(opened.code).toBe(0);
			expect(opened.status).toContain(`VALIDSIG ${customerFp}`);
			const xml = opened.content.toString('utf8');
			expect(xml).toContain('<CstmrCdtTrfInitn>');
			for (const e2e of ['INV-2001', 'INV-2002', 'INV-2003']) expect(xml).toContain(`<EndToEndId>${e2e}</EndToEndId>`);
			expect(Number(sent.json.bytes)).toBe(readFileSync(path.join(bank.root, bank.folders.outgoing, name)).length);
		});
	});
}
