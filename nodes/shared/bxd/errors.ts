/** Base of every error the bxd layer raises; the node turns them into n8n errors. */
export class BxdError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'BxdError';
	}
}

/** A value given for the ApplicationRequest breaks the schema (length, format). */
export class BxdValidationError extends BxdError {
	constructor(
		readonly field: string,
		message: string,
	) {
		super(message);
		this.name = 'BxdValidationError';
	}
}

/** The bank's answer cannot be read: not XML, not SOAP, a DOCTYPE, broken base64, a bad archive. */
export class BxdFormatError extends BxdError {
	constructor(message: string) {
		super(message);
		this.name = 'BxdFormatError';
	}
}

/** A SOAP fault (FileServiceFault), with the FileServiceFaultDetail category and code. */
export class BxdFaultError extends BxdError {
	constructor(
		readonly faultString: string,
		readonly faultCode?: string,
		readonly category?: string,
		readonly code?: string,
	) {
		super(faultString);
		this.name = 'BxdFaultError';
	}
}

/** A response code other than 00 and 24, in the ResponseHeader or the ApplicationResponse. */
export class BxdResponseCodeError extends BxdError {
	constructor(
		readonly code: string,
		readonly text: string | undefined,
		readonly where: 'ResponseHeader' | 'ApplicationResponse',
	) {
		super(`The bank answered code ${code}${text ? `: ${text}` : ''}`);
		this.name = 'BxdResponseCodeError';
	}
}

/** The ApplicationResponse signature is missing where it is required, or does not verify. */
export class BxdSignatureError extends BxdError {
	constructor(message: string) {
		super(message);
		this.name = 'BxdSignatureError';
	}
}
