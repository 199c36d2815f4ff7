import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * The project's own errors. Operations, the transport and the bank codecs throw these; only
 * `toNodeError` below turns them into n8n's errors, called by the per-item runner
 * (`runItems.ts`) and by the triggers' polls. Messages are written without secrets by the code
 * that builds them (see `transport/redact.ts`).
 */

export interface FailureDetails {
	/** A second line for the editor: what to do about it. */
	description?: string;
	/** The input item the failure belongs to, when known where it is thrown. */
	itemIndex?: number;
}

/**
 * A value the user has to change (a parameter, a credential field, an input binary), found
 * before anything was sent. Becomes a NodeOperationError.
 */
export class InputError extends Error {
	readonly description?: string;
	itemIndex?: number;

	constructor(message: string, details: FailureDetails = {}) {
		super(message);
		this.name = 'InputError';
		this.description = details.description;
		this.itemIndex = details.itemIndex;
	}
}

export interface BankFailureDetails extends FailureDetails {
	/** What the bank said, as n8n shows it under "Error details": its code and message. */
	body: JsonObject;
	/** The HTTP status of the bank's answer, when there was one. */
	httpCode?: string;
	/** Further facts for the error's context (fault category, response code). */
	context?: IDataObject;
}

/**
 * A request the bank refused, failed or answered with something unusable: carries the bank's
 * own code and message. Becomes a NodeApiError.
 */
export class BankFailure extends Error {
	readonly description?: string;
	readonly body: JsonObject;
	readonly httpCode?: string;
	readonly context: IDataObject;
	itemIndex?: number;

	constructor(message: string, details: BankFailureDetails) {
		super(message);
		this.name = 'BankFailure';
		this.description = details.description;
		this.body = details.body;
		this.httpCode = details.httpCode;
		this.context = details.context ?? {};
		this.itemIndex = details.itemIndex;
	}
}

/**
 * A sentence to be continued or put in brackets by the text around it: without its final full
 * stops (a bank's text often ends with one, and the text around it adds its own).
 */
export function clause(text: string): string {
	let end = text.length;
	while (end > 0 && (text[end - 1] === '.' || text[end - 1].trim() === '')) end--;
	return text.slice(0, end);
}

/** Whether an error already says what the user should see: the project's own, or n8n's. */
export function isToldFailure(
	error: unknown,
): error is BankFailure | InputError | NodeApiError | NodeOperationError {
	return (
		error instanceof BankFailure ||
		error instanceof InputError ||
		error instanceof NodeApiError ||
		error instanceof NodeOperationError
	);
}

/**
 * The one place where failures become n8n errors. n8n's own errors (from its request helpers)
 * pass through unchanged; any other error becomes a NodeOperationError with its message.
 */
export function toNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	if (error instanceof BankFailure) {
		const apiError = new NodeApiError(node, error.body, {
			message: error.message,
			description: error.description,
			httpCode: error.httpCode,
			itemIndex: error.itemIndex ?? itemIndex,
		});
		// NodeApiError swaps in generic texts for messages naming common network codes; the
		// bank's own words are more useful.
		apiError.message = error.message;
		Object.assign(apiError.context, error.context);
		return apiError;
	}
	if (error instanceof InputError) {
		return new NodeOperationError(node, error.message, {
			description: error.description,
			itemIndex: error.itemIndex ?? itemIndex,
		});
	}
	const cause = error instanceof Error ? error : new Error(String(error));
	return new NodeOperationError(node, cause, { itemIndex });
}
