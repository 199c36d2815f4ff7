/**
 * The initialisation letters of EBICS 3.0: after INI and HIA the subscriber signs and sends the
 * bank a letter per order (INI: the signature certificate A006; HIA: the authentication X002 and
 * encryption E002 certificates) with the SHA-256 hash of each certificate, which the bank
 * compares with what it received before it activates the subscriber. The layout follows the
 * spec's letters: date, time, recipient, user ID, customer ID, order, the key's version, then the
 * hash as upper-case hex byte pairs, 16 a line (two lines, as ebics-java-client's H005 letters
 * print them), and the lines to sign. H005 letters carry the hash of the certificate (not of
 * exponent and modulus as EBICS 2.5 letters did); the certificate's subject, issuer, serial number
 * and validity identify it, and the HTML letter prints the certificate itself too (as
 * ebics-java-client and ebics-client-php do).
 *
 * EBICS 2.5 (H004) letters print the hash of the public key instead: SHA-256 over the exponent
 * and the modulus in hexadecimal (EBICS 2.5 annex, "hash value of the public key"), with the
 * exponent and modulus themselves; that hash reproduces the spec's example letter (test/unit).
 *
 * Output: the hashes as plain fields, one HTML document (both letters, a page each when printed)
 * and the same as PDF (pdf-lib, bundled; standard fonts, so no font files are read).
 */
import { X509Certificate } from 'node:crypto';
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';

import { AUTHENTICATION_VERSION, ENCRYPTION_VERSION, H005, SIGNATURE_VERSION } from './constants';
import { certificateDigest, formatHash, publicKeyDigest } from './digests';
import type { EbicsVersion } from './requests';
import { escapeXml } from './xml';

export interface LetterKey {
	/** What the key is for, as printed. */
	title: string;
	version: string;
	/** The certificate's SHA-256 hash as printed (two lines of 16 byte pairs). */
	hash: string;
	subject: string;
	issuer: string;
	serialNumber: string;
	validFrom: string;
	validTo: string;
	bits: number;
	/** The certificate itself (printed in the HTML letter). */
	certificatePem: string;
	/** EBICS 2.5: the exponent and modulus in hexadecimal, as the letter prints them. */
	exponent?: string;
	modulus?: string;
}

export interface Letter {
	order: 'INI' | 'HIA';
	keys: LetterKey[];
	confirmation: string;
}

export interface LetterParty {
	hostId: string;
	partnerId: string;
	userId: string;
	/** The bank's name as the letter addresses it (default: the Host ID). */
	bankName?: string;
	/** The subscriber's name or company, printed under the signature line. */
	subscriberName?: string;
}

export interface InitialisationLetters {
	/** Plain fields for items: the three hashes as printed. */
	hashes: { signature: string; authentication: string; encryption: string };
	letters: Letter[];
	createdAt: Date;
	html: string;
	pdf: Buffer;
}

export interface LetterCertificates {
	signature: string;
	authentication: string;
	encryption: string;
}

/** A certificate's name as people read it: one attribute a line becomes "CN=..., O=...". */
function readableName(name: string): string {
	return name
		.split('\n')
		.map((attribute) => attribute.replace(/\\(.)/g, '$1'))
		.join(', ');
}

function letterKey(
	title: string,
	version: string,
	certificatePem: string,
	protocol: EbicsVersion,
): LetterKey {
	const certificate = new X509Certificate(certificatePem);
	const jwk = certificate.publicKey.export({ format: 'jwk' });
	const hex = (value: string | undefined): string =>
		Buffer.from(value ?? '', 'base64url')
			.toString('hex')
			.replace(/^0+/, '')
			.toUpperCase();
	return {
		title,
		version,
		hash: formatHash(
			protocol === H005
				? certificateDigest(certificate.raw)
				: publicKeyDigest(certificate.publicKey),
		),
		...(protocol === H005 ? {} : { exponent: hex(jwk.e), modulus: hex(jwk.n) }),
		subject: readableName(certificate.subject),
		issuer: readableName(certificate.issuer),
		serialNumber: certificate.serialNumber.toUpperCase(),
		validFrom: new Date(certificate.validFrom).toISOString().slice(0, 10),
		validTo: new Date(certificate.validTo).toISOString().slice(0, 10),
		bits: certificate.publicKey.asymmetricKeyDetails?.modulusLength ?? 0,
		certificatePem: certificate.toString(),
	};
}

/** The letters' content from the subscriber's three certificates (PEM). */
export function letterContent(
	certificates: LetterCertificates,
	protocol: EbicsVersion = H005,
): Letter[] {
	const key = (title: string, version: string, pem: string): LetterKey =>
		letterKey(title, version, pem, protocol);
	return [
		{
			order: 'INI',
			keys: [
				key('Certificate for the electronic signature', SIGNATURE_VERSION, certificates.signature),
			],
			confirmation: 'I hereby confirm the above certificate for my electronic signature.',
		},
		{
			order: 'HIA',
			keys: [
				key(
					'Certificate for identification and authentication',
					AUTHENTICATION_VERSION,
					certificates.authentication,
				),
				key('Certificate for encryption', ENCRYPTION_VERSION, certificates.encryption),
			],
			confirmation: 'I hereby confirm the above certificates for my EBICS access.',
		},
	];
}

function headerRows(
	party: LetterParty,
	order: string,
	at: Date,
	protocol: EbicsVersion,
): Array<[string, string]> {
	return [
		['Date', at.toISOString().slice(0, 10)],
		['Time', `${at.toISOString().slice(11, 19)} UTC`],
		['Recipient', party.bankName || party.hostId],
		['Host ID', party.hostId],
		['User ID', party.userId],
		['Customer ID', party.partnerId],
		['Order', order],
		['EBICS version', protocol === H005 ? `${H005} (EBICS 3.0)` : `${protocol} (EBICS 2.5)`],
	];
}

function keyRows(key: LetterKey): Array<[string, string]> {
	return [
		['Version', key.version],
		['Subject', key.subject],
		['Issuer', key.issuer],
		['Serial number', key.serialNumber],
		['Valid', `${key.validFrom} to ${key.validTo}`],
		['Key length', `${key.bits} bits`],
	];
}

/** What the printed hash is of. */
function hashTitle(key: LetterKey): string {
	return key.modulus
		? 'Hash value of the public key (SHA-256 of exponent and modulus):'
		: 'Hash value of the certificate (SHA-256):';
}

/** EBICS 2.5: the exponent and the modulus, 64 hex digits a line. */
function keyNumbers(key: LetterKey): string[] {
	if (!key.modulus || !key.exponent) return [];
	return [
		`Exponent: ${key.exponent}`,
		'Modulus:',
		...(key.modulus.match(/.{1,64}/g) ?? []).map((line) => line.replace(/(..)(?=.)/g, '$1 ')),
	];
}

function html(party: LetterParty, letters: Letter[], at: Date, protocol: EbicsVersion): string {
	const rows = (list: Array<[string, string]>): string =>
		list
			.map(([name, value]) => `<tr><th>${escapeXml(name)}</th><td>${escapeXml(value)}</td></tr>`)
			.join('');
	const pages = letters.map(
		(letter) => `<section class="letter">
<h1>EBICS initialisation letter (${letter.order})</h1>
<table>${rows(headerRows(party, letter.order, at, protocol))}</table>
${letter.keys
	.map(
		(key) => `<h2>${escapeXml(key.title)} (${key.version})</h2>
<table>${rows(keyRows(key))}</table>
${
	key.modulus
		? `<pre class="numbers">${escapeXml(keyNumbers(key).join('\n'))}</pre>
`
		: ''
}<p>${escapeXml(hashTitle(key))}</p>
<pre class="hash">${escapeXml(key.hash)}</pre>
<p>Certificate:</p>
<pre class="certificate">${escapeXml(key.certificatePem.trim())}</pre>`,
	)
	.join('\n')}
<p>${escapeXml(letter.confirmation)}</p>
<table class="sign"><tr><td>______________________</td><td>______________________</td><td>______________________</td></tr>
<tr><td>Place, date</td><td>${escapeXml(party.subscriberName || 'Name / company')}</td><td>Signature</td></tr></table>
</section>`,
	);
	return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>EBICS initialisation letters ${escapeXml(party.partnerId)} ${escapeXml(party.userId)}</title>
<style>
body{font-family:Helvetica,Arial,sans-serif;font-size:11pt;margin:2cm}
.letter{page-break-after:always}
th{text-align:left;padding-right:1em;font-weight:normal;color:#444}
.hash{font-family:"Courier New",monospace;font-size:12pt;font-weight:bold}
.certificate,.numbers{font-family:"Courier New",monospace;font-size:7pt}
.sign td{padding-right:2em;padding-top:2.5em}
</style></head><body>
${pages.join('\n')}
</body></html>
`;
}

/** Characters the standard PDF fonts (WinAnsi) can show; others become '?'. */
function pdfText(value: string): string {
	return value.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
}

async function pdf(
	party: LetterParty,
	letters: Letter[],
	at: Date,
	protocol: EbicsVersion,
): Promise<Buffer> {
	const doc = await PDFDocument.create();
	doc.setTitle(`EBICS initialisation letters ${party.partnerId} ${party.userId}`);
	doc.setCreationDate(at);
	doc.setModificationDate(at);
	doc.setProducer('n8n-nodes-corporate-banking');
	const regular = await doc.embedFont(StandardFonts.Helvetica);
	const bold = await doc.embedFont(StandardFonts.HelveticaBold);
	const mono = await doc.embedFont(StandardFonts.CourierBold);
	for (const letter of letters) {
		let page = doc.addPage([595.28, 841.89]);
		let y = 790;
		// An EBICS 2.5 letter with long keys goes on over a second page.
		const room = (height: number): void => {
			if (y >= 56 + height) return;
			page = doc.addPage([595.28, 841.89]);
			y = 790;
		};
		const write = (value: string, font: PDFFont, size: number, x = 56): void => {
			room(size);
			page.drawText(pdfText(value), { x, y, size, font, color: rgb(0, 0, 0), maxWidth: 483 });
			y -= size + 6;
		};
		const table = (list: Array<[string, string]>): void => {
			for (const [name, value] of list) {
				room(10);
				const target: PDFPage = page;
				target.drawText(pdfText(name), {
					x: 56,
					y,
					size: 10,
					font: regular,
					color: rgb(0.3, 0.3, 0.3),
				});
				target.drawText(pdfText(value).slice(0, 80), { x: 170, y, size: 10, font: regular });
				y -= 15;
			}
		};
		write(`EBICS initialisation letter (${letter.order})`, bold, 16);
		y -= 6;
		table(headerRows(party, letter.order, at, protocol));
		for (const key of letter.keys) {
			y -= 10;
			write(`${key.title} (${key.version})`, bold, 12);
			table(keyRows(key));
			y -= 4;
			for (const line of keyNumbers(key)) write(line, mono, 6);
			write(hashTitle(key), regular, 10);
			for (const line of key.hash.split('\n')) write(line, mono, 12);
		}
		y -= 14;
		write(letter.confirmation, regular, 10);
		room(52);
		y -= 40;
		for (const [index, label] of [
			'Place, date',
			party.subscriberName || 'Name / company',
			'Signature',
		].entries()) {
			page.drawLine({
				start: { x: 56 + index * 165, y: y + 12 },
				end: { x: 206 + index * 165, y: y + 12 },
				thickness: 0.5,
			});
			page.drawText(pdfText(label), { x: 56 + index * 165, y, size: 9, font: regular });
		}
	}
	return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** Builds both initialisation letters (INI and HIA) as fields, HTML and PDF. */
export async function initialisationLetters(
	party: LetterParty,
	certificates: LetterCertificates,
	at: Date = new Date(),
	protocol: EbicsVersion = H005,
): Promise<InitialisationLetters> {
	const letters = letterContent(certificates, protocol);
	return {
		hashes: {
			signature: letters[0].keys[0].hash,
			authentication: letters[1].keys[0].hash,
			encryption: letters[1].keys[1].hash,
		},
		letters,
		createdAt: at,
		html: html(party, letters, at, protocol),
		pdf: await pdf(party, letters, at, protocol),
	};
}
