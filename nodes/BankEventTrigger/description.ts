import type { INodeProperties } from 'n8n-workflow';

import { optionsCollection } from '../shared/common/properties';

/** Event types of the Open Banking event notification API v4.0. */
export const OPEN_BANKING_EVENT_TYPES = [
	{
		name: 'Account Access Consent Linked Account Update',
		value: 'urn:uk:org:openbanking:events:account-access-consent-linked-account-update',
		description: 'An account linked to an account access consent changed',
	},
	{
		name: 'Consent Authorization Revoked',
		value: 'urn:uk:org:openbanking:events:consent-authorization-revoked',
		description: 'The customer or the bank revoked a consent',
	},
	{
		name: 'Resource Update',
		value: 'urn:uk:org:openbanking:events:resource-update',
		description: 'A resource (for example a consent) changed',
	},
];

export const DEFAULTS = {
	maxEvents: 100,
	maxEventsPerPoll: 0,
	maxSecondsPerPoll: 30,
	dedupeWindow: 10000,
	clockToleranceSeconds: 300,
	jwksCacheMinutes: 10,
	requestTimeoutSeconds: 60,
} as const;

export const bankEventTriggerProperties: INodeProperties[] = [
	{
		displayName:
			'Every event is emitted once and acknowledged to the bank with the next request. Invalid events are reported back to the bank and appear on the Rejected output.',
		name: 'deliveryNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events URL',
		name: 'eventsUrl',
		type: 'string',
		default: '',
		placeholder: 'https://mtls-api.bank.example/events',
		description:
			"The bank's event polling endpoint. Leave empty to use {Base URL}/events of the credential.",
	},
	{
		displayName: 'Max Events per Request',
		name: 'maxEvents',
		type: 'number',
		default: 100,
		description: 'The maxEvents value sent to the bank: how many events one request may return',
	},
	{
		displayName: 'Return Immediately',
		name: 'returnImmediately',
		type: 'boolean',
		default: true,
		description:
			'Whether the bank should answer at once even when no event is waiting (otherwise it may hold the request open until one arrives)',
	},
	{
		displayName: 'Key Source',
		name: 'keySource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'JWKS URL',
				value: 'jwks',
				description:
					"Fetch the bank's signing keys from its JSON Web Key Set and pick the key by kid",
			},
			{
				name: 'PEM Public Key',
				value: 'pem',
				description: "Verify every event with one public key of the bank's",
			},
		],
		default: 'jwks',
		description: 'Where the keys that verify the signature of each event come from',
	},
	{
		displayName: 'JWKS URL',
		name: 'jwksUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'https://keystore.bank.example/jwks.json',
		description:
			"The bank's JSON Web Key Set. It is fetched with the credential's CA certificate, without the access token.",
		displayOptions: { show: { keySource: ['jwks'] } },
	},
	{
		displayName: 'Public Key',
		name: 'publicKey',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: '-----BEGIN PUBLIC KEY-----',
		description: "The bank's PEM public key (or a certificate holding it) that signs the events",
		displayOptions: { show: { keySource: ['pem'] } },
	},
	{
		displayName: 'Expected Issuer',
		name: 'issuer',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'https://bank.example/',
		description: 'The iss claim every event must carry: the identifier of the bank',
	},
	{
		displayName: 'Expected Audience',
		name: 'audience',
		type: 'string',
		default: '',
		required: true,
		description:
			'The aud claim every event must name: usually the client ID the bank registered for you',
	},
	{
		displayName: 'Allowed Algorithms',
		name: 'algorithms',
		type: 'multiOptions',
		options: [
			{ name: 'ES256', value: 'ES256' },
			{ name: 'PS256', value: 'PS256' },
			{ name: 'PS384', value: 'PS384' },
			{ name: 'PS512', value: 'PS512' },
			{ name: 'RS256', value: 'RS256' },
		],
		default: ['PS256'],
		description: 'Signature algorithms accepted on events. Open Banking uses PS256.',
	},
	{
		displayName: 'Event Types',
		name: 'eventTypes',
		type: 'multiOptions',
		options: OPEN_BANKING_EVENT_TYPES,
		default: [],
		description:
			'Emit only events of these types; others are acknowledged without being emitted. Empty: all types.',
	},
	optionsCollection(
		[
			{
				displayName: 'Clock Tolerance (Seconds)',
				name: 'clockToleranceSeconds',
				type: 'number',
				default: 300,
				description:
					"How far in the future an event's issue time (iat) may be, to allow for clock differences",
			},
			{
				displayName: 'Dedupe Window',
				name: 'dedupeWindow',
				type: 'number',
				default: 10000,
				description:
					'How many recently emitted event IDs (jti) are remembered, so an event the bank delivers again is not emitted twice',
			},
			{
				displayName: 'Include Raw SET',
				name: 'includeRawSet',
				type: 'boolean',
				default: false,
				description: 'Whether to add the signed event token as received (rawSet) to each item',
			},
			{
				displayName: 'JWKS Cache (Minutes)',
				name: 'jwksCacheMinutes',
				type: 'number',
				default: 10,
				description:
					'How long fetched keys are kept in memory. An event signed with an unknown key makes the node fetch the JWKS again at once.',
			},
			{
				displayName: 'Max Events per Poll',
				name: 'maxEventsPerPoll',
				type: 'number',
				default: 0,
				description:
					'0 (the default): one request per poll, so events are acknowledged only after n8n has emitted them and saved the trigger state. Larger: one poll keeps asking while the bank says more events are available, up to this many events; this drains a backlog faster, but if n8n stops in the middle of such a poll, the events of its earlier pages have been acknowledged without being emitted.',
			},
			{
				displayName: 'Max Seconds per Poll',
				name: 'maxSecondsPerPoll',
				type: 'number',
				default: 30,
				description: 'One poll asks for no further page after this many seconds',
			},
			{
				displayName: 'Other Event Types',
				name: 'otherEventTypes',
				type: 'string',
				default: '',
				placeholder: 'urn:bank:events:payment-status',
				description:
					"Further event type URIs to emit (comma-separated), for the bank's own types. Used together with Event Types.",
			},
			{
				displayName: 'Request Timeout (Seconds)',
				name: 'requestTimeoutSeconds',
				type: 'number',
				default: 60,
				description: 'How long to wait for the bank to answer one request',
			},
		],
		{ placeholder: 'Add Option' },
	),
];
