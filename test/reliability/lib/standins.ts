/**
 * Small HTTPS servers standing in front of the sandbox bank, for the answers the sandbox has no
 * switch for (a billion-laughs SOAP answer, broken base64 inside a well-formed envelope, a SET that
 * is not a JWS). They use the sandbox's own server certificate, so the nodes trust them through the
 * same CA and nothing about TLS is relaxed.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type { SandboxBank } from '../../sandbox';
import { httpsCall } from '../../sandbox/testing';

export interface StandIn {
	/** Origin of the stand-in, e.g. https://127.0.0.1:40123 */
	url: string;
	/** Requests the stand-in received. */
	readonly received: number;
	close(): Promise<void>;
}

type Handler = (req: IncomingMessage, body: Buffer, res: ServerResponse) => Promise<void> | void;

export async function startStandIn(bank: SandboxBank, handler: Handler): Promise<StandIn> {
	const key = readFileSync(join(bank.tls.certDir, 'server.key'), 'utf8');
	let received = 0;
	const server = createServer({ key, cert: bank.tls.serverCertPem }, (req, res) => {
		received++;
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			Promise.resolve(handler(req, Buffer.concat(chunks), res)).catch(() => res.socket?.destroy());
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
		get received() {
			return received;
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** Passes a SOAP request to the sandbox's file service and hands back its answer, changed by `transform`. */
export async function startSoapRelay(bank: SandboxBank, transform: (soap: string) => string): Promise<StandIn & { soapUrl: string }> {
	const relay = await startStandIn(bank, async (req, body, res) => {
		const answer = await httpsCall(bank.urls.soap, {
			method: 'POST',
			headers: { 'content-type': String(req.headers['content-type'] ?? 'text/xml'), soapaction: '""' },
			body,
			ca: bank.tls.caPem,
		});
		res.writeHead(answer.status, { 'content-type': 'text/xml; charset=utf-8' });
		res.end(transform(answer.text()));
	});
	return Object.assign(relay, { soapUrl: `${relay.url}/services/CorporateFileService` });
}

/** Passes event polls to the sandbox over mutual TLS and adds `extraSets` to its answers. */
export async function startEventsRelay(bank: SandboxBank, extraSets: () => Record<string, string>): Promise<StandIn & { eventsUrl: string }> {
	const relay = await startStandIn(bank, async (req, body, res) => {
		const answer = await httpsCall(bank.urls.events, {
			method: 'POST',
			headers: { 'content-type': 'application/json', authorization: String(req.headers.authorization ?? '') },
			body,
			ca: bank.tls.caPem,
			cert: bank.tls.clientCertPem,
			key: bank.tls.clientKeyPem,
		});
		let text = answer.text();
		if (answer.status === 200) {
			const doc = JSON.parse(text) as { sets: Record<string, string> };
			doc.sets = { ...doc.sets, ...extraSets() };
			text = JSON.stringify(doc);
		}
		res.writeHead(answer.status, { 'content-type': 'application/json' });
		res.end(text);
	});
	return Object.assign(relay, { eventsUrl: `${relay.url}/events` });
}

const APPLICATION_RESPONSE = /(<(?:[\w-]+:)?ApplicationResponse>)([^<]*)(<\/(?:[\w-]+:)?ApplicationResponse>)/;

/** Changes the base64 text of the SOAP answer's ApplicationResponse. */
export function editApplicationResponseBase64(soap: string, edit: (base64: string) => string): string {
	if (!APPLICATION_RESPONSE.test(soap)) throw new Error('no ApplicationResponse in the sandbox answer');
	return soap.replace(APPLICATION_RESPONSE, (_m, open: string, base64: string, close: string) => `${open}${edit(base64.replace(/\s+/g, ''))}${close}`);
}

/** Changes the decoded XML of the SOAP answer's ApplicationResponse (and encodes it again). */
export function editApplicationResponseXml(soap: string, edit: (xml: string) => string): string {
	return editApplicationResponseBase64(soap, (base64) => Buffer.from(edit(Buffer.from(base64, 'base64').toString('utf8')), 'utf8').toString('base64'));
}

/** The classic entity-expansion bomb: ten levels of ten references, 10^9 "lol"s once expanded. */
export function billionLaughs(root: string): string {
	const levels = ['<!ENTITY lol "lol">'];
	for (let i = 1; i <= 9; i++) levels.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
	return `<!DOCTYPE ${root} [${levels.join('')}]>`;
}

/** Puts a DOCTYPE declaration right after the XML declaration (or at the start). */
export function withDoctype(xml: string, doctype: string): string {
	const declaration = /^\s*<\?xml[^>]*\?>/.exec(xml);
	return declaration ? `${declaration[0]}${doctype}${xml.slice(declaration[0].length)}` : `${doctype}${xml}`;
}
