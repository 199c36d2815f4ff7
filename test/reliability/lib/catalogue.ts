/**
 * The bad-input catalogue: every way a user or a bank can hand the nodes something wrong, each run
 * through the real n8n engine against the sandbox bank (or a stand-in in front of it where the
 * sandbox has no switch for the answer). Each case names the error a user must see (the field and
 * the rule) and proves that nothing harmful happened: no request left n8n, or the bad answer was
 * refused instead of being used.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';

import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { CC, FILES, TRADE } from '../../helpers/bank';
import { bankSigned, setClaims } from '../../helpers/events';
import { certificateRequest, changedCharacter, pemBlock, pemBody } from '../../helpers/pem';
import type { FaultSpec, SandboxBank } from '../../sandbox';
import { applicationRequestXml } from '../../sandbox/testing';
import type { ActionKind, ActionOptions, NodeKind, Outcome } from './run';
import { requestsIn, runAction, runTrigger, tokenRequests } from './run';
import {
	billionLaughs,
	editApplicationResponseBase64,
	editApplicationResponseXml,
	startEventsRelay,
	startSoapRelay,
	withDoctype,
} from './standins';

export type Category =
	| 'dates and paging'
	| 'trade ID and counterparts'
	| 'amounts, currencies, maturity'
	| 'node settings'
	| 'PEM, keys and passphrases'
	| 'XML and base64'
	| 'not JSON'
	| 'signed events'
	| 'TLS';

export interface BadInputCase {
	node: NodeKind;
	category: Category;
	name: string;
	/** Refused before any request, or a bad answer refused instead of used. */
	kind: 'before any request' | 'instead of harm';
	run(bank: SandboxBank): Promise<Outcome>;
	/** The error the user sees: names the field (or the part of the answer) and the rule. */
	message: RegExp;
	/** Where the error shows: the node's error (default), or the trigger's Rejected output. */
	shownOn?: 'error' | 'rejected';
	/** Proves nothing harmful happened. */
	harmless(bank: SandboxBank, outcome: Outcome): void;
}

const daysAgo = (n: number) => DateTime.utc().minus({ days: n }).toISODate()!;
const inDays = (n: number) => DateTime.utc().plus({ days: n }).toISODate()!;

/** No request reached these areas of the bank, and no token was asked for. */
function nothingSent(...areas: string[]) {
	return (bank: SandboxBank) => {
		expect({ requests: requestsIn(bank, ...areas), tokens: tokenRequests(bank) }).toEqual({ requests: 0, tokens: 0 });
	};
}

const REPORT_AREAS = ['report', 'token'];
const EXECUTION_AREAS = ['execution', 'token'];
const FILE_AREAS = ['soap', 'soapLarge'];
const EVENT_AREAS = ['events', 'mtlsToken', 'jwks'];

/** A bad value an action node refuses before any request; `harmless` proves nothing was sent. */
function refusedBefore(
	node: ActionKind,
	category: Category,
	name: string,
	options: (bank: SandboxBank) => ActionOptions,
	message: RegExp,
	harmless: BadInputCase['harmless'],
): BadInputCase {
	return { node, category, name, kind: 'before any request', run: async (bank) => await runAction(bank, node, options(bank)), message, harmless };
}

function report(category: Category, name: string, parameters: IDataObject, message: RegExp): BadInputCase {
	return refusedBefore('fxTradeReport', category, name, () => ({ parameters }), message, nothingSent(...REPORT_AREAS));
}

function execution(category: Category, name: string, parameters: IDataObject, message: RegExp, settings?: IDataObject): BadInputCase {
	return refusedBefore('fxTradeExecution', category, name, () => ({ parameters: { ...TRADE, ...parameters }, settings }), message, (bank) => {
		nothingSent(...EXECUTION_AREAS)(bank);
		expect(bank.stats.executions).toBe(0);
	});
}

function mock(category: Category, name: string, parameters: IDataObject, message: RegExp): BadInputCase {
	return refusedBefore('bankMockService', category, name, () => ({ parameters }), message, (bank) => expect(requestsIn(bank, 'mock')).toBe(0));
}

function files(category: Category, name: string, parameters: IDataObject, message: RegExp, credential: (bank: SandboxBank) => Record<string, unknown> = () => ({})): BadInputCase {
	return refusedBefore('corporateFileService', category, name, (bank) => ({ parameters, credential: { [FILES]: credential(bank) } }), message, (bank) => {
		nothingSent(...FILE_AREAS)(bank);
		expect(bank.stats.soapCalls).toEqual([]);
	});
}

/** Lines of a pasted text long enough to recognise (BEGIN/END lines left out: messages name them), as typed and as JSON writes them. */
function recognisable(text: string): string[] {
	const lines = text
		.split(/[\r\n]+/)
		.map((line) => line.trim())
		.filter((line) => line.length >= 16 && !/^-----(BEGIN|END) [A-Z0-9 ]+-----$/.test(line));
	return [...new Set(lines.flatMap((line) => [line, JSON.stringify(line).slice(1, -1)]))];
}

/** A Bank Certificate the file service refuses before sending anything, without showing what was pasted. */
function bankCertificate(name: string, message: RegExp, pasted: (bank: SandboxBank) => string): BadInputCase {
	let text = '';
	const refused = files('PEM, keys and passphrases', name, { operation: 'getUserInfo' }, message, (bank) => ({ bankCertificate: (text = pasted(bank)) }));
	return {
		...refused,
		harmless: (bank, outcome) => {
			refused.harmless(bank, outcome);
			const pieces = recognisable(text);
			expect(pieces.length).toBeGreaterThan(0);
			expect(outcome.texts.filter((t) => pieces.some((piece) => t.text.includes(piece))).map((t) => t.where)).toEqual([]);
		},
	};
}

function trigger(category: Category, name: string, parameters: IDataObject, message: RegExp, credential: (bank: SandboxBank) => Record<string, unknown> = () => ({})): BadInputCase {
	return {
		node: 'bankEventTrigger',
		category,
		name,
		kind: 'before any request',
		run: async (bank) => {
			bank.events.enqueue(1);
			return await runTrigger(bank, { parameters, credential: credential(bank) });
		},
		message,
		harmless: (bank, outcome) => {
			nothingSent(...EVENT_AREAS)(bank);
			expect(outcome.items.flat()).toEqual([]);
			expect(bank.events.pending()).toHaveLength(1);
		},
	};
}

/** A file-service answer changed on its way back; nothing of it may reach the items. */
function soapAnswer(name: string, operation: string, transform: (soap: string) => string, message: RegExp, parameters: (bank: SandboxBank) => IDataObject = () => ({})): BadInputCase {
	return {
		node: 'corporateFileService',
		category: 'XML and base64',
		name,
		kind: 'instead of harm',
		run: async (bank) => {
			const relay = await startSoapRelay(bank, transform);
			try {
				// An entity bomb is refused, never expanded: the case's message is the refusal.
				return await runAction(bank, 'corporateFileService', {
					parameters: { operation, ...parameters(bank) },
					credential: { [FILES]: { url: relay.soapUrl, largeFileUrl: '' } },
				});
			} finally {
				await relay.close();
			}
		},
		message,
		harmless: (bank, outcome) => {
			expect(outcome.items.flat()).toEqual([]);
			expect(bank.stats.soapCalls.map((c) => c.operation)).toEqual([operation]);
		},
	};
}

const aDownloadableFile = (bank: SandboxBank) => bank.files.list().find((d) => d.status === 'NEW')!.fileReference;

/** The trigger refuses a SET: Rejected output with the RFC 8935 code, reported to the bank, never emitted. */
function refusedSet(name: string, message: RegExp, prepare: (bank: SandboxBank) => Promise<{ jti: string; eventsUrl?: string; close?: () => Promise<void> }>): BadInputCase {
	let jti = '';
	return {
		node: 'bankEventTrigger',
		category: 'signed events',
		name,
		kind: 'instead of harm',
		shownOn: 'rejected',
		run: async (bank) => {
			const prepared = await prepare(bank);
			jti = prepared.jti;
			try {
				// Two polls: the first refuses the SET, the second reports the refusal to the bank.
				return await runTrigger(bank, { polls: 2, parameters: prepared.eventsUrl ? { eventsUrl: prepared.eventsUrl } : {} });
			} finally {
				await prepared.close?.();
			}
		},
		message,
		harmless: (bank, outcome) => {
			const [events, rejected] = outcome.items;
			expect(events).toEqual([]);
			expect(rejected.map((i) => i.json.jti)).toEqual([jti]);
			expect(bank.stats.setErrsReceived[jti]?.err).toBe(rejected[0].json.err);
			expect(bank.events.pending()).not.toContain(jti);
		},
	};
}

/** A SET the sandbox would never build, signed with the bank's real event key, added by a relay. */
async function relaySet(bank: SandboxBank, jws: (jti: string) => string) {
	const jti = `relay-${Math.random().toString(36).slice(2)}`;
	let sent = false;
	const relay = await startEventsRelay(bank, () => {
		if (sent) return {};
		sent = true;
		return { [jti]: jws(jti) };
	});
	return { jti, eventsUrl: relay.eventsUrl, close: relay.close };
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Nothing of the bad answer reached the items. */
const noItems = (_bank: SandboxBank, outcome: Outcome) => expect(outcome.items.flat()).toEqual([]);

/** The execution requests the bank received and the trades it made. */
function executions(requests: number, executed: number) {
	return (bank: SandboxBank) => {
		expect(requestsIn(bank, 'execution')).toBe(requests);
		expect(bank.stats.executions).toBe(executed);
	};
}

const openTrades = (limit: number) => async (bank: SandboxBank) => await runAction(bank, 'fxTradeReport', { parameters: { operation: 'getOpen', limit } });
const executeTrade = async (bank: SandboxBank) => await runAction(bank, 'fxTradeExecution', { parameters: TRADE });

/** The bank, with `fault` switched on, answers something bad when `start` runs the node; the node refuses it instead of using it. */
function badAnswer(node: NodeKind, category: Category, name: string, fault: FaultSpec, start: (bank: SandboxBank) => Promise<Outcome>, message: RegExp, harmless: BadInputCase['harmless'] = noItems): BadInputCase {
	return {
		node,
		category,
		name,
		kind: 'instead of harm',
		run: async (bank) => {
			bank.faults.add(fault);
			return await start(bank);
		},
		message,
		harmless,
	};
}

/** An unsigned or untrusted server: the TLS handshake fails before anything is sent. */
function untrusted(node: NodeKind, name: string, run: (bank: SandboxBank) => Promise<Outcome>, areas: string[]): BadInputCase {
	return {
		node,
		category: 'TLS',
		name,
		kind: 'instead of harm',
		run,
		message: /TLS certificate is not trusted \(\w+\)\. Add the bank's CA certificate to the credential's CA Certificate field/,
		harmless: (bank, outcome) => {
			expect(outcome.items.flat()).toEqual([]);
			expect(requestsIn(bank, ...areas)).toBe(0);
			expect(tokenRequests(bank)).toBe(0);
		},
	};
}

export const CATALOGUE: BadInputCase[] = [
	// FX Trade Report: dates and paging.
	report('dates and paging', 'impossible start date', { operation: 'getMany', startDate: '2025-02-30' }, /^Start Date: "2025-02-30" is not a real calendar date/),
	report('dates and paging', 'start date not a date', { operation: 'getMany', startDate: '31/01/2025' }, /^Start Date: "31\/01\/2025" is not a valid date \(expected YYYY-MM-DD\)/),
	report('dates and paging', 'future start date', { operation: 'getMany', startDate: inDays(2) }, /^Start Date: \S+ is in the future; it must be today or earlier/),
	report('dates and paging', 'future end date', { operation: 'getMany', startDate: daysAgo(5), endDate: inDays(1) }, /^End Date: \S+ is in the future/),
	report('dates and paging', 'impossible end date', { operation: 'getMany', startDate: daysAgo(5), endDate: '2024-13-01' }, /^End Date: "2024-13-01" is not a real calendar date/),
	report('dates and paging', 'end date before start date', { operation: 'getMany', startDate: daysAgo(5), endDate: daysAgo(6) }, /^End Date: \S+ is before the Start Date/),
	report('dates and paging', 'Limit 0', { operation: 'getMany', startDate: daysAgo(5), limit: 0 }, /^Limit: must be at least 1, got 0/),
	report('dates and paging', 'Limit not a whole number', { operation: 'getOpen', limit: 2.5 }, /^Limit: must be a whole number, got 2.5/),
	report('dates and paging', 'Page Size (limit) 101', { operation: 'getOpen', options: { pageSize: 101 } }, /^Page Size \(limit\): must be from 1 to 100, got 101/),
	report('dates and paging', 'Page Size (limit) 0', { operation: 'getMany', startDate: daysAgo(5), options: { pageSize: 0 } }, /^Page Size \(limit\): must be from 1 to 100, got 0/),
	report('dates and paging', 'negative Offset', { operation: 'getOpen', options: { offset: -1 } }, /^Offset: must be at least 0, got -1/),
	// FX Trade Report: identifiers.
	report('trade ID and counterparts', 'Trade ID of 11 characters', { operation: 'get', tradeId: 'T250711A878' }, /^Trade ID: must be exactly 12 characters, got 11/),
	report('trade ID and counterparts', 'Trade ID of 13 characters', { operation: 'get', tradeId: 'T250711A87870' }, /^Trade ID: must be exactly 12 characters, got 13/),
	report('trade ID and counterparts', 'Trade ID with a path in it', { operation: 'get', tradeId: '../../admin1' }, /^Trade ID: may contain only letters and digits/),
	report('trade ID and counterparts', 'Counterparts with a stray character', { operation: 'getOpen', counterparts: 'CP0001, CP1;DROP' }, /^Counterparts: "CP1;DROP" is not a counterpart identifier/),

	// FX Trade Execution.
	execution('amounts, currencies, maturity', 'unknown currency', { buyCurrency: 'XYZ' }, /^Buy Currency: "XYZ" is not an ISO 4217 currency code/),
	execution('amounts, currencies, maturity', 'three letters that are no currency', { sellCurrency: 'ABC' }, /^Sell Currency: "ABC" is not an ISO 4217 currency code/),
	execution('amounts, currencies, maturity', 'missing buy currency', { buyCurrency: '={{ $json.currency }}' }, /^Buy Currency: required/),
	execution('amounts, currencies, maturity', 'same buy and sell currency', { buyCurrency: 'EUR', sellCurrency: 'eur' }, /^Sell Currency: must differ from the Buy Currency \(both are EUR\)/),
	execution('amounts, currencies, maturity', 'zero amount', { amount: 0 }, /^Amount: must be greater than zero, got 0/),
	execution('amounts, currencies, maturity', 'negative amount', { amount: -250 }, /^Amount: must be greater than zero, got -250/),
	execution('amounts, currencies, maturity', 'NaN amount', { amount: '={{ NaN }}' }, /^Amount: must be a number, got NaN/),
	execution('amounts, currencies, maturity', 'infinite amount', { amount: '={{ 1 / 0 }}' }, /^Amount: must be a number, got Infinity/),
	execution('amounts, currencies, maturity', 'amount that is text', { amount: '={{ "a lot" }}' }, /^Amount: "a lot" is not an amount: use digits and a point/),
	execution('amounts, currencies, maturity', 'amount typed with a minus sign', { amount: '-5' }, /^Amount: must be greater than zero, got -5$/),
	execution('amounts, currencies, maturity', 'amount typed with a decimal comma', { amount: '1,5' }, /^Amount: "1,5" uses a comma: write the amount with digits and a point/),
	execution('amounts, currencies, maturity', 'amount that is empty', { amount: '={{ "" }}' }, /^Amount: required, an amount greater than zero/),
	execution('amounts, currencies, maturity', 'amount with more decimals than the currency has', { amount: '10.005' }, /^Amount: EUR amounts have at most 2 decimals, got "10.005"$/),
	execution('amounts, currencies, maturity', 'missing maturity date', { maturityType: 'date', maturityDate: '={{ "" }}' }, /^Maturity Date: required when the maturity is given as a date/),
	execution('amounts, currencies, maturity', 'maturity date in the past', { maturityType: 'date', maturityDate: daysAgo(1) }, /^Maturity Date: \S+ is in the past; it must be today or later/),
	execution('amounts, currencies, maturity', 'impossible maturity date', { maturityType: 'date', maturityDate: '2031-02-29' }, /^Maturity Date: "2031-02-29" is not a real calendar date/),
	execution('amounts, currencies, maturity', 'unknown tenor', { tenor: '7W' }, /^Tenor: must be one of ON, TOM, TN, SP, SN, 1W/),
	execution('amounts, currencies, maturity', 'missing counterpart', { counterpart: '={{ $json.nothing }}' }, /^Counterpart: required/),
	execution('amounts, currencies, maturity', 'unknown amount side', { amountSide: 'HOLD' }, /^Amount Side: must be one of BUY, SELL, got "HOLD"/),
	execution('amounts, currencies, maturity', 'unknown base side', { baseSide: 'BOTH' }, /^Base Side: must be one of BUY, SELL, got "BOTH"/),
	execution('node settings', "n8n's Retry On Fail switched on", {}, /^Settings > Retry On Fail: must be off for trade execution/, { retryOnFail: true, maxTries: 3 }),

	// Bank Mock Service: the same validation, and its own settings.
	mock('amounts, currencies, maturity', 'same buy and sell currency (mock)', { api: 'execution', ...TRADE, sellCurrency: 'DKK' }, /^Sell Currency: must differ from the Buy Currency/),
	mock('trade ID and counterparts', 'Trade ID of 11 characters (mock)', { api: 'report', operation: 'get', tradeId: 'T250711A878' }, /^Trade ID: must be exactly 12 characters, got 11/),
	mock('dates and paging', 'future start date (mock)', { api: 'report', operation: 'getMany', startDate: inDays(3) }, /^Start Date: \S+ is in the future/),
	mock('node settings', 'Mock Base URL not http(s)', { mockBaseUrl: 'ftp://mock.bank.example', api: 'report', operation: 'getOpen' }, /^Mock Base URL: must be a web address starting with https:\/\/ \(or http:\/\/ for a test bank on your own network\)/),
	mock('node settings', 'API Version with a path in it', { api: 'report', apiVersion: '../1.0.0', operation: 'getOpen' }, /^API Version: may contain only letters, digits, dots and dashes/),
	mock('PEM, keys and passphrases', 'malformed CA certificate PEM (mock)', { api: 'report', operation: 'getOpen', connection: { caCertificate: '-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----' } }, /^CA Certificate: the PEM certificate cannot be read/),

	// Corporate File Service: credential material and requests, checked before sending.
	files('PEM, keys and passphrases', 'malformed signing certificate PEM', { operation: 'getUserInfo' }, /^Credential: Signing Certificate: not a PEM certificate/, () => ({ signingCertificate: 'MIIC-pasted-without-its-header' })),
	files('PEM, keys and passphrases', 'wrong signing key passphrase', { operation: 'getUserInfo' }, /^Credential: Signing Key Passphrase: wrong passphrase for the Signing Private Key/, (bank) => ({
		signingPrivateKey: createPrivateKey(bank.tls.customerSigningKeyPem).export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'the right passphrase' }).toString(),
		signingKeyPassphrase: 'a wrong passphrase',
	})),
	files('PEM, keys and passphrases', 'signing key of another certificate', { operation: 'getUserInfo' }, /^Credential: Signing Certificate: does not match the Signing Private Key/, (bank) => ({ signingPrivateKey: bank.tls.clientKeyPem })),
	bankCertificate('malformed bank certificate PEM', /^Credential: Bank Certificate: the PEM certificate cannot be read \(it may be truncated or corrupted\)$/, () => pemBlock(Buffer.from('This text is not a certificate at all').toString('base64'))),
	bankCertificate('bank certificate with a character missing from its base64 body', /^Credential: Bank Certificate: the PEM certificate cannot be read \(it may be truncated or corrupted\)$/, (bank) => {
		const body = pemBody(bank.tls.bankSigningCertPem);
		return pemBlock(body.slice(0, 400) + body.slice(401));
	}),
	bankCertificate('bank certificate cut short inside its body', /^Credential: Bank Certificate: the PEM certificate cannot be read \(it may be truncated or corrupted\)$/, (bank) => pemBlock(pemBody(bank.tls.bankSigningCertPem).slice(0, 512))),
	bankCertificate('bank certificate cut off before its END line', /^Credential: Bank Certificate: the PEM certificate is incomplete: each -----BEGIN CERTIFICATE----- line needs its -----END CERTIFICATE----- line \(it may be truncated\)$/, (bank) => bank.tls.bankSigningCertPem.slice(0, 700)),
	bankCertificate('bank CA certificate with a changed character', /^Credential: Bank Certificate: the PEM certificate is corrupted: its signature does not match its content/, (bank) => changedCharacter(bank.tls.caPem)),
	bankCertificate('private key instead of the bank certificate', /^Credential: Bank Certificate: a private key was given; paste the bank's certificate \(-----BEGIN CERTIFICATE-----\)$/, (bank) => bank.tls.customerSigningKeyPem),
	bankCertificate('certificate request instead of the bank certificate', /^Credential: Bank Certificate: a certificate request \(CSR\) was given; paste the certificate the bank issued/, (bank) => certificateRequest(bank.tls.customerSigningKeyPem, 'Catalogue Customer')),
	bankCertificate('public key instead of the bank certificate', /^Credential: Bank Certificate: a public key was given; paste the bank's certificate/, (bank) => bank.tls.eventSigningPublicKeyPem),
	bankCertificate('DER bytes pasted as the bank certificate', /^Credential: Bank Certificate: binary \(DER\) data was given; convert it to PEM/, (bank) => new X509Certificate(bank.tls.bankSigningCertPem).raw.toString('latin1')),
	bankCertificate('DER bytes between the PEM lines of the bank certificate', /^Credential: Bank Certificate: the PEM certificate holds binary \(DER\) data instead of base64 text/, (bank) =>
		`-----BEGIN CERTIFICATE-----\n${new X509Certificate(bank.tls.bankSigningCertPem).raw.toString('latin1')}\n-----END CERTIFICATE-----\n`),
	bankCertificate('expired bank certificate', /^Credential: Bank Certificate: expired on \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z; ask the bank for its current certificate$/, (bank) => bank.tls.expiredClientCertPem),
	files('PEM, keys and passphrases', 'malformed TLS client certificate PEM (file service)', { operation: 'getUserInfo' }, /Client Certificate: not a PEM certificate/, (bank) => ({ useClientCertificate: true, certificate: 'garbage', privateKey: bank.tls.clientKeyPem })),
	files('dates and paging', 'List Files start date that is not a date', { operation: 'downloadFileList', startDate: 'yesterday' }, /^Start Date: "yesterday" is not a date \(use YYYY-MM-DD\)/),
	files('dates and paging', 'List Files end date with a comma typed after the day', { operation: 'downloadFileList', endDate: '2026-01-05,' }, /^End Date: "2026-01-05," is not a date \(use YYYY-MM-DD\)/),
	files('XML and base64', 'raw ApplicationRequest with a DOCTYPE and an external entity', { operation: 'getUserInfo', mode: 'raw', applicationRequest: withDoctype(applicationRequestXml({ customerId: '11111111', softwareId: 'x', command: 'GetUserInfo' }), '<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>') }, /^Get user info: The ApplicationRequest is refused: XML with a DOCTYPE declaration is refused/),
	files('XML and base64', 'raw ApplicationRequest with a billion laughs', { operation: 'getUserInfo', mode: 'raw', applicationRequest: withDoctype(applicationRequestXml({ customerId: '11111111', softwareId: '&lol9;', command: 'GetUserInfo' }), billionLaughs('ApplicationRequest')) }, /^Get user info: The ApplicationRequest is refused: XML with a DOCTYPE declaration is refused/),
	files('XML and base64', 'raw ApplicationRequest neither XML nor base64', { operation: 'getUserInfo', mode: 'raw', applicationRequest: 'PD94bWwg*not base64' }, /not valid base64/),

	// Corporate File Service: bad answers from the bank.
	badAnswer('corporateFileService', 'XML and base64', 'answer with a DOCTYPE declaring an external entity (XXE)', { kind: 'soapDoctype' }, async (bank) => await runAction(bank, 'corporateFileService', { parameters: { operation: 'downloadFileList' } }), /^List files: .*DOCTYPE/),
	soapAnswer('answer with entity expansion', 'getUserInfo', (soap) => withDoctype(soap.replace(/<(\w+:)?ResponseText>[^<]*/, '<$1ResponseText>&big;'), '<!DOCTYPE e [<!ENTITY big "expanded text">]>'), /^Get user info: .*(DOCTYPE|ENTITY)/),
	soapAnswer('answer with a billion laughs', 'downloadFileList', (soap) => withDoctype(soap.replace(/<(\w+:)?ResponseText>[^<]*/, '<$1ResponseText>&lol9;'), billionLaughs('soapenv:Envelope')), /^List files: .*(DOCTYPE|ENTITY)/),
	soapAnswer('ApplicationResponse (inside the base64) with a billion laughs', 'getUserInfo', (soap) => editApplicationResponseXml(soap, (xml) => withDoctype(xml, billionLaughs('ApplicationResponse'))), /^Get user info: .*(DOCTYPE|ENTITY)/),
	soapAnswer('truncated base64 in the ApplicationResponse', 'downloadFile', (soap) => editApplicationResponseBase64(soap, (b64) => b64.slice(0, Math.floor(b64.length / 8) * 4 + 3)), /^Download file: .*base64/i, (bank) => ({ fileReference: aDownloadableFile(bank) })),
	soapAnswer('invalid base64 in the ApplicationResponse', 'downloadFile', (soap) => editApplicationResponseBase64(soap, (b64) => `${b64.slice(0, 400)}*%$${b64.slice(403)}`), /^Download file: .*base64/i, (bank) => ({ fileReference: aDownloadableFile(bank) })),
	badAnswer('corporateFileService', 'XML and base64', 'answer cut off in the middle', { kind: 'malformed', area: 'soap' }, async (bank) => await runAction(bank, 'corporateFileService', { parameters: { operation: 'getUserInfo' } }), /^Get user info: .*(not closed|cut off|not well-formed|base64)/),
	badAnswer('corporateFileService', 'XML and base64', 'answer altered after the bank signed it', { kind: 'soapTamperedSignature' }, async (bank) => await runAction(bank, 'corporateFileService', { parameters: { operation: 'downloadFileList' } }), /^List files: The response signature is invalid/),

	// Answers that are not JSON.
	badAnswer('fxTradeReport', 'not JSON', 'HTML error page instead of JSON (report, after retries)', { kind: 'html', status: 503, area: 'report', count: 3 }, openTrades(5), /^Get open trades: The bank answered with an HTML page: 502 Bad Gateway/, (bank, outcome) => {
		expect(outcome.items.flat()).toEqual([]);
		expect(outcome.error?.httpCode).toBe('503');
		expect(requestsIn(bank, 'report')).toBe(3);
	}),
	badAnswer('fxTradeReport', 'not JSON', 'non-JSON 200 on a list (report)', { kind: 'nonJson200', area: 'report' }, openTrades(5), /^Get open trades: the bank's answer is not JSON/),
	badAnswer('fxTradeReport', 'not JSON', 'non-JSON 200 for one trade (report)', { kind: 'nonJson200', area: 'report' }, async (bank) => await runAction(bank, 'fxTradeReport', { parameters: { operation: 'get', tradeId: bank.trades.all()[0].tradeId } }), /^Get trade: the bank's answer is not JSON/),
	badAnswer('fxTradeExecution', 'not JSON', 'HTML error page instead of JSON (execution): not sent again', { kind: 'html', area: 'execution' }, executeTrade, /^Execute trade: outcome unknown: The bank answered with an HTML page: 502 Bad Gateway/, executions(1, 0)),
	badAnswer('fxTradeExecution', 'not JSON', 'non-JSON 200 after the trade was made (execution): outcome unknown, not sent again', { kind: 'nonJson200', area: 'execution', phase: 'after' }, executeTrade, /^Execute trade: outcome unknown, the bank answered without an execution result/, executions(1, 1)),
	badAnswer('fxTradeReport', 'not JSON', 'non-JSON 200 from the token endpoint', { kind: 'nonJson200', area: 'token' }, openTrades(1), /^Get open trades: Could not get an access token: the token endpoint did not answer with JSON/, (bank) => expect(requestsIn(bank, 'report')).toBe(0)),
	badAnswer('fxTradeExecution', 'not JSON', 'HTML error page from the token endpoint', { kind: 'html', area: 'token' }, executeTrade, /Could not get an access token: the bank answered HTTP 502/, executions(0, 0)),
	badAnswer('bankMockService', 'not JSON', 'non-JSON 200 from the mock service', { kind: 'nonJson200', area: 'mock' }, async (bank) => {
		bank.mock.configure({ errorRate: 0 });
		return await runAction(bank, 'bankMockService', { parameters: { api: 'report', operation: 'get', tradeId: 'T250711A8787' } });
	}, /^Get trade: the bank's answer is not JSON/),
	badAnswer('bankEventTrigger', 'not JSON', 'non-JSON 200 from the events endpoint (Fetch Test Event)', { kind: 'nonJson200', area: 'events' }, async (bank) => {
		bank.events.enqueue(2);
		return await runTrigger(bank, { mode: 'manual' });
	}, /^Fetch events: The bank answered the event poll with something that is not JSON/, (bank) => {
		expect(bank.events.pending()).toHaveLength(2);
		expect(bank.stats.eventsAcked).toEqual([]);
	}),

	// The Bank Event Trigger's settings and its mutual-TLS credential.
	trigger('node settings', 'Events URL over plain http', { eventsUrl: 'http://127.0.0.1:1/events' }, /^Events URL: must be an https:\/\/ URL/),
	trigger('node settings', 'Expected Issuer empty', { issuer: '' }, /^Expected Issuer: required/),
	trigger('node settings', 'Expected Audience empty', { audience: ' ' }, /^Expected Audience: required/),
	trigger('node settings', 'algorithm "none" allowed', { algorithms: ['PS256', 'none'] }, /^Allowed Algorithms: "none" is never accepted/),
	trigger('node settings', 'Max Events per Request 0', { maxEvents: 0 }, /^Max Events per Request: must be a whole number of at least 1/),
	trigger('PEM, keys and passphrases', 'malformed public key PEM', { keySource: 'pem', publicKey: '-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----' }, /^Public Key: not a PEM public key or certificate/),
	trigger('PEM, keys and passphrases', 'malformed client certificate PEM', {}, /^Client Certificate: not a PEM certificate/, () => ({ certificate: 'MIIB...pasted without its header' })),
	trigger('PEM, keys and passphrases', 'malformed private key PEM', {}, /^Private Key: not a PEM private key/, () => ({ privateKey: 'just some text' })),
	trigger('PEM, keys and passphrases', 'wrong passphrase', {}, /^Passphrase: wrong passphrase for the Private Key/, (bank) => ({ privateKey: bank.tls.clientKeyEncryptedPem, passphrase: 'not-the-passphrase' })),
	trigger('PEM, keys and passphrases', 'encrypted key without its passphrase', {}, /^Passphrase: the Private Key is encrypted and needs its passphrase/, (bank) => ({ privateKey: bank.tls.clientKeyEncryptedPem, passphrase: '' })),
	trigger('PEM, keys and passphrases', 'private key of another certificate', {}, /^Client Certificate: does not match the Private Key/, (bank) => ({ privateKey: bank.tls.otherCaClientKeyPem })),
	{
		node: 'bankEventTrigger',
		category: 'node settings',
		name: 'Country Code of three letters',
		kind: 'before any request',
		run: async (bank) => await runTrigger(bank, { mode: 'manual', credential: { countryCode: 'gbr' } }),
		message: /Country Code: must be two letters, or empty/,
		harmless: nothingSent(...EVENT_AREAS),
	},
	trigger('TLS', 'expired client certificate', {}, /^Client Certificate: expired on \d{4}-/, (bank) => ({ certificate: bank.tls.expiredClientCertPem, privateKey: bank.tls.expiredClientKeyPem })),
	trigger('TLS', 'no client certificate', {}, /^Client Certificate: required/, () => ({ certificate: '', privateKey: '' })),

	// Signed events the trigger must refuse.
	refusedSet('invalid JWS (not a compact JWS)', /^The SET is not a valid compact JWS/, async (bank) => await relaySet(bank, () => 'eyJhbGciOiJQUzI1NiJ9.not-a-jws')),
	refusedSet('unsigned SET (alg none)', /^The SET is signed with an algorithm that is not allowed/, async (bank) =>
		await relaySet(bank, (jti) => `${b64url({ alg: 'none', typ: 'secevent+jwt' })}.${b64url(setClaims(bank, jti))}.`),
	),
	refusedSet('SET whose jti differs from the one it was delivered under', /^The SET's jti claim "\S+" differs from the jti it was delivered under/, async (bank) =>
		await relaySet(bank, (jti) => bankSigned(bank, setClaims(bank, `${jti}-other`))),
	),
	refusedSet('wrong audience', /^The SET's audience "[^"]+" does not include the expected audience/, async (bank) => ({ jti: bank.events.enqueue([{ defect: 'wrongAudience' }])[0] })),
	refusedSet('wrong issuer', /^The SET's issuer "[^"]+" is not the expected issuer/, async (bank) => ({ jti: bank.events.enqueue([{ defect: 'wrongIssuer' }])[0] })),
	refusedSet('signature by another key', /^The signature does not verify with the bank's key/, async (bank) => ({ jti: bank.events.enqueue([{ defect: 'badSignature' }])[0] })),
	refusedSet('unknown signing key (kid)', /^No key with kid "[^"]+" in the bank's JWKS/, async (bank) => ({ jti: bank.events.enqueue([{ defect: 'unknownKid' }])[0] })),

	// TLS: servers that cannot be trusted and certificates the bank refuses.
	untrusted('fxTradeReport', 'untrusted server certificate (report)', async (bank) => await runAction(bank, 'fxTradeReport', { parameters: { operation: 'getOpen' }, credential: { [CC]: { caCertificate: '' } } }), ['report', 'token']),
	untrusted('corporateFileService', 'untrusted server certificate (file service)', async (bank) => await runAction(bank, 'corporateFileService', { parameters: { operation: 'getUserInfo' }, credential: { [FILES]: { caCertificate: '' } } }), FILE_AREAS),
	untrusted('bankEventTrigger', 'untrusted server certificate (event trigger)', async (bank) => await runTrigger(bank, { mode: 'manual', credential: { caCertificate: '' } }), EVENT_AREAS),
	untrusted('bankMockService', 'untrusted server certificate (mock service)', async (bank) => await runAction(bank, 'bankMockService', { parameters: { api: 'report', operation: 'getOpen', connection: {} } }), ['mock']),
	untrusted('fxTradeReport', 'server certificate from a CA other than the configured one', async (bank) => await runAction(bank, 'fxTradeReport', { parameters: { operation: 'getOpen' }, credential: { [CC]: { caCertificate: bank.tls.otherCaPem } } }), ['report', 'token']),
	{
		node: 'bankEventTrigger',
		category: 'TLS',
		name: 'client certificate of a CA the bank does not trust',
		kind: 'instead of harm',
		run: async (bank) => await runTrigger(bank, { mode: 'manual', credential: { certificate: bank.tls.otherCaClientCertPem, privateKey: bank.tls.otherCaClientKeyPem } }),
		message: /Could not get an access token: the bank closed the connection during the TLS handshake \(ECONNRESET\)\. It may have refused the client certificate/,
		harmless: (bank) => {
			expect(bank.stats.mtlsTokensIssued).toBe(0);
			expect(requestsIn(bank, 'events')).toBe(0);
		},
	},
	{
		node: 'fxTradeReport',
		category: 'TLS',
		name: 'client ID the bank does not know',
		kind: 'instead of harm',
		run: async (bank) => await runAction(bank, 'fxTradeReport', { parameters: { operation: 'getOpen' }, credential: { [CC]: { clientId: 'unknown-client-4242' } } }),
		message: /^Get open trades: Could not get an access token: the bank answered HTTP 401/,
		harmless: (bank) => {
			expect(bank.stats.tokensIssued).toBe(0);
			expect(requestsIn(bank, 'report')).toBe(0);
		},
	},
];

/** Values typed into credentials by the catalogue that must never show up either. */
export const CATALOGUE_SECRETS = ['the right passphrase', 'a wrong passphrase', 'not-the-passphrase', 'unknown-client-4242'];

