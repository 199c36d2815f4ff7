import type { INodeProperties } from 'n8n-workflow';

import { initialisationLetters } from '../../shared/ebics';
import { statusText } from '../../shared/ebics/credential/ebicsCredential';
import type { EbicsOperation } from '../../shared/ebics/node/context';

const displayOptions = { show: { operation: ['initialisationLetters'] } };

export const description: INodeProperties[] = [
	{
		displayName:
			'Gives the INI and HIA letters as one item: the hashes of your three keys as fields, the letters as a PDF (binary field "data") and as HTML (binary field "html"). Print the PDF, sign it and send it to the bank. If the keys were not sent yet, this sends them first (INI and HIA).',
		name: 'lettersNotice',
		type: 'notice',
		default: '',
		displayOptions,
	},
];

/**
 * A hash as a JSON field: the letter's byte pairs on one line (the letters print 16 a line; a line
 * break inside a field would reach an email or a sheet a later node writes it into).
 */
const oneLine = (hash: string): string => hash.replace(/\s*\n\s*/g, ' ');

/** Initialisation Letters: the INI and HIA letters of the subscriber's keys, printable. */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const { view } = run;
	const keys = run.keys!;
	const state = view.state?.owner === view.owner ? view.state : undefined;
	const sentAt = state?.sent?.ini?.at;
	const letters = await initialisationLetters(
		{
			hostId: view.subscriber.hostId,
			partnerId: view.subscriber.partnerId,
			userId: view.subscriber.userId,
			bankName: view.bankName,
			subscriberName: view.subscriberName,
		},
		{
			signature: keys.signature.certificatePem,
			authentication: keys.authentication.certificatePem,
			encryption: keys.encryption.certificatePem,
		},
		sentAt ? new Date(sentAt) : new Date(),
		view.version,
	);
	const name = `ebics-letters-${view.subscriber.partnerId}-${view.subscriber.userId}`;
	return [
		{
			json: {
				hostId: view.subscriber.hostId,
				partnerId: view.subscriber.partnerId,
				userId: view.subscriber.userId,
				ebicsVersion: view.version,
				signatureHash: oneLine(letters.hashes.signature),
				authenticationHash: oneLine(letters.hashes.authentication),
				encryptionHash: oneLine(letters.hashes.encryption),
				letters: letters.letters.map((letter) => ({
					order: letter.order,
					keys: letter.keys.map((key) => ({
						title: key.title,
						version: key.version,
						hash: oneLine(key.hash),
						subject: key.subject,
						validTo: key.validTo,
						bits: key.bits,
					})),
				})),
				iniSentAt: state?.sent?.ini?.at ?? null,
				hiaSentAt: state?.sent?.hia?.at ?? null,
				status: statusText(view, state),
			},
			binary: {
				data: await ctx.helpers.prepareBinaryData(letters.pdf, `${name}.pdf`, 'application/pdf'),
				html: await ctx.helpers.prepareBinaryData(
					Buffer.from(letters.html, 'utf8'),
					`${name}.html`,
					'text/html',
				),
			},
			pairedItem: { item: itemIndex },
		},
	];
};
