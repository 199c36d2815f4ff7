/**
 * The customer protocol read into entries (HAC in the layout banks send, as libeufin reads it from
 * real banks; PTK text in the banks' own wording and encoding), and private keys as users paste
 * them.
 */
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';

import { EbicsFormatError, readCustomerAcknowledgement, readCustomerProtocol } from '../../nodes/shared/ebics';
import { importPrivateKey, ImportedKeyError } from '../../nodes/shared/keys';

const HAC = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03">
 <CstmrPmtStsRpt>
  <GrpHdr><MsgId>HAC-1</MsgId><CreDtTm>2026-11-20T10:00:00</CreDtTm></GrpHdr>
  <OrgnlGrpInfAndSts><OrgnlMsgId>EBICS-HAC</OrgnlMsgId><OrgnlMsgNmId>pain.002</OrgnlMsgNmId></OrgnlGrpInfAndSts>
  <OrgnlPmtInfAndSts>
   <OrgnlPmtInfId>FILE_UPLOAD</OrgnlPmtInfId>
   <StsRsnInf>
    <Orgtr><Id><OrgId>
     <Othr><Id>A0B1</Id><SchmeNm><Prtry>OrderID</Prtry></SchmeNm></Othr>
     <Othr><Id>BTU</Id><SchmeNm><Prtry>OrderType</Prtry></SchmeNm></Othr>
     <Othr><Id>2026-11-20T09:58:01</Id><SchmeNm><Prtry>TimeStamp</Prtry></SchmeNm></Othr>
    </OrgId></Id></Orgtr>
    <Rsn><Cd>TS01</Cd></Rsn>
   </StsRsnInf>
  </OrgnlPmtInfAndSts>
  <OrgnlPmtInfAndSts>
   <OrgnlPmtInfId>ORDER_HAC_FINAL_NEG</OrgnlPmtInfId>
   <StsRsnInf>
    <Orgtr><Id><OrgId>
     <Othr><Id>A0B1</Id><SchmeNm><Prtry>OrderID</Prtry></SchmeNm></Othr>
     <Othr><Id>2026-11-20T09:58:02</Id><SchmeNm><Prtry>TimeStamp</Prtry></SchmeNm></Othr>
    </OrgId></Id></Orgtr>
    <AddtlInf>Unterschriftsklasse A reicht nicht aus</AddtlInf>
    <AddtlInf> und keine VEU vereinbart</AddtlInf>
   </StsRsnInf>
  </OrgnlPmtInfAndSts>
 </CstmrPmtStsRpt>
</Document>`;

describe('HAC', () => {
	it('gives one entry per event: action, order, time, reason, the bank text, whether it ends refused', () => {
		const hac = readCustomerAcknowledgement(Buffer.from(HAC));
		expect(hac).toEqual({
			messageId: 'HAC-1',
			createdAt: '2026-11-20T10:00:00',
			entries: [
				{ action: 'FILE_UPLOAD', actionText: 'File uploaded to the bank', orderId: 'A0B1', timestamp: '2026-11-20T09:58:01', reasonCode: 'TS01', details: { OrderType: 'BTU' } },
				{
					action: 'ORDER_HAC_FINAL_NEG',
					actionText: 'Order finished: refused',
					orderId: 'A0B1',
					timestamp: '2026-11-20T09:58:02',
					additionalInfo: 'Unterschriftsklasse A reicht nicht aus und keine VEU vereinbart',
					refused: true,
					details: {},
				},
			],
		});
	});

	it('refuses what is not a pain.002, and a DOCTYPE', () => {
		expect(() => readCustomerAcknowledgement('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"/>')).toThrow(
			new EbicsFormatError('The customer acknowledgement (HAC) is not a pain.002 status report (its root is Document in urn:iso:std:iso:20022:tech:xsd:camt.053.001.02)'),
		);
		expect(() => readCustomerAcknowledgement('<!DOCTYPE x [<!ENTITY e "e">]><x/>')).toThrow(/is refused: XML with a DOCTYPE declaration is refused/);
	});
});

describe('PTK', () => {
	it('gives the non-empty lines, each with the order it names; ISO-8859-1 read as banks send it', () => {
		const text = 'K U N D E N P R O T O K O L L\r\n\r\nAuftragsnummer: A0B1  Ausführung abgelehnt\r\nOrder ID B2C3 accepted\r\nOrder data stored\r\n';
		expect(readCustomerProtocol(Buffer.from(text, 'latin1'))).toEqual([
			{ line: 1, text: 'K U N D E N P R O T O K O L L' },
			{ line: 3, text: 'Auftragsnummer: A0B1  Ausführung abgelehnt', orderId: 'A0B1' },
			{ line: 4, text: 'Order ID B2C3 accepted', orderId: 'B2C3' },
			{ line: 5, text: 'Order data stored' },
		]);
		expect(readCustomerProtocol(Buffer.from('Ordre C4D5 rejeté\n', 'utf8'))).toEqual([{ line: 1, text: 'Ordre C4D5 rejeté', orderId: 'C4D5' }]);
	});
});

describe('private keys as users paste them', () => {
	const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
	const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
	const pkcs1 = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
	const encrypted = privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'open sesame' }).toString();
	const same = (pem: string) => createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' }).equals(privateKey.export({ type: 'pkcs8', format: 'der' }));

	it('reads PKCS#8, PKCS#1, one-line pastes and encrypted keys with their passphrase into PKCS#8', () => {
		for (const pem of [pkcs8, pkcs1, pkcs1.replace(/\n/g, ' '), pkcs8.replace(/\n/g, '\\n')]) {
			const read = importPrivateKey(pem);
			expect(read).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
			expect(same(read)).toBe(true);
		}
		expect(same(importPrivateKey(encrypted, 'open sesame'))).toBe(true);
	});

	it.each([
		['', 'missing', 'it is empty'],
		['hello', 'notPem', 'it is not a PEM private key'],
		[`${pkcs8.slice(0, 400)}\n-----END PRIVATE KEY-----\n`, 'unreadable', 'the PEM text cannot be read as a private key'],
		[encrypted, 'passphrase', 'the key is encrypted: give its passphrase'],
	])('refuses a broken paste with the reason, never the key (%#)', (pem, reason, message) => {
		let error: unknown;
		try {
			importPrivateKey(pem);
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(ImportedKeyError);
		expect(error).toMatchObject({ reason });
		expect((error as Error).message).toMatch(new RegExp(`^${message}`));
		expect((error as Error).message).not.toContain(pkcs8.split('\n')[1]);
	});

	it('says when the passphrase does not open the key', () => {
		expect(() => importPrivateKey(encrypted, 'wrong')).toThrow('the key is encrypted and the passphrase does not open it');
	});
});
