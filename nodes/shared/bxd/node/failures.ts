/**
 * What a failed file service request tells the user: the bank's code, the fault category or the
 * field to fix. Failures are the project's domain errors (nodes/shared/errors.ts); the per-item
 * runner turns them into n8n errors.
 */
import type { IDataObject, JsonObject } from 'n8n-workflow';

import type { BxdOperation } from '../index';
import {
	BxdError,
	BxdFaultError,
	BxdFormatError,
	BxdResponseCodeError,
	BxdSignatureError,
	responseCodeHint,
	Sha1SignatureError,
} from '../index';
import { BankFailure, InputError, isToldFailure } from '../../common/errors';
import { redactSecrets } from '../../transport/redact';

export const OPERATION_LABELS: Record<BxdOperation, string> = {
	uploadFile: 'Upload file',
	downloadFileList: 'List files',
	downloadFile: 'Download file',
	deleteFile: 'Delete file',
	getUserInfo: 'Get user info',
};

export interface ErrorContext {
	operation: BxdOperation;
	itemIndex: number;
	secrets: string[];
	/** Added to the description (for example the message size). */
	hint?: string;
	httpStatus?: number;
}

/** A credential field to fix. */
export function credentialError(message: string): InputError {
	return new InputError(`Credential: ${message}`, {
		description: 'Edit the Corporate Banking File Service API credential.',
	});
}

/** What the bank answered, as a failure without secrets. */
function answerFailure(
	body: JsonObject,
	message: string,
	description: string | undefined,
	ctx: ErrorContext,
	context: IDataObject,
): BankFailure {
	const clean = (text: string) => redactSecrets(text, ctx.secrets);
	return new BankFailure(clean(message), {
		body,
		description: description ? clean(description) : undefined,
		httpCode: ctx.httpStatus ? String(ctx.httpStatus) : undefined,
		itemIndex: ctx.itemIndex,
		context,
	});
}

/** Turns a bxd error into the failure a user can act on; failures already told pass unchanged. */
export function fileServiceFailure(error: unknown, ctx: ErrorContext): Error {
	const label = OPERATION_LABELS[ctx.operation];
	const hints = ctx.hint ? [ctx.hint] : [];
	if (error instanceof BxdFaultError) {
		const details = [
			error.category !== undefined ? `Fault category: ${error.category}` : undefined,
			error.code !== undefined ? `Fault code: ${error.code}` : undefined,
			error.faultCode ? `SOAP fault code: ${error.faultCode}` : undefined,
			...hints,
		].filter(Boolean);
		return answerFailure(
			{
				message: error.faultString,
				category: error.category ?? null,
				faultCode: error.code ?? null,
			},
			`${label}: the file service refused the request: ${error.faultString}`,
			details.join('\n'),
			ctx,
			{
				category: error.category ?? null,
				code: error.code ?? null,
				faultCode: error.faultCode ?? null,
			},
		);
	}
	if (error instanceof BxdResponseCodeError) {
		const hint = responseCodeHint(error.code);
		const description = [`Response code ${error.code} in the ${error.where}.`, hint, ...hints]
			.filter(Boolean)
			.join('\n');
		return answerFailure(
			{ message: error.text ?? `Response code ${error.code}`, responseCode: error.code },
			`${label}: the bank answered with code ${error.code}${error.text ? ` (${error.text})` : ''}`,
			description,
			ctx,
			{ responseCode: error.code, responseText: error.text ?? null },
		);
	}
	if (error instanceof BxdSignatureError) {
		return answerFailure(
			{ message: error.message },
			`${label}: ${error.message}`,
			error instanceof Sha1SignatureError
				? 'The bank signed its answer with SHA-1. Switch on "Accept SHA-1 Signatures From the Bank" in the credential to accept it, or ask the bank for RSA-SHA256 signatures.'
				: 'The answer was not accepted because it cannot be shown to come unchanged from the bank. If the bank has renewed its certificate, update the Bank Certificate in the credential.',
			ctx,
			{ signature: 'invalid' },
		);
	}
	if (error instanceof BxdFormatError) {
		return answerFailure(
			{ message: error.message },
			`${label}: ${error.message}`,
			hints.join('\n') || undefined,
			ctx,
			{},
		);
	}
	// A value the schema refuses, or another refusal of the bxd layer (encryption keys).
	if (error instanceof BxdError) {
		return new InputError(redactSecrets(`${label}: ${error.message}`, ctx.secrets), {
			itemIndex: ctx.itemIndex,
		});
	}
	if (isToldFailure(error)) return error;
	return new Error(
		redactSecrets(`${label}: ${(error as Error)?.message ?? String(error)}`, ctx.secrets),
	);
}
