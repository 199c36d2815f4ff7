/**
 * Every text that names an EBICS return code names it with the spec's name (Annex 1 of the EBICS
 * 3.0 specification) and keeps the bank's own ReportText: the error's message, the n8n error's
 * description and body, the credential's status. A bank's text that ends in a full stop gets no
 * second one where our sentence goes on.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import {
	checkReturnCodes,
	EbicsReturnCodeError,
	EbicsTransferInterrupted,
	readResponse,
	returnCodeInfo,
} from '../../nodes/shared/ebics';
import { BankFailure } from '../../nodes/shared/common/errors';
import { statusText, type EbicsCredentialView, type EbicsState } from '../../nodes/shared/ebics/credential/ebicsCredential';
import { problemOf } from '../../nodes/shared/ebics/initialisation/ebicsInitialisation';
import { ebicsFailure } from '../../nodes/shared/ebics/node/failures';

/** The error `fn` throws. */
function thrown(fn: () => unknown): EbicsReturnCodeError {
	try {
		fn();
	} catch (error) {
		return error as EbicsReturnCodeError;
	}
	throw new Error('did not throw');
}

// The bank's text as many banks write it: the code's name in brackets, then a sentence.
const SUBSCRIBER_TEXT = '[EBICS_INVALID_USER_OR_USER_STATE] Subscriber unknown or subscriber state inadmissible.';

describe('the message of a return code: the code, the spec name, the bank text', () => {
	it('091002 with the bank text: the name once, the bank text after it as the bank wrote it', () => {
		const error = thrown(() => checkReturnCodes({ technical: '091002', business: '000000', reportText: SUBSCRIBER_TEXT }, 'HPB'));
		expect(error.message).toBe('HPB: the bank answered 091002 EBICS_INVALID_USER_OR_USER_STATE: Subscriber unknown or subscriber state inadmissible.');
		expect(error.reportText).toBe(SUBSCRIBER_TEXT);
	});

	it('a real answer (epics suite, ebics_technical_nok.xml): 061001 EBICS_AUTHENTICATION_FAILED and its text', () => {
		const answer = readFileSync(path.resolve(__dirname, '../fixtures/ebics/epics/ebics_technical_nok.xml'), 'utf8');
		const error = thrown(() => readResponse(answer, 'HPB', { namespace: 'urn:org:ebics:H004' }));
		expect(error.message).toBe('HPB: the bank answered 061001 EBICS_AUTHENTICATION_FAILED: Authentication signature error');
	});

	it('a bank text without brackets (a French bank, in the body) stays whole; one with another name in brackets too', () => {
		const french = thrown(() => checkReturnCodes({ technical: '000000', business: '091116', reportText: 'Erreur de traitement de la remise' }, 'BTU initialisation'));
		expect(french.message).toBe('BTU initialisation: the bank answered 091116 EBICS_PROCESSING_ERROR: Erreur de traitement de la remise');
		// EBICS 2.5 names 090003 EBICS_AUTHORISATION_FAILED; the bank's bracket is kept as it differs.
		const h004 = thrown(() => checkReturnCodes({ technical: '000000', business: '090003', reportText: '[EBICS_AUTHORISATION_FAILED] Not allowed' }, 'BTD initialisation'));
		expect(h004.message).toBe(`BTD initialisation: the bank answered 090003 ${returnCodeInfo('090003', 'business')!.name}: [EBICS_AUTHORISATION_FAILED] Not allowed`);
	});

	it("without a bank text: the spec's meaning; a code the spec does not know: said so, with the bank's text", () => {
		expect(thrown(() => checkReturnCodes({ technical: '061001', business: '000000' }, 'HPB')).message).toBe(
			`HPB: the bank answered 061001 EBICS_AUTHENTICATION_FAILED: ${returnCodeInfo('061001', 'technical')!.meaning}`,
		);
		expect(thrown(() => checkReturnCodes({ technical: '091999', business: '000000' }, 'HPB')).message).toBe(
			'HPB: the bank answered 091999: a code the EBICS specification does not name',
		);
		expect(thrown(() => checkReturnCodes({ technical: '091999', business: '000000', reportText: 'Wartung' }, 'HPB')).message).toBe('HPB: the bank answered 091999: Wartung');
	});
});

describe('what the user sees of a return code', () => {
	const error = new EbicsReturnCodeError('091002', 'technical', returnCodeInfo('091002', 'technical'), SUBSCRIBER_TEXT, 'HTD initialisation');

	it("the n8n error: the message, the bank's text verbatim, the code with its name, level and meaning, the body", () => {
		const failure = ebicsFailure(error) as BankFailure;
		expect(failure).toBeInstanceOf(BankFailure);
		expect(failure.message).toBe('HTD initialisation: the bank answered 091002 EBICS_INVALID_USER_OR_USER_STATE: Subscriber unknown or subscriber state inadmissible.');
		const lines = failure.description!.split('\n');
		expect(lines).toContain(`The bank's text: ${SUBSCRIBER_TEXT}`);
		expect(lines).toContain(`EBICS return code 091002 EBICS_INVALID_USER_OR_USER_STATE (technical, in the header): ${returnCodeInfo('091002', 'technical')!.meaning}`);
		expect(failure.body).toMatchObject({ message: SUBSCRIBER_TEXT, code: '091002', name: 'EBICS_INVALID_USER_OR_USER_STATE' });
		expect(`${failure.message}\n${failure.description}`).not.toMatch(/\.\./);
	});

	it('a segment refused when sent again: its code, name and the bank text', () => {
		const refused = new EbicsReturnCodeError('091105', 'technical', returnCodeInfo('091105', 'technical'), '[EBICS_RECOVERY_NOT_SUPPORTED] Recovery not supported.', 'BTU SCT pain.001 transfer of segment 1 of 3');
		const failure = ebicsFailure(new EbicsTransferInterrupted('upload', 'BTU SCT pain.001 transfer of segment 1 of 3', 1, 3, false, refused)) as BankFailure;
		expect(failure.message).toBe('BTU SCT pain.001 transfer of segment 1 of 3: no answer came, and the bank refused the segment sent again: the bank answered 091105 EBICS_RECOVERY_NOT_SUPPORTED: Recovery not supported.');
		expect(failure.description).toContain("EBICS return code 091105 EBICS_RECOVERY_NOT_SUPPORTED to the repetition of the segment; the bank's text: [EBICS_RECOVERY_NOT_SUPPORTED] Recovery not supported.");
	});

	it('the credential: the problem it keeps and its status, without a doubled full stop', () => {
		const problem = problemOf(error, 'HPB', new Date('2026-12-01T10:00:00Z'));
		expect(problem).toMatchObject({ code: '091002', level: 'technical', reportText: SUBSCRIBER_TEXT });
		expect(problem.message).toBe(`HTD initialisation: the bank answered 091002 EBICS_INVALID_USER_OR_USER_STATE: Subscriber unknown or subscriber state inadmissible. What to do: ${returnCodeInfo('091002', 'technical')!.action}`);
		const view = { keySource: 'generate' } as EbicsCredentialView;
		const ready: EbicsState = { v: 1, owner: 'x', phase: 'ready', bank: { at: '2026-11-30T10:00:00Z' } as EbicsState['bank'], problem };
		const status = statusText(view, ready);
		expect(status).toContain('the last check failed (HTD initialisation: the bank answered 091002 EBICS_INVALID_USER_OR_USER_STATE: Subscriber unknown');
		expect(status).not.toMatch(/\.\.|\.\)/);
		expect(statusText(view, { v: 1, owner: 'x', phase: 'new', problem })).not.toMatch(/\.\./);
	});
});
