/**
 * HPD read into fields: the sandbox's answers of both versions are valid against the official
 * schemas and read as the bank states them; flags left out are unknown, flags given without a
 * value take the schema's default; anything but an HPDResponseOrderData is refused.
 */
import { EbicsFormatError, H005_NS, readBankParameters } from '../../nodes/shared/ebics';
import { H004_NS } from '../../nodes/shared/ebics/h004/requests';
import { validateEbics } from '../helpers/ebics';
import { hpdData } from '../sandbox/ebics/hpd';
import type { SandboxEbicsBank } from '../sandbox/ebics/bank';

const bank = (recovery: boolean) => ({ hostId: 'HOST1', switches: { recovery } }) as unknown as SandboxEbicsBank;

test.each([
	['H005', H005_NS, 'ebics_H005.xsd', null],
	['H004', H004_NS, 'H004/ebics_H004.xsd', true],
])('%s: the answer is valid against the schema and read as the bank states it', (_version, ns, schema, x509) => {
	const xml = Buffer.from(hpdData(bank(true), ns));
	expect(validateEbics(xml, schema)).toMatchObject({ valid: true });
	const read = readBankParameters(xml);
	expect(read).toMatchObject({
		hostId: 'HOST1',
		institute: 'Sandbox Bank',
		urls: [{ url: 'https://sandbox.invalid/ebics', validFrom: '2020-01-01T00:00:00Z' }],
		protocolVersions: ['H004', 'H005'],
		signatureVersions: ['A006'],
		recovery: true,
		preValidation: false,
	});
	expect(read.x509Data ?? null).toBe(x509);
});

test('flags left out are unknown; a flag without a value is the schema default (supported)', () => {
	const xml = `<HPDResponseOrderData xmlns="${H005_NS}"><AccessParams><URL>https://bank.example/ebics</URL><URL valid_from="2027-01-01T00:00:00Z">https://new.bank.example/ebics</URL><Institute>Example Bank</Institute></AccessParams><ProtocolParams><Version><Protocol>H005</Protocol><Authentication>X002</Authentication><Encryption>E002</Encryption><Signature>A005 A006</Signature></Version><Recovery/></ProtocolParams></HPDResponseOrderData>`;
	expect(validateEbics(xml)).toMatchObject({ valid: true });
	expect(readBankParameters(Buffer.from(xml))).toEqual({
		urls: [{ url: 'https://bank.example/ebics' }, { url: 'https://new.bank.example/ebics', validFrom: '2027-01-01T00:00:00Z' }],
		institute: 'Example Bank',
		hostId: undefined,
		protocolVersions: ['H005'],
		authenticationVersions: ['X002'],
		encryptionVersions: ['E002'],
		signatureVersions: ['A005', 'A006'],
		recovery: true,
		preValidation: undefined,
		x509Data: undefined,
		x509DataPersistent: undefined,
		clientDataDownload: undefined,
		downloadableOrderData: undefined,
	});
});

test('anything but an HPDResponseOrderData of H004 or H005 is refused', () => {
	expect(() => readBankParameters(Buffer.from(`<HTDResponseOrderData xmlns="${H005_NS}"/>`))).toThrow(EbicsFormatError);
	expect(() => readBankParameters(Buffer.from('<HPDResponseOrderData xmlns="urn:org:ebics:H003"/>'))).toThrow(/not an HPDResponseOrderData/);
	expect(() => readBankParameters(Buffer.from(`<HPDResponseOrderData xmlns="${H005_NS}"><ProtocolParams/></HPDResponseOrderData>`))).toThrow(/no AccessParams or no protocol Version/);
});

test('EBICS 2.5 as ebics_orders_H004.xsd writes it (no public bank sample exists): X.509 flags, an extension of another namespace left aside', () => {
	const xml = `<HPDResponseOrderData xmlns="${H004_NS}"><AccessParams><URL>https://ebics.bank.example/ebicsweb</URL><Institute>Beispielbank eG</Institute><HostID>BANKHOST</HostID></AccessParams><ProtocolParams><Version><Protocol>H003 H004</Protocol><Authentication>X002</Authentication><Encryption>E002</Encryption><Signature>A005 A006</Signature></Version><Recovery supported="true"/><PreValidation supported="false"/><X509Data supported="true" persistent="true"/><ClientDataDownload supported="true"/><DownloadableOrderData supported="false"/><x:Note xmlns:x="urn:example:bank">1</x:Note></ProtocolParams></HPDResponseOrderData>`;
	expect(validateEbics(xml, 'H004/ebics_H004.xsd')).toMatchObject({ valid: true });
	expect(readBankParameters(Buffer.from(xml))).toEqual({
		urls: [{ url: 'https://ebics.bank.example/ebicsweb' }],
		institute: 'Beispielbank eG',
		hostId: 'BANKHOST',
		protocolVersions: ['H003', 'H004'],
		authenticationVersions: ['X002'],
		encryptionVersions: ['E002'],
		signatureVersions: ['A005', 'A006'],
		recovery: true,
		preValidation: false,
		x509Data: true,
		x509DataPersistent: true,
		clientDataDownload: true,
		downloadableOrderData: false,
	});
});
