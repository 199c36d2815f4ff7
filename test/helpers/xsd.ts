import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const XSD_DIR = path.resolve(__dirname, '../fixtures/xsd');

/** Validates XML against an XSD with xmllint (Debian libxml2-utils): { valid, output }. */
export function validateWithXsd(xml: string, schemaFile: string): { valid: boolean; output: string } {
	const dir = mkdtempSync(path.join(tmpdir(), 'xsd-'));
	try {
		const file = path.join(dir, 'document.xml');
		writeFileSync(file, xml);
		const result = spawnSync('xmllint', ['--noout', '--schema', path.join(XSD_DIR, schemaFile), file], { encoding: 'utf8' });
		if (result.error) throw result.error;
		return { valid: result.status === 0, output: `${result.stdout}${result.stderr}` };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
