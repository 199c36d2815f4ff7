/** An EBICS client of a sandbox subscriber, talking HTTPS to the sandbox bank. */
import { EbicsClient, type EbicsKeyMaterial, type EbicsSend, type EbicsSubscriberKeys } from '../../nodes/shared/ebics';
import { httpsCall } from '../sandbox/testing';
import type { SandboxBank } from '../sandbox';

/** A send() that posts to the sandbox's EBICS URL and records every request and answer. */
export function sandboxSend(bank: SandboxBank, log: Array<{ step: string; request: string; answer: string }> = []): (xml: string, step: string) => Promise<string> {
	return async (xml, step) => {
		const result = await httpsCall(bank.urls.ebics, { method: 'POST', body: xml, headers: { 'content-type': 'text/xml; charset=UTF-8' }, ca: bank.tls.caPem });
		if (result.status !== 200) throw new Error(`The EBICS URL answered HTTP ${result.status}`);
		log.push({ step, request: xml, answer: result.text() });
		return result.text();
	};
}

export function sandboxClient(
	bank: SandboxBank,
	partnerId: string,
	userId: string,
	keys: EbicsSubscriberKeys,
	options: { bank?: EbicsKeyMaterial['bank']; send?: EbicsSend; segmentBytes?: number; bankKeyDigestForm?: 'certificate' | 'publicKey'; version?: 'H004' | 'H005'; h004KeyForm?: 'certificate' | 'key' } = {},
): EbicsClient {
	return new EbicsClient({
		subscriber: { hostId: bank.ebics.hostId, partnerId, userId, product: { name: 'n8n-nodes-corporate-banking tests', language: 'en' } },
		keys: { version: 1, subscriber: keys, bank: options.bank },
		send: options.send ?? sandboxSend(bank),
		segmentBytes: options.segmentBytes,
		bankKeyDigestForm: options.bankKeyDigestForm,
		version: options.version,
		h004KeyForm: options.h004KeyForm,
	});
}

/** The admin API, as a test or a user drives it (activate, suspend, switches, faults). */
export async function ebicsAdmin(bank: SandboxBank, route: string, body?: unknown): Promise<unknown> {
	const result = await httpsCall(`${bank.urls.admin}/ebics${route}`, {
		method: body === undefined ? 'GET' : 'POST',
		body: body === undefined ? undefined : JSON.stringify(body),
		headers: { 'content-type': 'application/json' },
		ca: bank.tls.caPem,
	});
	if (result.status !== 200) throw new Error(`admin ${route}: HTTP ${result.status} ${result.text()}`);
	return result.json();
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
	try {
		await promise;
	} catch (error) {
		return error as Error;
	}
	throw new Error('expected a failure');
}
