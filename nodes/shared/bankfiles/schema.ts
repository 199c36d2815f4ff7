/**
 * Payment files are checked against the official ISO 20022 schema of their message before they
 * are handed out: libxml2's schema validation (xmllint, compiled to WebAssembly and run in a worker
 * thread) over the schemas in ./schemas, which ship with the package.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { validateXML } from 'xmllint-wasm';

import { BankFileError } from './errors';

const SCHEMA_DIR = path.join(__dirname, 'schemas');
const loaded = new Map<string, Promise<string>>();
/** WebAssembly memory pages are 64 KiB. */
const PAGE = 64 * 1024;

function schemaText(message: string): Promise<string> {
	let text = loaded.get(message);
	if (!text) {
		text = readFile(path.join(SCHEMA_DIR, `${message}.xsd`), 'utf8');
		loaded.set(message, text);
	}
	return text;
}

/** The schema's complaints about the document (at most `max`), or none when it is valid. */
export async function schemaProblems(xml: string, message: string, max = 10): Promise<string[]> {
	const schema = await schemaText(message);
	// libxml2 holds the document tree: room for about ten times the file, 64 MiB at least.
	const pages = Math.min(65536, Math.ceil((64 * 1024 * 1024 + xml.length * 10) / PAGE));
	const result = await validateXML({
		xml: [{ fileName: 'file.xml', contents: xml }],
		schema: [{ fileName: `${message}.xsd`, contents: schema }],
		initialMemoryPages: 256,
		maxMemoryPages: pages,
	});
	if (result.valid) return [];
	return result.errors.slice(0, max).map((error) => {
		const where = error.loc ? `line ${error.loc.lineNumber}: ` : '';
		return `${where}${error.message.replace(/^.*?Schemas validity error : /, '')}`;
	});
}

/** Throws a BankFileError naming what the schema refuses; nothing when the document is valid. */
export async function assertSchemaValid(xml: string, message: string): Promise<void> {
	const problems = await schemaProblems(xml, message);
	if (problems.length)
		throw new BankFileError(
			'SCHEMA_INVALID',
			`The ${message} file does not match the ISO 20022 schema, so it was not produced: ${problems.join('; ')}`,
		);
}
