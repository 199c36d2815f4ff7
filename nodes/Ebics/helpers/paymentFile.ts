/**
 * The check of a payment file before it is uploaded: which ISO 20022 message it is (by its
 * namespace), whether that is what the chosen service takes, and whether it is valid against the
 * message's schema (nodes/shared/bankfiles: libxml2's validation over the schemas the package
 * ships). SEPA credit transfers in pain.001.001.09 are checked against the European Payments
 * Council's SCT schema (EUR, SEPA lengths and character set); foreign transfers (XCT) against the
 * plain ISO 20022 schema; pain.001.001.03 and pain.008 against the ISO 20022 schemas. The SEPA
 * services take euro amounts only, which is checked apart from the schemas.
 */
import { attempt } from '../../shared/common/attempt';
import { schemaProblems } from '../../shared/bankfiles';
import { allElements, parseDocument } from '../../shared/ebics';
import { InputError } from '../../shared/common/errors';
import { CUSTOM } from '../../shared/ebics/node/services';

const ISO_NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:([a-z]{4})\.(\d{3})\.(\d{3})\.(\d{2})$/;

/** The ISO 20022 message of a file, from its root element's namespace. */
export interface IsoMessage {
	/** e.g. pain.001.001.09 */
	id: string;
	/** e.g. pain.001 */
	family: string;
	variant: string;
	version: string;
}

/** What the check found: the message, and the schema it was checked against (or why not). */
export interface PaymentCheck {
	message?: IsoMessage;
	/** The schema the file is valid against, e.g. "pain.001.001.09 (EPC SEPA credit transfer)". */
	schema?: string;
	/** Why no schema check was made, when none was. */
	notChecked?: string;
}

/** The family of message each upload preset takes. */
const FAMILY: Record<string, string> = {
	sct: 'pain.001',
	sctInstant: 'pain.001',
	xct: 'pain.001',
	sddCore: 'pain.008',
	sddB2b: 'pain.008',
};

const SEPA_CREDIT_TRANSFERS = new Set(['sct', 'sctInstant']);

/**
 * SEPA schemes are in euro only: the EPC rulebooks say so as a usage rule, which schemas do not
 * enforce ("Only 'EUR' is allowed" in the EPC schema's documentation).
 */
const EURO_ONLY: Record<string, string> = {
	sct: 'SEPA credit transfers',
	sctInstant: 'SEPA credit transfers',
	sddCore: 'SEPA direct debits',
	sddB2b: 'SEPA direct debits',
};

/** The schema file (in nodes/shared/bankfiles/schemas) for a message and a preset, and its name. */
function schemaFor(
	message: IsoMessage,
	chosen: string,
): { file: string; name: string } | undefined {
	switch (message.id) {
		case 'pain.001.001.03':
			return { file: 'pain.001.001.03', name: 'pain.001.001.03 (ISO 20022)' };
		case 'pain.001.001.09':
			return SEPA_CREDIT_TRANSFERS.has(chosen)
				? { file: 'pain.001.001.09', name: 'pain.001.001.09 (EPC SEPA credit transfer)' }
				: { file: 'pain.001.001.09.iso', name: 'pain.001.001.09 (ISO 20022)' };
		case 'pain.008.001.02':
		case 'pain.008.001.08':
			return { file: message.id, name: `${message.id} (ISO 20022)` };
		default:
			return undefined;
	}
}

/** A file of another message family than the service takes. */
function wrongFamily(
	message: IsoMessage,
	family: string,
	field: string,
	itemIndex: number,
): InputError {
	return new InputError(
		`The file in "${field}" is a ${message.id}, but the service takes ${family} files. Choose the service that matches the file. Nothing was sent to the bank`,
		{ itemIndex },
	);
}

/** The ISO 20022 message a namespace names (urn:iso:std:iso:20022:tech:xsd:pain.001.001.09). */
function messageOfNamespace(namespace: string | null | undefined): IsoMessage | undefined {
	const match = ISO_NAMESPACE.exec(namespace ?? '');
	if (!match) return undefined;
	const [, area, number, variant, version] = match;
	return {
		id: `${area}.${number}.${variant}.${version}`,
		family: `${area}.${number}`,
		variant,
		version,
	};
}

/** The ISO 20022 message of an XML file, undefined when it is not XML of an ISO 20022 message. */
export function isoMessageOf(data: Buffer): IsoMessage | undefined {
	const doc = attempt(() => parseDocument(data, 'The file'));
	if (!doc.ok) return undefined;
	return messageOfNamespace(doc.value.documentElement.namespaceURI);
}

/**
 * Checks a file for an upload: an InputError (nothing sent) when it is not the message the
 * service takes or the schema refuses it. `check` off: only what the message is, for the output.
 */
export async function checkPaymentFile(
	data: Buffer,
	chosen: string,
	field: string,
	itemIndex: number,
	check: boolean,
): Promise<PaymentCheck> {
	const family = FAMILY[chosen];
	// Not even the start of an XML document: not parsed (a parser is slow on binary data).
	const xml = /^\uFEFF?\s*</.test(data.subarray(0, 64).toString('utf8'))
		? attempt(() => parseDocument(data, `The file in "${field}"`))
		: {
				ok: false as const,
				error: new Error(
					`The file in "${field}" is not well-formed XML (it does not start with an element)`,
				),
			};
	if (!xml.ok) {
		if (chosen === CUSTOM || !check) return { notChecked: 'not XML' };
		throw new InputError(
			`${(xml.error as Error).message}: a ${family} payment file is XML. Nothing was sent to the bank`,
			{ itemIndex },
		);
	}
	const message = isoMessageOf(data);
	if (!message) {
		if (chosen === CUSTOM || !check) return { notChecked: 'not an ISO 20022 message' };
		throw new InputError(
			`The file in "${field}" is not an ISO 20022 ${family} file (its root element's namespace is "${xml.value.documentElement.namespaceURI ?? 'none'}"). Nothing was sent to the bank`,
			{ itemIndex },
		);
	}
	if (family && message.family !== family) throw wrongFamily(message, family, field, itemIndex);
	if (check && EURO_ONLY[chosen]) {
		const currencies = [
			...new Set(
				allElements(xml.value.documentElement)
					.filter((e) => e.localName === 'InstdAmt')
					.map((e) => e.getAttribute('Ccy') ?? ''),
			),
		].filter((currency) => currency !== 'EUR');
		if (currencies.length)
			throw new InputError(
				`The file in "${field}" has amounts in ${currencies.join(', ')}: ${EURO_ONLY[chosen]} are in euro only (EPC rule). ${chosen.startsWith('sct') ? 'Use the foreign transfer service (XCT) for other currencies. ' : ''}Nothing was sent to the bank`,
				{ itemIndex },
			);
	}
	if (!check) return { message, notChecked: 'the schema check is switched off' };
	const schema = schemaFor(message, chosen);
	if (!schema)
		throw new InputError(
			`The file in "${field}" is a ${message.id}, whose schema this node does not have (it checks pain.001.001.03, pain.001.001.09, pain.008.001.02 and pain.008.001.08). Switch off "Check Against Schema" to send it unchecked. Nothing was sent to the bank`,
			{ itemIndex },
		);
	const problems = await schemaProblems(data.toString('utf8'), schema.file);
	if (problems.length)
		throw new InputError(
			`The file in "${field}" is not valid against the ${schema.name} schema, so nothing was sent to the bank: ${problems.join('; ')}`,
			{ itemIndex, description: 'Correct the file (or how it is built) and run the node again.' },
		);
	return { message, schema: schema.name };
}

/** Bytes read from the start of a large file to tell which message it is. */
export const HEAD_BYTES = 64 * 1024;

/**
 * Largest file checked against its schema: the check reads the whole file into memory (the XML
 * tree and libxml2's copy), which a batch of this size still fits in.
 */
export const SCHEMA_CHECK_MAX_BYTES = 32 * 1024 * 1024;

/** The ISO 20022 message of a file from its first bytes: the root element's namespace. */
export function isoMessageOfHead(head: Buffer): IsoMessage | undefined {
	const text = head
		.toString('utf8')
		.replace(/^\uFEFF/, '')
		.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, '');
	const root =
		/<(?:([A-Za-z_][\w.-]*):)?[A-Za-z_][\w.-]*((?:\s+[^\s=>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/.exec(
			text,
		);
	if (!root) return undefined;
	const attribute = root[1] ? `xmlns:${root[1]}` : 'xmlns';
	const namespace = new RegExp(
		`(?:^|\\s)${attribute.replace('.', '\\.')}\\s*=\\s*["']([^"']*)["']`,
	).exec(root[2] ?? '')?.[1];
	return messageOfNamespace(namespace);
}

/**
 * The check of a large file in n8n's binary storage: up to SCHEMA_CHECK_MAX_BYTES read whole and
 * checked as `checkPaymentFile` does; above it, the schema check (which needs the whole file in
 * memory) is refused with what to do, and with the check off the message is told by the file's
 * first bytes. An InputError means nothing was sent.
 */
export async function checkStoredPaymentFile(
	size: number,
	whole: () => Promise<Buffer>,
	stream: () => Promise<NodeJS.ReadableStream>,
	chosen: string,
	field: string,
	itemIndex: number,
	check: boolean,
): Promise<PaymentCheck> {
	if (size <= SCHEMA_CHECK_MAX_BYTES)
		return await checkPaymentFile(await whole(), chosen, field, itemIndex, check);
	const source = await stream();
	const parts: Buffer[] = [];
	let read = 0;
	for await (const chunk of source as AsyncIterable<Buffer>) {
		parts.push(chunk);
		read += chunk.length;
		if (read >= HEAD_BYTES) break;
	}
	(source as { destroy?: () => void }).destroy?.();
	const message = isoMessageOfHead(Buffer.concat(parts, read));
	const family = FAMILY[chosen];
	const mib = Math.round(size / 1048576);
	if (check && (chosen !== CUSTOM || message))
		throw new InputError(
			`The file in "${field}" is ${mib} MiB: the schema check reads the whole file into memory and takes files up to ${SCHEMA_CHECK_MAX_BYTES / 1048576} MiB. Nothing was sent to the bank`,
			{
				itemIndex,
				description:
					'Switch off "Check Against Schema" to send it unchecked (the bank checks it on receipt), or split the batch into files of 32 MiB at most.',
			},
		);
	if (!message) return { notChecked: 'not an ISO 20022 message (by its first bytes)' };
	if (family && message.family !== family) throw wrongFamily(message, family, field, itemIndex);
	return { message, notChecked: 'the schema check is switched off' };
}
