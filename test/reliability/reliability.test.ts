/**
 * Reliability and security of the whole package, table-driven: the bad-input catalogue, the
 * faults of the sandbox bank for every node, the secrets scan, TLS and queue mode. Every case runs
 * through n8n's real engine (or its polling engine) against the sandbox bank. See README.md here.
 */
import type { ICredentialType, INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { BankEventTrigger } from '../../nodes/BankEventTrigger/BankEventTrigger.node';
import { clearJwksCache } from '../../nodes/BankEventTrigger/events/keys';
import { BankMockService } from '../../nodes/BankMockService/BankMockService.node';
import { tlsFromCredentials } from '../../nodes/shared/common/credentialFields';
import { buildTlsOptions } from '../../nodes/shared/transport/tls';
import { clearTokenMemo } from '../../nodes/shared/transport/token';
import { runWorkflow } from '../harness/engine';
import { createPollHarness } from '../harness/poll';
import { CC, FILES, MTLS, sandboxCredentials, useSandbox } from '../helpers/bank';
import { manualExamples, prepareExample } from '../helpers/examples';
import { packageCredentialTypes, packageNodeTypes } from '../helpers/nodes';
import { CATALOGUE, CATALOGUE_SECRETS, type BadInputCase } from './lib/catalogue';
import { FAULTS, type FaultCase } from './lib/faults';
import type { Outcome } from './lib/run';
import { outcomeOfRun, requestsIn, runAction, runTrigger, triggerHarness } from './lib/run';
import { SecretRegistry, withoutExpectedAudience } from './lib/secrets';

const sandbox = useSandbox();
beforeEach(() => clearJwksCache());

/** What the secrets scan looks at: every text every case and example showed. */
const secrets = new SecretRegistry();
const scanned: Array<{ where: string; text: string }> = [];
const scannedCatalogueCases = new Set<string>();
let excludedAudiences = 0;
let secretsFound: number | undefined;
let tlsCases = 0;
let queueCases = 0;

function collect(label: string, outcome: Outcome): void {
	const tokens = new Set<string>();
	for (const store of outcome.stores) for (const token of secrets.addTokens(store)) tokens.add(token);
	// Every token the sandbox issued during this case reached a credential, and so the scan.
	const bank = sandbox.bank();
	expect(tokens.size).toBeGreaterThanOrEqual(bank.stats.tokensIssued + bank.stats.mtlsTokensIssued);
	for (const text of outcome.texts) scanned.push({ where: `${label}: ${text.where}`, text: text.text });
	excludedAudiences += outcome.excludedAudiences;
}

const label = (c: { node: string; name: string }) => `${c.node}: ${c.name}`;

describe('bad-input catalogue', () => {
	it('has at least 40 cases across every node, each named once', () => {
		expect(CATALOGUE.length).toBeGreaterThanOrEqual(40);
		expect(new Set(CATALOGUE.map(label)).size).toBe(CATALOGUE.length);
		expect(new Set(CATALOGUE.map((c) => c.node))).toEqual(new Set(['fxTradeReport', 'fxTradeExecution', 'bankMockService', 'corporateFileService', 'bankEventTrigger']));
	});

	it.each(CATALOGUE.map((c) => [label(c), c] as [string, BadInputCase]))('%s', async (name, c) => {
		const bank = sandbox.bank();
		const outcome = await c.run(bank);
		collect(name, outcome);
		scannedCatalogueCases.add(name);
		if (c.shownOn === 'rejected') {
			const [rejected] = outcome.items[1];
			expect(rejected?.json).toEqual(expect.objectContaining({ err: expect.stringMatching(/^invalid_(request|key|issuer|audience)$/), description: expect.stringMatching(c.message) }));
		} else {
			expect(outcome.status).toBe('error');
			expect(outcome.error?.message).toMatch(c.message);
		}
		c.harmless(bank, outcome);
	});
});

describe('faults of the sandbox bank, for every node', () => {
	it('covers token expiry, 5xx, slow and dropped answers for every node (token expiry where the node uses a token)', () => {
		const covered = new Set(FAULTS.map((f) => `${f.node}/${f.fault}`));
		for (const node of ['fxTradeReport', 'fxTradeExecution', 'bankEventTrigger']) {
			for (const fault of ['token expiry', '5xx', 'slow', 'dropped']) expect(covered).toContain(`${node}/${fault}`);
		}
		// The file service and the mock service have no token.
		for (const node of ['corporateFileService', 'bankMockService']) {
			for (const fault of ['5xx', 'slow', 'dropped']) expect(covered).toContain(`${node}/${fault}`);
		}
	});

	it.each(FAULTS.map((f) => [`${f.node}, ${f.fault}: ${f.name}`, f] as [string, FaultCase]))('%s', async (name, f) => {
		const bank = sandbox.bank();
		const outcome = await f.run(bank);
		collect(name, outcome);
		if (f.message) expect(outcome.error?.message).toMatch(f.message);
		f.verify(bank, outcome);
	});
});

describe('secrets never show', () => {
	it.each(manualExamples())('example %s', async (file) => {
		const bank = sandbox.bank();
		// What runExample does, keeping the credential store to read the tokens from.
		const { workflow, store } = prepareExample(file, bank);
		const result = await runWorkflow({ workflow, nodeTypes: packageNodeTypes(), credentialTypes: packageCredentialTypes(), credentials: store, binaryDataMode: 'filesystem' });
		expect(result.status).toBe('success');
		expect(Object.keys(result.runData).length).toBeGreaterThan(1);
		collect(`example ${file}`, outcomeOfRun(result, store, file));
	});

	it('example bank-event-trigger.json, active (scheduled polls) and in the editor (Fetch Test Event)', async () => {
		const bank = sandbox.bank();
		const { workflow, store } = prepareExample('bank-event-trigger.json', bank);
		const node = workflow.nodes.find((n) => n.type.endsWith('.bankEventTrigger'))!;
		const s = bank.eventSettings();
		Object.assign(node.parameters, { jwksUrl: s.jwksUrl, issuer: s.issuer, audience: s.audience, options: { includeRawSet: true } });
		bank.events.enqueue([{ type: 'resource-update' }, { type: 'consent-authorization-revoked' }, { defect: 'wrongAudience' }]);
		const active = createPollHarness({ node, nodeType: new BankEventTrigger(), credentialTypes: packageCredentialTypes(), credentials: store });
		const first = await active.poll();
		expect(first?.[0]).toHaveLength(2);
		expect(first?.[1]).toHaveLength(1);
		expect(await active.poll()).toBeNull();
		const emitted = withoutExpectedAudience(first?.[0], s.audience);
		excludedAudiences += emitted.excluded;
		scanned.push({ where: 'example bank-event-trigger.json (active): items', text: JSON.stringify([emitted.items, first?.[1]]) });
		scanned.push({ where: 'example bank-event-trigger.json (active): logs', text: active.logs.join('\n') });

		bank.events.enqueue(1);
		const manual = await runWorkflow({
			workflow,
			nodeTypes: { ...packageNodeTypes(), [node.type]: new BankEventTrigger() },
			credentialTypes: packageCredentialTypes(),
			credentials: store,
		});
		expect(manual.status).toBe('success');
		// The editor run's trigger items carry aud too: take it out the same way before the scan.
		for (const run of manual.runData[node.name]) {
			const items = run.data?.main?.[0] ?? [];
			const cleaned = withoutExpectedAudience(items, s.audience);
			excludedAudiences += cleaned.excluded;
			run.data!.main[0] = cleaned.items;
		}
		collect('example bank-event-trigger.json (editor)', outcomeOfRun(manual, store, 'bank-event-trigger.json'));
		expect(secrets.count('access token (corporateBankingMtlsApi)')).toBeGreaterThan(0);
	});

	it('finds no token, client ID, private key or passphrase in any item, error or log line', () => {
		const bank = sandbox.bank();
		secrets.addBank(bank);
		for (const value of CATALOGUE_SECRETS) secrets.add('value typed into a credential by the catalogue', value);
		// The scan is complete: every failing case of the catalogue was scanned, and it knows the
		// tokens of both kinds of credential.
		expect([...scannedCatalogueCases].sort()).toEqual(CATALOGUE.map(label).sort());
		expect(secrets.count('access token (corporateBankingClientCredentialsApi)')).toBeGreaterThan(3);
		expect(secrets.count('access token (corporateBankingMtlsApi)')).toBeGreaterThan(3);
		expect(secrets.count('client private key')).toBeGreaterThan(10);
		// It can fail: a text holding a secret is found.
		const [token] = secrets.list().filter((s) => s.label.startsWith('access token'));
		expect(secrets.scan([{ where: 'control', text: `{"message":"Bearer ${token.value}"}` }])).toEqual([{ label: token.label, where: 'control' }]);
		expect(secrets.scan([{ where: 'control', text: bank.tls.clientKeyPem }]).length).toBeGreaterThan(10);

		const findings = secrets.scan(scanned);
		secretsFound = findings.length;
		expect(findings).toEqual([]);
		expect(scanned.length).toBeGreaterThan(2 * CATALOGUE.length);
	});
});

describe('TLS: verification always on, a custom CA per credential, turning it off only on purpose', () => {
	// Every credential that speaks HTTPS; the Bank SFTP credential speaks SSH, where the server's
	// pinned host key takes the place of TLS verification (test/integration/sftpLibrary.test.ts).
	const credentialTypes = packageCredentialTypes().filter((t) => t.name !== 'corporateBankingSftpApi');
	expect(credentialTypes.length).toBe(packageCredentialTypes().length - 1);
	const property = (type: ICredentialType | { properties: INodeProperties[] }, name: string) => type.properties.find((p) => p.name === name);

	/** Whether n8n's editor shows a property for these values (n8n's own display logic). */
	const shows = (prop: INodeProperties | undefined, values: INodeParameters) => !!prop && NodeHelpers.displayParameter(values, prop, null, null);

	it.each(credentialTypes.map((t) => [t.name, t] as [string, ICredentialType]))('credential %s: Ignore TLS Certificate Errors is off by default and warned about', (_name, type) => {
		tlsCases++;
		expect(property(type, 'caCertificate')).toMatchObject({ type: 'string', default: '' });
		expect(property(type, 'allowUnauthorizedCerts')).toMatchObject({ type: 'boolean', default: false });
		const notice = property(type, 'allowUnauthorizedCertsNotice');
		expect(notice).toMatchObject({ type: 'notice', displayName: expect.stringMatching(/exposes tokens, files and trades .* only against a local test server/) });
		expect(shows(notice, { allowUnauthorizedCerts: true })).toBe(true);
		expect(shows(notice, { allowUnauthorizedCerts: false })).toBe(false);
	});

	it('Bank Mock Service: Ignore SSL Issues is off by default and warned about', () => {
		tlsCases++;
		const properties = new BankMockService().description.properties;
		const connection = properties.find((p) => p.name === 'connection');
		const option = (connection?.options as INodeProperties[]).find((o) => o.name === 'allowUnauthorizedCerts');
		expect(option).toMatchObject({ type: 'boolean', default: false, displayName: expect.stringMatching(/Insecure/) });
		const notice = properties.find((p) => p.name === 'allowUnauthorizedCertsNotice');
		expect(notice).toMatchObject({ type: 'notice', displayName: expect.stringMatching(/^Certificate verification is off.* only against a local test server/) });
		expect(shows(notice, { connection: { allowUnauthorizedCerts: true } })).toBe(true);
		expect(shows(notice, { connection: { allowUnauthorizedCerts: false } })).toBe(false);
		expect(shows(notice, { connection: {} })).toBe(false);
	});

	it('only the switch itself turns verification off: anything else keeps it on', () => {
		tlsCases++;
		expect(buildTlsOptions({})).toBeUndefined();
		for (const value of ['true', 1, 'yes', null, undefined, false]) {
			expect(buildTlsOptions({ allowUnauthorizedCerts: value })?.rejectUnauthorized).toBeUndefined();
		}
		expect(tlsFromCredentials({ allowUnauthorizedCerts: true })?.rejectUnauthorized).toBe(false);
	});

	type Target = 'fxTradeReport' | 'corporateFileService' | 'bankEventTrigger' | 'bankMockService';
	const TARGETS: Array<[Target, string]> = [
		['fxTradeReport', CC],
		['corporateFileService', FILES],
		['bankEventTrigger', MTLS],
		['bankMockService', 'node option'],
	];

	async function reach(target: Target, tls: { caCertificate: string; allowUnauthorizedCerts?: boolean }): Promise<Outcome> {
		const bank = sandbox.bank();
		if (target === 'bankMockService') {
			bank.mock.configure({ errorRate: 0 });
			return await runAction(bank, target, { parameters: { api: 'report', operation: 'getOpen', limit: 1, connection: tls } });
		}
		if (target === 'bankEventTrigger') {
			bank.events.enqueue(1);
			return await runTrigger(bank, { mode: 'manual', credential: tls });
		}
		const parameters = target === 'fxTradeReport' ? { operation: 'getOpen', limit: 1 } : { operation: 'getUserInfo' };
		return await runAction(bank, target, { parameters, credential: { [target === 'fxTradeReport' ? CC : FILES]: tls } });
	}

	it.each(TARGETS)('%s (%s): trusts the CA it is given, refuses an untrusted server, connects anyway only with the switch on', async (target) => {
		tlsCases++;
		const bank = sandbox.bank();
		const withCa = await reach(target, { caCertificate: bank.tls.caPem });
		collect(`TLS ${target} with CA`, withCa);
		expect(withCa.error).toBeUndefined();
		expect(withCa.items.flat().length).toBeGreaterThan(0);

		for (const ca of ['', bank.tls.otherCaPem]) {
			bank.resetStats();
			const refused = await reach(target, { caCertificate: ca });
			collect(`TLS ${target} untrusted`, refused);
			expect(refused.error?.message).toMatch(/TLS certificate is not trusted/);
			expect(refused.items.flat()).toEqual([]);
			expect(bank.stats.requests.filter((r) => r.area !== 'admin')).toEqual([]);
		}

		const switchedOff = await reach(target, { caCertificate: '', allowUnauthorizedCerts: true });
		collect(`TLS ${target} switched off`, switchedOff);
		expect(switchedOff.error).toBeUndefined();
		expect(switchedOff.items.flat().length).toBeGreaterThan(0);
	});
});

describe('queue mode: several n8n processes share one token through the credential', () => {
	it('two workers (separate processes: no shared memory) ask the bank for one token', async () => {
		queueCases++;
		const bank = sandbox.bank();
		const store = sandboxCredentials(bank);
		const first = await runAction(bank, 'fxTradeReport', { parameters: { operation: 'getOpen', limit: 3 }, store });
		clearTokenMemo(); // worker 2 starts with nothing in memory
		const second = await runAction(bank, 'fxTradeExecution', { parameters: { operation: 'executeTrade', counterpart: 'DEMOCP1', buyCurrency: 'DKK', sellCurrency: 'EUR', amount: 1000, amountSide: 'SELL', baseSide: 'SELL', maturityType: 'tenor', tenor: 'SP' }, store });
		clearTokenMemo(); // and worker 1 again
		const third = await runAction(bank, 'fxTradeReport', { parameters: { operation: 'get', tradeId: bank.trades.all()[0].tradeId }, store });
		for (const [name, outcome] of [['first', first], ['second', second], ['third', third]] as const) {
			collect(`queue mode ${name}`, outcome);
			expect(outcome.error).toBeUndefined();
		}
		expect(bank.stats.tokenRequests).toBe(1);
		expect(store.updates).toBe(1);
		expect(bank.stats.requests.filter((r) => r.status === 401)).toEqual([]);
	});

	it('a token one worker renewed after a 401 is the one the other worker uses', async () => {
		queueCases++;
		const bank = sandbox.bank();
		const store = sandboxCredentials(bank);
		await runAction(bank, 'fxTradeReport', { parameters: { operation: 'getOpen', limit: 1 }, store });
		bank.tokens.expireAll();
		clearTokenMemo();
		const renewed = await runAction(bank, 'fxTradeReport', { parameters: { operation: 'getOpen', limit: 1 }, store });
		clearTokenMemo();
		const other = await runAction(bank, 'fxTradeReport', { parameters: { operation: 'getOpen', limit: 1 }, store });
		collect('queue mode renewed', renewed);
		collect('queue mode other', other);
		expect(renewed.error).toBeUndefined();
		expect(other.error).toBeUndefined();
		expect(bank.stats.tokenRequests).toBe(2);
		expect(bank.stats.requests.filter((r) => r.area === 'report').map((r) => r.status)).toEqual([200, 401, 200, 200]);
	});

	it('within one process, runs that need a token at the same moment share one token request', async () => {
		queueCases++;
		const bank = sandbox.bank();
		const store = sandboxCredentials(bank);
		const runs = await Promise.all([1, 2, 3].map(async (limit) => await runAction(bank, 'fxTradeReport', { parameters: { operation: 'getOpen', limit }, store })));
		runs.forEach((outcome, i) => {
			collect(`queue mode concurrent ${i}`, outcome);
			expect(outcome.items[0]).toHaveLength(i + 1);
		});
		expect(bank.stats.tokenRequests).toBe(1);
	});

	it('two instances polling with the mutual-TLS credential ask for one token', async () => {
		queueCases++;
		const bank = sandbox.bank();
		const store = sandboxCredentials(bank);
		const queued = bank.events.enqueue(2);
		const main = triggerHarness(bank, {}, store);
		const [events] = (await main.poll())!;
		expect(events.map((e) => e.json.jti)).toEqual(queued);
		clearTokenMemo(); // another instance, e.g. after a restart or a leader change
		const other = triggerHarness(bank, {}, store).reload(main.staticData());
		expect(await other.poll()).toBeNull();
		expect(bank.events.pending()).toEqual([]);
		expect(bank.stats.mtlsTokenRequests).toBe(1);
		expect(requestsIn(bank, 'events')).toBe(2);
	});
});

afterAll(() => {
	const byCategory = new Map<string, number>();
	for (const c of CATALOGUE) byCategory.set(c.category, (byCategory.get(c.category) ?? 0) + 1);
	const byFault = new Map<string, number>();
	for (const f of FAULTS) byFault.set(f.fault, (byFault.get(f.fault) ?? 0) + 1);
	const list = (m: Map<string, number>) => [...m].map(([k, n]) => `${n} ${k}`).join(', ');
	process.stdout.write(
		[
			`reliability: ${CATALOGUE.length} bad-input cases, ${FAULTS.length} fault cases, ${tlsCases} TLS cases, ${queueCases} queue-mode cases, ` +
				`${secretsFound === undefined ? 'secrets scan not run' : `${secretsFound} secrets found`} (${secrets.size} secret values in ${scanned.length} texts; ` +
				`${excludedAudiences} event aud claims equal to the Expected Audience left out)`,
			`  bad input: ${list(byCategory)}`,
			`  faults: ${list(byFault)}`,
			'',
		].join('\n'),
	);
});
