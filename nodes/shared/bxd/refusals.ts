/** A bank's refusal in words: its code and text, and what the code means for what was asked. */
import type { CertCommand } from './certService';
import { certServiceHint } from './certService';
import { responseCodeHint } from './codes';
import { BxdFaultError, BxdResponseCodeError } from './errors';

/**
 * What the bank said, with what its code means: the file service's codes (`'fileService'`) and
 * the certificate services' (the command that was refused) mean different things.
 */
export function describeRefusal(error: unknown, service?: 'fileService' | CertCommand): string {
	if (error instanceof BxdResponseCodeError) {
		const hint =
			service === 'fileService'
				? responseCodeHint(error.code)
				: service
					? certServiceHint(error.code, error.text, service)
					: undefined;
		const text = hint ? error.text?.replace(/\.$/, '') : error.text;
		return `code ${error.code}${text ? `: ${text}` : ''}${hint ? ` (${hint.replace(/\.$/, '')})` : ''}`;
	}
	if (error instanceof BxdFaultError) {
		return `a SOAP fault: ${error.faultString}${error.code ? ` (code ${error.code})` : ''}${error.category ? ` [${error.category}]` : ''}`;
	}
	return (error as Error)?.message ?? String(error);
}
