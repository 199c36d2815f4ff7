/**
 * What a failed EBICS request tells the user, in one place: a return code becomes a BankFailure
 * with the code, its name in the spec, the bank's own text and what to do; a value to change
 * becomes an InputError naming the field; a request that got no answer says whether the bank
 * may have it. The per-item runner turns them into n8n errors (nodes/shared/errors.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	bankTextAfterName,
	EbicsBankKeyError,
	EbicsDataError,
	EbicsFormatError,
	EbicsKeyError,
	EbicsReturnCodeError,
	EbicsSignatureError,
	EbicsTransferInterrupted,
	EbicsValidationError,
	returnCodeInfo,
} from '../index';
import type { EbicsCredentialView, EbicsProblem, EbicsState } from '../credential/ebicsCredential';
import { statusText } from '../credential/ebicsCredential';
import { EbicsHttpStatusError } from '../initialisation/ebicsInitialisation';
import { BankFailure, InputError, isToldFailure } from '../../common/errors';
import { bankFailure, outcomeUnknown } from '../../transport/errors';

/** A request to the bank's EBICS URL that failed in the transport (no answer, an HTTP error). */
export class EbicsRequestFailed extends Error {
	constructor(
		/** The request, as the EBICS library names it ("BTU SCT pain.001 transfer of segment 2 of 2"). */
		readonly step: string,
		readonly cause: unknown,
		/** Whether the request changes the bank's books (an upload's initialisation or segment, SPR, HVE...). */
		readonly changesTheBank: boolean,
	) {
		super(`${step}: the request failed`);
		this.name = 'EbicsRequestFailed';
	}
}

/** A field of the credential to fix. */
export function credentialError(message: string): InputError {
	return new InputError(`Credential: ${message}`, {
		description: 'Edit the Corporate Banking EBICS API credential (and save it: saving tests it).',
	});
}

/** The node's names of the EBICS library's fields. */
const FIELD_LABELS: Record<string, string> = {
	'service.serviceName': 'Service Name',
	'service.scope': 'Scope',
	'service.serviceOption': 'Service Option',
	'service.container': 'Container',
	'service.msgName': 'Message Name',
	'service.msgVersion': 'Message Version',
	'service.msgVariant': 'Message Variant',
	'service.msgFormat': 'Message Format',
	service: 'Service',
	'dateRange.start': 'Start Date',
	'dateRange.end': 'End Date',
	dateRange: 'Date Range',
	confirmedDigest: 'Confirmed Data Digest',
};

/** An EBICS return code as the user sees it. */
function returnCodeFailure(error: EbicsReturnCodeError, itemIndex?: number): BankFailure {
	const name = error.info?.name;
	// The message shows the bank's text when it gave one; the spec's meaning then comes here.
	const meaning =
		error.info && bankTextAfterName(error.reportText, name) ? `: ${error.info.meaning}` : '';
	const description = [
		error.action ? `What to do: ${error.action}` : undefined,
		error.reportText ? `The bank's text: ${error.reportText}` : undefined,
		`EBICS return code ${error.code}${name ? ` ${name}` : ''} (${error.level === 'technical' ? 'technical, in the header' : 'business, in the body'})${meaning}`,
	]
		.filter(Boolean)
		.join('\n');
	return new BankFailure(error.message, {
		description,
		itemIndex,
		body: {
			message: error.reportText ?? error.info?.meaning ?? error.message,
			code: error.code,
			...(name ? { name } : {}),
			level: error.level,
		},
		context: {
			returnCode: error.code,
			returnCodeName: name ?? null,
			level: error.level,
			step: error.step,
		},
	});
}

/**
 * A transfer that stopped mid-way: what became of it and what to do. An upload whose last
 * segment went out may be at the bank; it is never sent again by n8n, and the user is told where
 * to look (HAC, PTK) by the order ID the bank gave at the initialisation.
 */
function interruptedFailure(error: EbicsTransferInterrupted, itemIndex?: number): BankFailure {
	const order = error.orderId ? `order ${error.orderId}` : 'the order';
	const what =
		error.direction === 'download'
			? `The transfer broke off at segment ${error.segment} of ${error.numSegments}, so n8n sent no receipt (a receipt comes only after the last segment): the bank keeps the data and offers it again on the next download. Run the node again.`
			: error.mayHaveOrder
				? `The last segment went out, but whether the bank received it cannot be told: the bank may have ${order}. n8n did not send the file again. Before sending it again, check the Customer Acknowledgement (HAC) or the Customer Protocol (PTK) of today for ${order}: when it is listed there, the bank has the payment.`
				: `The upload stopped at segment ${error.segment} of ${error.numSegments}, before its last segment: the bank does not process an incomplete order, so nothing was submitted. Send the file again.`;
	const code = error.cause instanceof EbicsReturnCodeError ? error.cause : undefined;
	return new BankFailure(error.message, {
		description: [
			what,
			code
				? `EBICS return code ${code.code}${code.info ? ` ${code.info.name}` : ''} to the repetition of the segment${code.reportText ? `; the bank's text: ${code.reportText}` : ''}`
				: undefined,
		]
			.filter(Boolean)
			.join('\n'),
		itemIndex,
		body: {
			message: error.message,
			...(code ? { code: code.code, level: code.level } : {}),
		},
		context: {
			step: error.step,
			segment: error.segment,
			numSegments: error.numSegments,
			orderId: error.orderId ?? null,
			mayHaveOrder: error.mayHaveOrder,
			...(code ? { returnCode: code.code } : {}),
		},
	});
}

/** A failure of the bank that carries no return code (a broken signature, a damaged answer). */
function answerFailure(error: Error, description: string, itemIndex?: number): BankFailure {
	return new BankFailure(error.message, {
		description,
		itemIndex,
		body: { message: error.message },
	});
}

/** Whether a step sends something that changes the bank's books (an upload, SPR). */
/**
 * Requests that change something at the bank (an upload, a suspension, a signature or
 * cancellation of the distributed signature, a key change): sent once, never over a reused
 * connection, never repeated.
 */
export function changesTheBank(step: string): boolean {
	return /^(BTU|SPR|HVE|HVS|PUB|HCA|HCS)\b/.test(step);
}

/**
 * Turns what the EBICS library or the transport threw into the failure the user acts on;
 * failures already told (InputError, BankFailure, n8n's own) pass unchanged.
 */
export function ebicsFailure(error: unknown, itemIndex?: number): Error {
	if (isToldFailure(error)) return error;
	if (error instanceof EbicsValidationError) {
		const label = FIELD_LABELS[error.field];
		const message = label ? error.message.replace(error.field, label) : error.message;
		return new InputError(message, { itemIndex, description: 'Nothing was sent to the bank.' });
	}
	if (error instanceof EbicsKeyError || error instanceof EbicsBankKeyError)
		return credentialError(error.message);
	if (error instanceof EbicsReturnCodeError) return returnCodeFailure(error, itemIndex);
	if (error instanceof EbicsTransferInterrupted) return interruptedFailure(error, itemIndex);
	if (error instanceof EbicsSignatureError)
		return answerFailure(
			error,
			"The answer was refused: its authentication signature (X002) does not show that it comes unchanged from the bank, so nothing in it was used and no receipt was sent. If the bank has new keys, fetch them: test the credential (HPB) with the hashes of the bank's new letter.",
			itemIndex,
		);
	if (error instanceof EbicsDataError)
		return answerFailure(
			error,
			'The data could not be read, so n8n did not confirm the download: the bank keeps it and delivers it again on the next download. If it repeats, report it to the bank.',
			itemIndex,
		);
	if (error instanceof EbicsFormatError)
		return answerFailure(error, "The bank's answer is not what EBICS prescribes.", itemIndex);
	if (error instanceof EbicsHttpStatusError)
		return new BankFailure(error.message, {
			itemIndex,
			httpCode: String(error.status),
			body: { message: error.message, httpCode: String(error.status) },
		});
	if (error instanceof EbicsRequestFailed) {
		const unknown = error.changesTheBank && outcomeUnknown(error.cause);
		const last = /transfer of segment (\d+) of \1$/.test(error.step);
		return bankFailure(error.cause, {
			operation: error.step,
			itemIndex,
			hint: !error.changesTheBank
				? 'Nothing was confirmed to the bank: a download is delivered again until n8n confirms it.'
				: unknown && (/^HVE\b/.test(error.step) || (/^HVS\b/.test(error.step) && last))
					? 'The request went out but no answer came: the bank may have taken it. Look at the orders waiting (Get Orders Waiting, HVU) before signing or cancelling again.'
					: unknown && last
						? 'The last segment went out but no answer came: the bank may have the order. Check the customer protocol (HAC or PTK) before sending the file again.'
						: unknown
							? 'The upload stopped before its last segment: the bank does not process an incomplete order. Send the file again.'
							: 'Nothing reached the bank.',
		});
	}
	return error instanceof Error ? error : new Error(String(error));
}

/**
 * The bank's answer the credential kept (a return code), as the failure of `what` (none: the
 * step the answer names), with a line of what it means for the credential. Undefined when no
 * return code was kept.
 */
function keptAnswerFailure(
	what: string,
	problem: EbicsProblem | undefined,
	more: string,
	itemIndex?: number,
): Error | undefined {
	if (!problem?.code || !problem.level) return undefined;
	const info = returnCodeInfo(problem.code, problem.level);
	const coded = returnCodeFailure(
		new EbicsReturnCodeError(problem.code, problem.level, info, problem.reportText, problem.step),
		itemIndex,
	);
	return new BankFailure(what ? `${what}: ${coded.message}` : coded.message, {
		itemIndex,
		description: `${coded.description ?? ''}\n${more}`,
		body: coded.body,
		context: coded.context as IDataObject,
	});
}

/**
 * The failure of a subscriber that is not ready, from the state the credential keeps: the bank's
 * return code when it answered one (for example 091002 before activation), otherwise where the
 * subscriber stands and what to do next.
 */
export function notReadyFailure(view: EbicsCredentialView, operation: string): Error {
	const state = view.state?.owner === view.owner ? view.state : undefined;
	const where = statusText(view, state);
	return (
		keptAnswerFailure(operation, state?.problem, `The credential: ${where}`) ??
		credentialError(`${operation} needs a ready subscriber. ${where}`)
	);
}

/**
 * A key change the bank has not confirmed: the bank's return code when it answered one, otherwise
 * what the credential recorded; the credential keeps the keys the bank knows.
 */
export function keyChangeFailure(
	order: string,
	state: EbicsState | undefined,
	itemIndex: number,
): Error {
	const problem = state?.problem;
	const kept = state?.keyChange?.sentAt
		? `The new keys are kept as pending: run Change Keys with ${order} again to finish the change (the bank may have them already).`
		: 'The keys the bank knows stay in use; nothing changed at the bank.';
	return (
		keptAnswerFailure('', problem, kept, itemIndex) ??
		new InputError(
			`Key change ${order} not confirmed: ${problem?.message ?? 'the bank did not confirm it'}`,
			{ itemIndex, description: kept },
		)
	);
}
