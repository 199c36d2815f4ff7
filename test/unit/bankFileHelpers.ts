/** What the Bank File unit tests share: the fixtures, parsing into arrays, a file that must be refused. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { ParseOptions } from '../../nodes/shared/bankfiles';
import { BankFileError, parseBankFileToArrays } from '../../nodes/shared/bankfiles';

export const FIXTURES = path.resolve(__dirname, '../fixtures/bankfiles');
export const fixture = (name: string): Buffer => readFileSync(path.join(FIXTURES, name));
export const parse = async (content: Buffer | string, options?: ParseOptions) => await parseBankFileToArrays(Buffer.from(content), options);

/** The BankFileError parsing the content throws (the test fails when it parses). */
export async function failure(content: Buffer | string, options?: ParseOptions): Promise<BankFileError> {
	try {
		await parse(content, options);
	} catch (error) {
		expect(error).toBeInstanceOf(BankFileError);
		return error as BankFileError;
	}
	throw new Error('expected the file to be refused');
}
