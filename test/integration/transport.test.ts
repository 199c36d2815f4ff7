import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { bankRequest } from '../../nodes/shared/transport/request';
import { DEFAULT_RETRY } from '../../nodes/shared/transport/retry';
import { bankFailure } from '../../nodes/shared/transport/errors';
import { toNodeError } from '../../nodes/shared/common/errors';
import { clearTokenMemo } from '../../nodes/shared/transport/token';
import { MTLS_AUTH } from '../../nodes/shared/common/credentialFields';
import { CLIENT_CREDENTIALS_AUTH } from '../../nodes/shared/fx/api';
import { CC, CREDENTIAL_IDS, MTLS, sandboxCredentials, useSandbox } from '../helpers/bank';
import { NODE_NAME, packageNodeTypes, PACKAGE, runNode } from '../helpers/nodes';
import { nodeDescription } from '../harness/node-types';

const BY_TYPE = { [CC]: CLIENT_CREDENTIALS_AUTH, [MTLS]: MTLS_AUTH } as const;

/** A bare node that sends one request per item through the shared transport. */
class BankProbe implements INodeType {
	description = nodeDescription('bankProbe', 'Bank Probe', {
		group: ['input'],
		description: 'test',
		credentials: [
			{ name: CC, required: false },
			{ name: MTLS, required: false },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		const items = this.getInputData();
		for (let i = 0; i < items.length; i++) {
			const p = items[i].json as { url: string; method?: 'GET' | 'POST'; body?: IDataObject; credentialType: string; idempotent?: boolean };
			try {
				const res = await bankRequest<IDataObject>(this, BY_TYPE[p.credentialType as keyof typeof BY_TYPE], {
					method: p.method ?? 'GET',
					url: p.url,
					body: p.body,
					idempotent: p.idempotent ?? true,
					retry: DEFAULT_RETRY,
				});
				out.push({ json: { status: res.statusCode, body: res.body, attempts: res.attempts }, pairedItem: { item: i } });
			} catch (error) {
				throw toNodeError(this.getNode(), bankFailure(error), i);
			}
		}
		return [out];
	}
}

const sandbox = useSandbox({ tokenTtlSeconds: 3600 });
const nodeTypes = { ...packageNodeTypes(), [`${PACKAGE}.bankProbe`]: new BankProbe() };

async function probe(items: IDataObject[], store = sandboxCredentials(sandbox.bank()), credentialIds: Record<string, string> = CREDENTIAL_IDS) {
	return await runNode({
		type: 'bankProbe',
		parameters: {},
		nodeTypes,
		credentials: credentialIds,
		store,
		inputItems: items.map((json) => ({ json })),
	});
}

const openTrades = () => ({ url: `${sandbox.bank().urls.reportBase}/trade-reports/open?limit=1`, credentialType: CC });

describe('token cache', () => {
	it('asks the token endpoint once for many requests, across runs sharing the credential', async () => {
		const store = sandboxCredentials(sandbox.bank());
		const first = await probe([openTrades(), openTrades(), openTrades()], store);
		expect(first.output(NODE_NAME)).toHaveLength(3);
		await probe([openTrades(), openTrades()], store);
		expect(sandbox.bank().stats.tokenRequests).toBe(1);
		expect(store.updates).toBe(1);
		expect(store.get(CREDENTIAL_IDS[CC])?.data.accessToken).toEqual(expect.any(String));
	});

	it('shares the token between two engine instances through the credential store (queue mode)', async () => {
		const store = sandboxCredentials(sandbox.bank());
		await probe([openTrades()], store);
		clearTokenMemo(); // a second worker process has no memory of the first one's token
		await probe([openTrades()], store);
		expect(sandbox.bank().stats.tokenRequests).toBe(1);
	});

	it('asks again after a 401 and retries the request once', async () => {
		const store = sandboxCredentials(sandbox.bank());
		await probe([openTrades()], store);
		sandbox.bank().tokens.expireAll();
		const result = await probe([openTrades()], store);
		expect(result.output(NODE_NAME)[0].json.status).toBe(200);
		expect(sandbox.bank().stats.tokenRequests).toBe(2);
		const report = sandbox.bank().stats.requests.filter((r) => r.area === 'report');
		expect(report.map((r) => r.status)).toEqual([200, 401, 200]);
	});

	it('renews a token before it expires, without a 401', async () => {
		const store = sandboxCredentials(sandbox.bank());
		await probe([openTrades()], store);
		const data = store.get(CREDENTIAL_IDS[CC])!.data;
		store.set({ id: CREDENTIAL_IDS[CC], name: 'cc', type: CC, data: { ...data, tokenExpiresAt: Date.now() - 1 } });
		clearTokenMemo(); // as another worker would see it
		await probe([openTrades()], store);
		expect(sandbox.bank().stats.tokenRequests).toBe(2);
		expect(sandbox.bank().stats.requests.filter((r) => r.area === 'report').map((r) => r.status)).toEqual([200, 200]);
	});

	it('reports a refused client id with the bank reason and without the client id', async () => {
		const store = sandboxCredentials(sandbox.bank(), { [CC]: { clientId: 'unknown-client-42' } });
		const result = await probe([openTrades()], store);
		const error = result.nodeError(NODE_NAME);
		expect(error?.message).toMatch(/Could not get an access token: the bank answered HTTP 401/);
		expect(JSON.stringify(error)).not.toContain('unknown-client-42');
	});
});

describe('bank error bodies', () => {
	it('trade report {error:{exception,message}} after retries run out', async () => {
		sandbox.bank().faults.add({ kind: 'status', status: 503, area: 'report', count: 3 });
		const result = await probe([openTrades()]);
		const error = result.nodeError(NODE_NAME)!;
		expect(error.name).toBe('NodeApiError');
		expect(error.httpCode).toBe('503');
		expect(error.description).toMatch(/Bank code: \w+/);
		expect(sandbox.bank().stats.requests.filter((r) => r.area === 'report')).toHaveLength(3);
	});

	it('retries an idempotent request after a dropped connection and succeeds', async () => {
		sandbox.bank().faults.add({ kind: 'drop', area: 'report', count: 1 });
		const result = await probe([openTrades()]);
		expect(result.output(NODE_NAME)[0].json).toMatchObject({ status: 200, attempts: 2 });
	});

	it('execution {timestamp,exception,message}', async () => {
		const result = await probe([{ url: `${sandbox.bank().urls.executionBase}/trade-execution/execute`, method: 'POST', body: { counterpart: 'X' }, credentialType: CC, idempotent: false }]);
		const error = result.nodeError(NODE_NAME)!;
		expect(error.httpCode).toBe('400');
		expect(error.message.length).toBeGreaterThan(5);
		expect(error.description).toMatch(/Bank code: \w+/);
		expect(sandbox.bank().stats.executions).toBe(0);
	});

	it('event polling {Code,Message,Errors} over mutual TLS', async () => {
		sandbox.bank().faults.add({ kind: 'status', status: 400, area: 'events', count: 1 });
		const result = await probe([{ url: sandbox.bank().urls.events, method: 'POST', body: { maxEvents: 0 }, credentialType: MTLS, idempotent: false }]);
		const error = result.nodeError(NODE_NAME)!;
		expect(error.httpCode).toBe('400');
		expect(error.description).toMatch(/Bank code: /);
	});
});

describe('client TLS', () => {
	it('reaches the mutual-TLS endpoint with the client certificate', async () => {
		const result = await probe([{ url: sandbox.bank().urls.events, method: 'POST', body: { maxEvents: 0, returnImmediately: true }, credentialType: MTLS, idempotent: false }]);
		expect(result.output(NODE_NAME)[0].json).toMatchObject({ status: 200, body: { sets: {} } });
		expect(sandbox.bank().stats.mtlsTokenRequests).toBe(1);
	});

	it('repairs a PEM pasted on one line', async () => {
		const values = sandbox.bank().credentialValues()[MTLS];
		const store = sandboxCredentials(sandbox.bank(), {
			[MTLS]: { certificate: String(values.certificate).replace(/\n/g, ' '), privateKey: String(values.privateKey).replace(/\n/g, '\\n') },
		});
		const result = await probe([{ url: sandbox.bank().urls.events, method: 'POST', body: { maxEvents: 0 }, credentialType: MTLS }], store);
		expect(result.output(NODE_NAME)[0].json.status).toBe(200);
	});

	it('fails clearly when the bank refuses the client certificate (another CA)', async () => {
		const store = sandboxCredentials(sandbox.bank(), { [MTLS]: { certificate: sandbox.bank().tls.otherCaClientCertPem, privateKey: sandbox.bank().tls.otherCaClientKeyPem } });
		const result = await probe([{ url: sandbox.bank().urls.events, method: 'POST', body: { maxEvents: 0 }, credentialType: MTLS }], store);
		expect(result.nodeError(NODE_NAME)?.message).toMatch(/Could not get an access token: the bank closed the connection during the TLS handshake \(ECONNRESET\)\. It may have refused the client certificate/);
		expect(sandbox.bank().stats.mtlsTokensIssued).toBe(0);
	});

	it('refuses an expired client certificate before connecting, naming the field', async () => {
		const store = sandboxCredentials(sandbox.bank(), { [MTLS]: { certificate: sandbox.bank().tls.expiredClientCertPem, privateKey: sandbox.bank().tls.expiredClientKeyPem } });
		const result = await probe([{ url: sandbox.bank().urls.events, method: 'POST', body: { maxEvents: 0 }, credentialType: MTLS }], store);
		expect(result.nodeError(NODE_NAME)?.message).toMatch(/Client Certificate: expired on/);
		expect(sandbox.bank().stats.mtlsTokenRequests).toBe(0);
	});

	it('names the wrong passphrase', async () => {
		const tls = sandbox.bank().tls;
		const store = sandboxCredentials(sandbox.bank(), { [MTLS]: { privateKey: tls.clientKeyEncryptedPem, passphrase: 'wrong' } });
		const result = await probe([{ url: sandbox.bank().urls.events, method: 'POST', body: { maxEvents: 0 }, credentialType: MTLS }], store);
		expect(result.nodeError(NODE_NAME)?.message).toMatch(/Passphrase: wrong passphrase/);
		const ok = sandboxCredentials(sandbox.bank(), { [MTLS]: { privateKey: tls.clientKeyEncryptedPem, passphrase: tls.clientKeyPassphrase } });
		const good = await probe([{ url: sandbox.bank().urls.events, method: 'POST', body: { maxEvents: 0 }, credentialType: MTLS }], ok);
		expect(good.output(NODE_NAME)[0].json.status).toBe(200);
	});

	it('fails clearly on an untrusted server certificate', async () => {
		const store = sandboxCredentials(sandbox.bank(), { [CC]: { caCertificate: '' } });
		const result = await probe([openTrades()], store);
		expect(result.nodeError(NODE_NAME)?.message).toMatch(/TLS certificate is not trusted \(\w+\)\. Add the bank's CA certificate/);
		expect(sandbox.bank().stats.tokenRequests).toBe(0);
	});

	it('connects without verification only when explicitly switched off', async () => {
		const store = sandboxCredentials(sandbox.bank(), { [CC]: { caCertificate: '', allowUnauthorizedCerts: true } });
		const result = await probe([openTrades()], store);
		expect(result.output(NODE_NAME)[0].json.status).toBe(200);
	});

	it('never sends the bearer token to a URL outside the credential', async () => {
		const result = await probe([{ url: `${sandbox.bank().urls.foreign}/steal`, credentialType: CC }]);
		expect(result.nodeError(NODE_NAME)?.message).toMatch(/Refusing to send the bank credential/);
		expect(sandbox.bank().stats.foreignRequests).toHaveLength(0);
	});
});
