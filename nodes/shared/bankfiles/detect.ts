import { BankFileError } from './errors';
import type { BankFileFormat, DetectedFormat } from './types';

/** ISO 20022 versions this module reads, by message. */
export const SUPPORTED_VERSIONS: Record<'camt.053' | 'camt.054' | 'pain.002', string[]> = {
	'camt.053': ['001.02', '001.03', '001.04', '001.05', '001.06', '001.07', '001.08'],
	'camt.054': ['001.02', '001.03', '001.04', '001.05', '001.06', '001.07', '001.08'],
	'pain.002': ['001.03', '001.04', '001.05', '001.06', '001.07', '001.08', '001.09', '001.10'],
};

const ROOTS: Record<string, 'camt.053' | 'camt.054' | 'pain.002'> = {
	BkToCstmrStmt: 'camt.053',
	BkToCstmrDbtCdtNtfctn: 'camt.054',
	CstmrPmtStsRpt: 'pain.002',
};

const KNOWN_OTHER: Record<string, string> = {
	'pain.001': 'a payment initiation (pain.001), which is built, not parsed',
	'pain.008': 'a direct debit initiation (pain.008)',
	'camt.052': 'an intraday account report (camt.052)',
};

function printable(text: string): string {
	// eslint-disable-next-line no-control-regex
	return JSON.stringify(text.slice(0, 40).replace(/[\u0000-\u001f]/g, ' '));
}

/**
 * The format of a bank file from its first bytes (a few kilobytes are enough). `chosen` forces a
 * format; the content must still fit it.
 */
export function detectFormat(head: Buffer, chosen?: BankFileFormat | 'auto'): DetectedFormat {
	let text = head.subarray(0, 8192).toString('latin1');
	if (text.startsWith('\xEF\xBB\xBF')) text = text.slice(3);
	const trimmed = text.trimStart();
	if (!trimmed) throw new BankFileError('NOT_A_BANK_FILE', 'The file is empty');
	const want = chosen && chosen !== 'auto' ? chosen : undefined;
	if (trimmed.startsWith('<')) {
		const ns = /urn:iso:std:iso:20022:tech:xsd:([a-z]{4}\.\d{3})\.(\d{3}\.\d{2})/.exec(trimmed);
		const rootMatch = /<(?:[\w.-]+:)?Document\b[^>]*>\s*<(?:[\w.-]+:)?(\w+)/.exec(trimmed);
		const root = rootMatch?.[1];
		let message = ns?.[1];
		if (!message && root && ROOTS[root]) message = ROOTS[root];
		if (!message) {
			if (!rootMatch && !/^<\?xml|^<[A-Za-z_]/.test(trimmed))
				throw new BankFileError(
					'NOT_XML',
					`The file is not XML: it starts with ${printable(trimmed)}`,
				);
			const first = /<([A-Za-z_][\w.:-]*)/.exec(
				trimmed.replace(/<\?[^>]*\?>/g, '').replace(/<!--[\s\S]*?-->/g, ''),
			)?.[1];
			throw new BankFileError(
				'NOT_A_BANK_FILE',
				`The XML is not an ISO 20022 statement, notification or payment status report: its root element is <${first ?? '?'}>`,
			);
		}
		if (!(message in SUPPORTED_VERSIONS)) {
			const known = KNOWN_OTHER[message];
			throw new BankFileError(
				'NOT_A_BANK_FILE',
				`The XML is ${known ?? `ISO 20022 ${message}`}${ns ? ` (${ns[0].split(':').pop()})` : ''}, not a camt.053 statement, camt.054 notification or pain.002 status report`,
			);
		}
		const format = message as 'camt.053' | 'camt.054' | 'pain.002';
		const version = ns?.[2];
		if (!version)
			throw new BankFileError(
				'UNKNOWN_VERSION',
				`The ${format} message has no ISO 20022 namespace, so its version is unknown`,
			);
		if (!SUPPORTED_VERSIONS[format].includes(version))
			throw new BankFileError(
				'UNKNOWN_VERSION',
				`${format}.${version} is not a supported version (supported: ${SUPPORTED_VERSIONS[format].map((v) => `${format}.${v}`).join(', ')})`,
			);
		if (want && want !== format)
			throw new BankFileError(
				'NOT_A_BANK_FILE',
				`The file is ${format}.${version}, not ${want} as chosen`,
			);
		return { format, version, messageType: `${format}.${version}` };
	}
	const firstLine = trimmed.split(/\r?\n/, 1)[0];
	if (/^T00\d{3}/.test(firstLine)) {
		if (want && want !== 'tito')
			throw new BankFileError(
				'NOT_A_BANK_FILE',
				`The file is a TITO account statement, not ${want} as chosen`,
			);
		return { format: 'tito', version: 'TITO', messageType: 'TITO' };
	}
	if (/^0\d{10}/.test(firstLine) && firstLine.trimEnd().length <= 90) {
		if (want && want !== 'ktl')
			throw new BankFileError(
				'NOT_A_BANK_FILE',
				`The file is a KTL reference payment file, not ${want} as chosen`,
			);
		return { format: 'ktl', version: 'KTL', messageType: 'KTL' };
	}
	if (want === 'tito' || want === 'ktl')
		throw new BankFileError(
			'NOT_A_BANK_FILE',
			`The file is not ${want === 'tito' ? 'a TITO statement (first record T00)' : 'a KTL file (first record 0)'}: it starts with ${printable(firstLine)}`,
		);
	throw new BankFileError(
		'NOT_XML',
		`The file is neither XML (camt, pain.002) nor a Finnish TITO or KTL file: it starts with ${printable(firstLine)}`,
	);
}
