import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { formatHash, KEY_CHANGE_KEYS, keyDigest, loadSubscriberKeys } from '../../shared/ebics';
import type { KeyChangeOrder } from '../../shared/ebics';
import {
	EBICS_CREDENTIAL,
	EBICS_STATE_FIELD,
	readEbicsState,
	type EbicsState,
} from '../../shared/ebics/credential/ebicsCredential';
import {
	EBICS_KEY_CHANGE_FIELD,
	type KeyChangeStep,
} from '../../shared/ebics/initialisation/ebicsKeyChange';
import { InputError } from '../../shared/common/errors';
import type { EbicsInputCheck, EbicsOperation } from '../../shared/ebics/node/context';
import { refreshInitialisation } from '../../shared/ebics/node/context';
import { credentialError, keyChangeFailure } from '../../shared/ebics/node/failures';

const displayOptions = { show: { operation: ['changeKeys'] } };

const ORDERS: Record<KeyChangeOrder, string> = {
	PUB: 'signature key (A006)',
	HCA: 'authentication (X002) and encryption (E002) keys',
	HCS: 'signature, authentication and encryption keys',
};

export const description: INodeProperties[] = [
	{
		displayName:
			'Changing keys makes new keys in n8n and sends them to the bank signed with the current ones. The credential keeps the keys the bank knows until the bank has confirmed the new ones; if a change is interrupted, run it again with the same keys to finish it. Imported keys: the credential then uses the new keys it keeps instead of the pasted ones, which stay in their fields.',
		name: 'changeKeysNotice',
		type: 'notice',
		default: '',
		displayOptions,
	},
	{
		displayName: 'Keys to Change',
		name: 'keyChangeOrder',
		type: 'options',
		default: 'HCS',
		options: [
			{
				name: 'All Three Keys (HCS)',
				value: 'HCS',
				description: 'New signature, authentication and encryption keys',
			},
			{
				name: 'Authentication and Encryption Keys (HCA)',
				value: 'HCA',
				description: 'New X002 and E002 keys; the signature key stays',
			},
			{
				name: 'Signature Key (PUB)',
				value: 'PUB',
				description: 'A new A006 key; the other two stay',
			},
		],
		description: "Which of the subscriber's keys to replace",
		displayOptions,
	},
	{
		displayName: 'Confirm Key Change',
		name: 'confirmKeyChange',
		type: 'boolean',
		default: false,
		required: true,
		description: 'Whether to really replace the keys at the bank',
		displayOptions,
	},
];

/** The state as stored after a step. */
function stateOf(credentials: Record<string, unknown>): EbicsState | undefined {
	return readEbicsState(credentials[EBICS_STATE_FIELD]);
}

/** The confirmed key change of the item: one item per execution. */
function readKeyChange(ctx: IExecuteFunctions, itemIndex: number): KeyChangeOrder {
	if (ctx.getNodeParameter('confirmKeyChange', itemIndex, false) !== true)
		throw new InputError(
			'Confirm Key Change: switch it on to replace the keys at the bank. Nothing was sent to the bank',
			{ itemIndex },
		);
	const order = ctx.getNodeParameter('keyChangeOrder', itemIndex, '') as KeyChangeOrder;
	if (!ORDERS[order])
		throw new InputError(`Keys to Change: "${String(order)}" is not one of PUB, HCA, HCS`, {
			itemIndex,
		});
	if (itemIndex > 0 || ctx.getInputData().length > 1)
		throw new InputError(
			`Change Keys runs once per execution, and it got ${ctx.getInputData().length} items: give it one item. Nothing was sent to the bank`,
			{ itemIndex },
		);
	return order;
}

export const check: EbicsInputCheck = (ctx, itemIndex) => {
	readKeyChange(ctx, itemIndex);
};

/**
 * Change Keys (PUB, HCA, HCS): the credential prepares new keys (stored, nothing sent), then sends
 * them signed with the current keys and keeps them once the bank has accepted them
 * (nodes/shared/ebicsKeyChange.ts). Runs once per execution.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const order = readKeyChange(ctx, itemIndex);
	let credentials = await ctx.getCredentials(EBICS_CREDENTIAL);
	for (const step of ['prepare', 'send'] as KeyChangeStep[]) {
		credentials = await refreshInitialisation(ctx, credentials, {
			[EBICS_KEY_CHANGE_FIELD]: JSON.stringify({ order, step }),
		});
		const state = stateOf(credentials);
		if (step === 'prepare' && state?.keyChange?.order !== order)
			throw credentialError(
				state?.problem?.message ??
					`The key change ${order} could not be prepared in the credential`,
			);
	}
	const state = stateOf(credentials);
	const done = state?.keysChanged;
	if (state?.keyChange || !done || done.order !== order)
		throw keyChangeFailure(order, state, itemIndex);
	const keys = loadSubscriberKeys(state!.generated!);
	const pasted =
		run.view.keySource === 'import'
			? {
					pastedKeysSuperseded: true,
					notice: `The keys pasted in the credential are superseded by this change (${done.at.slice(0, 10)}): the credential uses the new keys, kept encrypted in its hidden fields, and the pasted fields stay as they were. Do not use the replaced keys anywhere else: the bank refuses them. Pasting keys other than those makes the credential use the pasted ones again.`,
				}
			: {};
	return [
		{
			json: {
				changed: true,
				order,
				replaced: ORDERS[order],
				subscriber: run.view.owner,
				orderId: done.orderId ?? null,
				recovered: done.recovered === true,
				// The new keys' hashes as the version's letters print them (public values): the
				// certificate's hash in EBICS 3.0, the hash of exponent and modulus in EBICS 2.5.
				hashes: Object.fromEntries(
					KEY_CHANGE_KEYS[order].map((key) => [
						key,
						formatHash(
							keyDigest(keys[key], run.view.version === 'H004' ? 'publicKey' : 'certificate'),
						),
					]),
				),
				changedAt: done.at,
				...pasted,
			},
			pairedItem: { item: itemIndex },
		},
	];
};
