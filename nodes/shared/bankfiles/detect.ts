import { BankFileError } from './errors';
import type { BankFileFormat, DetectedFormat } from './types';

type IsoMessage = 'camt.052' | 'camt.053' | 'camt.054' | 'pain.002';

/** Every format this module reads, in the order the editor offers them. */
export const BANK_FILE_FORMATS: BankFileFormat[] = [
	'camt.052',
	'camt.053',
	'camt.054',
	'mt940',
	'mt942',
	'pain.002',
	'bai2',
	'tito',
	'ktl',
];

/** ISO 20022 versions this module reads, by message. */
export const SUPPORTED_VERSIONS: Record<IsoMessage, string[]> = {
	'camt.052': ['001.02', '001.03', '001.04', '001.05', '001.06', '001.07', '001.08'],
	'camt.053': ['001.02', '001.03', '001.04', '001.05', '001.06', '001.07', '001.08'],
	'camt.054': ['001.02', '001.03', '001.04', '001.05', '001.06', '001.07', '001.08'],
	'pain.002': ['001.03', '001.04', '001.05', '001.06', '001.07', '001.08', '001.09', '001.10'],
};

const ROOTS: Record<string, IsoMessage> = {
	BkToCstmrAcctRpt: 'camt.052',
	BkToCstmrStmt: 'camt.053',
	BkToCstmrDbtCdtNtfctn: 'camt.054',
	CstmrPmtStsRpt: 'pain.002',
};

const KNOWN_OTHER: Record<string, string> = {
	'pain.001': 'a payment initiation (pain.001), which is built, not parsed',
	'pain.008': 'a direct debit initiation (pain.008), which is built, not parsed',
};

/**
 * Whether the text is SWIFT MT940 (statement) or MT942 (interim report): its message type in a
 * {2:} block when it has one, else its fields: :13D:, :34F: and :90D: / :90C: belong to MT942,
 * :60F: / :60M: to MT940. Undefined when the text has no :20:, :25: and :28C: fields.
 */
function swiftMessage(text: string): 'mt940' | 'mt942' | undefined {
	if (!/(?:^|[\r\n]|\{4:)\s*:20:/.test(text) || !/(?:^|[\r\n]):25[A-Z]?:/.test(text))
		return undefined;
	if (!/(?:^|[\r\n]):28C?:/.test(text)) return undefined;
	const declared = /\{2:[IO](94[02])/.exec(text)?.[1];
	if (declared) return declared === '942' ? 'mt942' : 'mt940';
	const intraday = /(?:^|[\r\n]):(?:13D|34F|90[DC]):/.exec(text)?.index ?? Infinity;
	const opening = /(?:^|[\r\n]):60[FM]:/.exec(text)?.index ?? Infinity;
	return intraday < opening ? 'mt942' : 'mt940';
}

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
				`The XML is not an ISO 20022 account report, statement, notification or payment status report: its root element is <${first ?? '?'}>`,
			);
		}
		if (!(message in SUPPORTED_VERSIONS)) {
			const known = KNOWN_OTHER[message];
			throw new BankFileError(
				'NOT_A_BANK_FILE',
				`The XML is ${known ?? `ISO 20022 ${message}`}${ns ? ` (${ns[0].split(':').pop()})` : ''}, not a camt.052 account report, camt.053 statement, camt.054 notification or pain.002 status report`,
			);
		}
		const format = message as IsoMessage;
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
	const swift = swiftMessage(text);
	if (swift) {
		if (want && want !== swift)
			throw new BankFileError(
				'NOT_A_BANK_FILE',
				`The file is a SWIFT ${swift.toUpperCase()} ${swift === 'mt940' ? 'statement' : 'interim report'}, not ${want} as chosen`,
			);
		const name = swift.toUpperCase();
		return { format: swift, version: name, messageType: name };
	}
	if (want === 'mt940' || want === 'mt942')
		throw new BankFileError(
			'NOT_A_BANK_FILE',
			`The file is not a SWIFT ${want.toUpperCase()} (its fields :20:, :25:, :28C: are missing): it starts with ${printable(firstLine)}`,
		);
	// BAI2: the file header, record code 01, sender, receiver, creation date YYMMDD and time.
	if (/^01,[^,]*,[^,]*,\d{6},/.test(firstLine)) {
		if (want && want !== 'bai2')
			throw new BankFileError(
				'NOT_A_BANK_FILE',
				`The file is a BAI2 balance report, not ${want} as chosen`,
			);
		return { format: 'bai2', version: '2', messageType: 'BAI2' };
	}
	if (want === 'bai2')
		throw new BankFileError(
			'NOT_A_BANK_FILE',
			`The file is not BAI2 (its first record is not a file header "01,sender,receiver,YYMMDD,..."): it starts with ${printable(firstLine)}`,
		);
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
		`The file is neither XML (camt, pain.002), a SWIFT MT940 / MT942, a BAI2 file nor a Finnish TITO or KTL file: it starts with ${printable(firstLine)}`,
	);
}
